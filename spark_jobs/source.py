"""The events a Spark job reads: format, the columns it needs, and checks made before any task runs."""
from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass
from urllib.parse import urlparse

from cepkit.front.binding import PSEUDO_ATTRIBUTES, attribute_uses
from cepkit.core.errors import EventError
from cepkit.front.language import ast as A

FORMATS = ("parquet", "csv")


@dataclass(frozen=True)
class Columns:
    """The roles of the input columns."""

    ts: str = "ts"
    id: str = "id"
    type: str | None = "type"       # None: every event has `default_type`
    default_type: str | None = None


def is_local(path: str) -> bool:
    """Whether `path` names the local file system (no scheme, or file:)."""
    scheme = urlparse(path).scheme
    return scheme in ("", "file") or (len(scheme) == 1 and os.name == "nt")


def local_path(path: str) -> str:
    return urlparse(path).path if path.startswith("file:") else path


def detect_format(path: str, given: str | None = None) -> str:
    """csv or parquet: as given, else from the suffix; a directory is a Parquet data set."""
    if given:
        if given not in FORMATS:
            raise EventError(f"the Spark job reads {' or '.join(FORMATS)}, not {given!r}")
        return given
    low = path.lower().rstrip("/")
    if low.endswith((".csv", ".csv.gz")):
        return "csv"
    if low.endswith((".parquet", ".pq")) or (is_local(path) and os.path.isdir(local_path(path))):
        return "parquet"
    raise EventError(f"cannot tell the format of '{path}' from its name; pass --input-format csv|parquet")


def needed_columns(q: A.Query, cols: Columns, keys: tuple[str, ...] = ()) -> dict[str, str]:
    """Each column the job needs, with why (for error messages)."""
    need = {cols.ts: "the timestamp", cols.id: "the event id (the job orders events by timestamp, then id)"}
    if cols.type is not None and cols.default_type is None:
        need[cols.type] = "the event type (or pass --default-type)"
    for attr, use in attribute_uses(q).items():
        need.setdefault(attr, f"read by the query at line {use.node.pos.line}, column {use.node.pos.column}")
    for key in keys:
        need.setdefault(key, "the partition key")
    return need


def stage_columns(present: list[str], need: dict[str, str], type_col: str | None) -> list[str]:
    """The columns the matching stage carries, in the file's order: those the job needs (needed_columns) and
    the type column where the file has one (the readers use it even with a default type). The others are
    dropped before the shuffle: `mapInArrow` hands every column of its input to the Python workers, and the
    Arrow transfer is half of the stage (docs/spark.md, "Where the matching stage goes")."""
    return [c for c in present if c in need or c == type_col]


def check_columns(path: str, present: list[str], need: dict[str, str]) -> None:
    """EventError naming the path and the first needed column that is missing."""
    have = set(present)
    for name, why in need.items():
        if name in have:
            continue
        if name in PSEUDO_ATTRIBUTES and why.startswith("read by"):
            continue  # x.ts / x.time / x.id read the event's own timestamp or id
        raise EventError(f"'{path}' has no column '{name}' ({why}); its columns are: {', '.join(present)}",
                         column=name)


def local_columns(path: str, fmt: str) -> list[str] | None:
    """The column names of a local file, read without Spark (None for a non-local path)."""
    if not is_local(path):
        return None
    p = local_path(path)
    if not os.path.exists(p):
        raise EventError(f"no such file or directory: '{path}'")
    if fmt == "csv":
        if os.path.isdir(p):
            return None  # a directory of CSV parts: Spark reads the header
        try:
            with open(p, newline="", encoding="utf-8") as fh:
                header = next(csv.reader(fh), None)
        except (OSError, UnicodeDecodeError) as exc:
            raise EventError(f"cannot read '{path}': {exc}") from None
        if not header:
            raise EventError(f"'{path}' is empty (a CSV file needs a header row)")
        return [h.strip() for h in header]
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if os.path.isdir(p):
            return list(pq.ParquetDataset(p).schema.names)
        return list(pq.read_schema(p).names)
    except (OSError, pa.ArrowException, ValueError) as exc:
        raise EventError(f"cannot read '{path}' as Parquet: {exc}") from None


def read(spark, path: str, fmt: str, cols: Columns = Columns()):
    """A Spark DataFrame over the events, and the columns the tasks type from text.

    CSV: the timestamp, id and type columns keep the types Spark infers (the plan needs long or datetime
    timestamps); every other column is read as text and typed inside the task by the readers' one rule
    (`cepkit.core.typed_columns.text_column`). Mode FAILFAST, without CSV column pruning: a row with more or
    fewer cells than the header fails the first action that reads the file (`malformed_csv` turns that into
    an EventError)."""
    from pyspark.errors import AnalysisException
    from pyspark.sql import types as ST

    try:
        if fmt != "csv":
            return spark.read.parquet(path), ()
        # every row's cells are counted only when every column is parsed (a session setting)
        spark.conf.set("spark.sql.csv.parser.columnPruning.enabled", "false")
        inferred = csv_reader(spark).option("inferSchema", True).csv(path).schema
        typed = {cols.ts, cols.id, cols.type}
        schema = ST.StructType([f if f.name in typed else ST.StructField(f.name, ST.StringType())
                                for f in inferred.fields])
        df = csv_reader(spark).schema(schema).csv(path)
        return df, tuple(f.name for f in schema.fields if f.name not in typed)
    except AnalysisException as exc:
        raise EventError(f"cannot read '{path}': {str(exc).splitlines()[0]}") from None


def csv_reader(spark):
    """Spark's CSV reader with the options that make it read cells as pyarrow does for the readers: a header
    row, quotes doubled inside quoted cells, leading spaces dropped, an empty cell null, every row as long as
    the header."""
    return (spark.read.option("header", True).option("mode", "FAILFAST").option("escape", '"')
            .option("ignoreLeadingWhiteSpace", True).option("nullValue", ""))


_MALFORMED = re.compile(r"Malformed CSV record: (.*?)(?: SQLSTATE|\n|$)")


def malformed_csv(path: str, exc: BaseException) -> EventError | None:
    """The EventError for Spark's failure on a malformed CSV row (FAILFAST), naming the file and the row's
    text (Spark does not give its number); None for any other failure."""
    text = str(exc)
    if "MALFORMED_CSV_RECORD" not in text and "MALFORMED_RECORD_IN_PARSING" not in text:
        return None
    found = _MALFORMED.search(text)
    shown = found.group(1) if found else "(Spark does not show it)"
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return EventError(f"'{path}': a row does not have the header's number of cells, or a timestamp, id or type "
                      f"cell does not read as its column's type: {shown!r} (a short, long or cut-off row)")
