-- Thesis §3.4 running example (spec/004 SEQ-5): low price, large order, any events, new high, within 10
SELECT * FROM trades MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES A.ts AS a_ts, B.ts AS b_ts, D.ts AS d_ts, COUNT(C.*) AS waited
  ALL MATCHES CONTIGUOUS
  PATTERN (A B C* D) WITHIN 10
  DEFINE A AS p < 10, B AS v > 1000, D AS p > 50
)
