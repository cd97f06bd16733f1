-- V-shaped price movements per symbol (one row per match)
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES A.price AS start_price, LAST(B.price) AS bottom_price, LAST(C.price) AS top_price,
           FIRST(A.ts) AS start_ts, LAST(C.ts) AS end_ts, MATCH_NUMBER() AS match_no
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B+ C+)
  DEFINE B AS price < PREV(price),
         C AS price > PREV(price)
)
