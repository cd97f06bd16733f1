-- Trino's TestRowPatternMatching.testSimpleQuery as written: the match aliased (AS m), its columns
-- qualified (m.id), the rows carried by the query (VALUES), no ts column (ORDER BY alone orders the rows).
--   cepkit run examples/sql/trino_v_shape.sql --format table
SELECT m.id, m.match, m.val, m.label
FROM (VALUES (1, 90), (2, 80), (3, 70), (4, 80), (5, 90), (6, 50), (7, 40), (8, 60)) t(id, value)
  MATCH_RECOGNIZE (
    ORDER BY id
    MEASURES MATCH_NUMBER() AS match, RUNNING LAST(value) AS val, CLASSIFIER() AS label
    ALL ROWS PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (A B+ C+)
    DEFINE /* A defaults to True, matches any row */
           B AS B.value < PREV (B.value),
           C AS C.value > PREV (C.value)
  ) AS m
