-- Every row of each V shape, with running and final measures
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES CLASSIFIER() AS var, MATCH_NUMBER() AS match_no,
           RUNNING COUNT(*) AS rows_so_far, FINAL COUNT(*) AS match_rows
  ALL ROWS PER MATCH
  PATTERN (A B+ C+)
  DEFINE B AS price < PREV(price),
         C AS price > PREV(price)
)
