"""Where a streaming job's events come from: a directory that Parquet or JSON-lines files land in (the
default), or a Kafka topic whose messages are JSON events. The stream's schema is fixed when it starts
(given, or read from the first file); every file already there must have it."""
from __future__ import annotations

import os
from dataclasses import dataclass

from cepkit.core.errors import CepkitError, EventError
from cepkit.spark_jobs import source as S

FILE_FORMATS = ("parquet", "json")
KAFKA_PROVIDER = "org.apache.spark.sql.kafka010.KafkaSourceProvider"


@dataclass(frozen=True)
class StreamSource:
    """A directory of files (`path`, `fmt`) or a Kafka topic (`kafka` bootstrap servers, `topic`)."""

    path: str | None = None
    fmt: str | None = None               # parquet or json (JSON lines); None: from the files' names
    kafka: str | None = None
    topic: str | None = None
    schema: str | None = None            # a DDL string ("ts long, id long, type string, ...")
    max_files_per_trigger: int | None = None

    def describe(self) -> str:
        return f"kafka {self.kafka} topic {self.topic}" if self.kafka else self.path


class MissingConnector(CepkitError):
    """The Kafka source needs Spark's Kafka connector, which is not on Spark's class path."""

    exit_code = 2


def data_files(path: str) -> list[str]:
    """The data files in a local source directory, by name (Spark's hidden names skipped)."""
    return sorted(os.path.join(path, f) for f in os.listdir(path)
                  if not f.startswith((".", "_")) and os.path.isfile(os.path.join(path, f)))


def file_format(src: StreamSource, files: list[str]) -> str:
    """parquet or json: as given, else from the first file's name."""
    if src.fmt is not None:
        if src.fmt not in FILE_FORMATS:
            raise EventError(f"the streaming job reads {' or '.join(FILE_FORMATS)} files, not {src.fmt!r}")
        return src.fmt
    for f in files:
        low = f.lower()
        if low.endswith((".parquet", ".pq")):
            return "parquet"
        if low.endswith((".json", ".jsonl", ".ndjson")):
            return "json"
    raise EventError(f"cannot tell the format of the files in '{src.path}' from their names; pass "
                     "--input-format parquet|json")


def check_directory(src: StreamSource) -> list[str]:
    """The files already in a local source directory; EventError for a missing path or a plain file."""
    if not S.is_local(src.path):
        return []
    p = S.local_path(src.path)
    if not os.path.exists(p):
        raise EventError(f"no such directory: '{src.path}' (the stream's source: a directory that event files "
                         "land in)")
    if not os.path.isdir(p):
        raise EventError(f"'{src.path}' is a file; the stream's source is a directory that event files land in")
    return data_files(p)


def file_schema(spark, src: StreamSource, fmt: str, files: list[str]):
    """The stream's Spark schema: given, else the first file's; every file already there must have it."""
    if src.schema is not None:
        schema = ddl_schema(spark, src.schema)
    elif not files:
        raise EventError(f"'{src.describe()}' holds no file to take the stream's schema from; pass --schema "
                         "(a DDL string such as 'ts long, id long, type string, price double')")
    else:
        schema = one_schema(spark, files[0], fmt)
    for f in files if fmt == "parquet" else []:
        other = one_schema(spark, f, fmt)
        if [(x.name, x.dataType) for x in other.fields] != [(x.name, x.dataType) for x in schema.fields]:
            raise EventError(f"the stream's schema changes: '{f}' has ({other.simpleString()[7:-1]}), the stream "
                             f"({schema.simpleString()[7:-1]})")
    return schema


def ddl_schema(spark, ddl: str):
    """The Spark schema of a DDL string ("ts long, id long, type string")."""
    try:
        return spark.createDataFrame([], ddl).schema
    except Exception as exc:
        raise EventError(f"cannot read the schema {ddl!r}: {str(exc).splitlines()[0]}") from None


def one_schema(spark, path: str, fmt: str):
    """The Spark schema of one file (Parquet: its footer; JSON lines: Spark's inference over the file)."""
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq
            from pyspark.sql.pandas.types import from_arrow_schema

            return from_arrow_schema(pq.read_schema(path))
        return spark.read.option("mode", "FAILFAST").json(path).schema
    except Exception as exc:
        raise EventError(f"cannot read '{path}' as {fmt}: {str(exc).splitlines()[0]}") from None


def read_stream(spark, src: StreamSource, fmt: str | None, schema):
    """The streaming DataFrame of events."""
    if src.kafka:
        return read_kafka(spark, src, schema)
    reader = spark.readStream.schema(schema)
    if src.max_files_per_trigger:
        reader = reader.option("maxFilesPerTrigger", src.max_files_per_trigger)
    if fmt == "json":
        return reader.option("mode", "FAILFAST").json(src.path)
    return reader.parquet(src.path)


def require_kafka(spark) -> None:
    """MissingConnector unless Spark can load its Kafka source."""
    try:
        loader = spark.sparkContext._jvm.java.lang.Thread.currentThread().getContextClassLoader()
        loader.loadClass(KAFKA_PROVIDER)
    except Exception:
        version = spark.version
        raise MissingConnector(
            f"the Kafka source needs Spark's Kafka connector, which this Spark ({version}) does not have: start "
            f"with --packages org.apache.spark:spark-sql-kafka-0-10_2.13:{version} (or set spark.jars.packages "
            f"to it), or put its jar in pyspark's jars/ directory") from None


def read_kafka(spark, src: StreamSource, schema):
    """Kafka messages whose values are JSON events (one event a message) in the given schema."""
    from pyspark.sql import functions as F

    raw = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", src.kafka)
           .option("subscribe", src.topic).option("startingOffsets", "earliest").load())
    parsed = raw.select(F.from_json(F.col("value").cast("string"), schema, {"mode": "FAILFAST"}).alias("e"))
    return parsed.select("e.*")
