"""The Spark jobs' parts without a SparkSession: how a query is split (keys, time slices, the SQL walk across
slices) and how output is typed, with Python doing Spark's part. Spark-free, so xdist balances these freely;
the tests that start Spark are in tests/spark."""
