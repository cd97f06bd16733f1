// Aggressive drivers: the thesis' Listing 5.1 (Körber 2021, spec/004 §5.4) in cepkit's TPStream.
// Differences from the printed listing:
//  - unit words inside conditions ("8m/s2", "70 mph") are not part of the language: the attributes
//    accel (m/s²) and speed (mph) are plain numbers;
//  - the thesis' relation "finishes" (A.ts < B.ts, A.te = B.te) is Allen's "finished_by", so the
//    second constraint says finished_by where the listing says finishes.
FROM CarSensors PARTITION BY car_id
DEFINE A AS accel > 8 AT LEAST 5s,
       B AS speed > 70 BETWEEN 4s AND 30s,
       C AS accel < -9 AT LEAST 3s
PATTERN A meets;overlaps;starts;during B
    AND B contains;finished_by;overlaps;meets C
    AND A before C
WITHIN 5 minutes
RETURN first(B.car_id) AS id,
       avg(B.speed) AS avg_speed;
