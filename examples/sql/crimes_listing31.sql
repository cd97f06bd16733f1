-- Thesis Listing 3.1 (variant 1): every match, contiguous strategy, inclusive WITHIN (run with --ts-unit min)
SELECT * FROM CRIMES MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES A.ID AS a_id, B.ID AS b_id, C.ID AS c_id
  ALL MATCHES CONTIGUOUS
  PATTERN A T* B T* C WITHIN 30 MINUTES
  DEFINE
    A AS A.PRIMARY = 'ROBBERY' AND A.BEAT = 2232,
    B AS B.PRIMARY = 'BATTERY' AND B.BEAT = A.BEAT,
    C AS C.PRIMARY = 'VEHICLE THEFT' AND C.BEAT = A.BEAT
)
