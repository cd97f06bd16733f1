"""`cepkit spark index EVENTS`: the thesis' lightweight index (spec/004 §3.1) of a directory of Parquet
files, computed with Spark, kept as a side table in EVENTS/_cepkit_index/.

A block is a Parquet row group. `blocks.parquet` holds one row per block, in stream order (files by name,
row groups in file order): file, row group, first seq, row count, the timestamp range (min/max and first/
last) and, per column, null count, min and max, and the sum of numeric columns (exact for integers, the
correctly rounded one for floats). Its key-value metadata records the events, whether timestamps are
strictly increasing, the time unit, and the fingerprint of every data file (cepkit.spark_jobs.index_files).
One Spark pass over the blocks computes it; each secondary index (`--index ATTR`, the thesis' (key, seq, t)
entries, spec/004 §3.1) is one more pass reading only the timestamp and that column, sorted by (key, seq)
into `secondary-ATTR/`. The directory is replaced atomically (cepkit.spark_jobs.commit)."""
from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cepkit.core.errors import CepkitError, EventError
from cepkit.spark_jobs import commit as C
from cepkit.spark_jobs import index_files as F
from cepkit.spark_jobs import spark_io as IO
from cepkit.spark_jobs import tasks as T

INDEX_DIR = "_cepkit_index"
BLOCKS = "blocks.parquet"
META_KEY = b"cepkit.index"
VERSION = 1
TS, ID = "ts", "id"
KEY_ROW_GROUP_BYTES = 1 << 20   # small row groups in the secondary index: a key range reads little


@dataclass(frozen=True)
class BlockSpec:
    """What the index tasks need: the directory, each block's (file, row group, first seq), the columns."""

    root: str
    files: tuple[str, ...]
    row_groups: tuple[int, ...]
    first_seqs: tuple[int, ...]
    columns: tuple[str, ...]          # read by the task
    stat_columns: tuple[tuple[str, str], ...] = ()   # (column, kind: int | float | text)


@dataclass(frozen=True)
class Built:
    """What `build_index` did."""

    events: int
    blocks: int
    files: int
    secondary: tuple[str, ...]
    strict_ts: bool


def stat_kind(t: pa.DataType) -> str | None:
    if pa.types.is_integer(t) and t != pa.uint64():
        return "int"
    if pa.types.is_floating(t):
        return "float"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "text"
    return None


VALUE_TYPE = {"int": pa.int64(), "float": pa.float64(), "text": pa.string()}
SUM_TYPE = {"int": pa.string(), "float": pa.float64()}   # exact integer sums as text (past int64)


def stats_schema(stat_columns) -> pa.Schema:
    fields = [pa.field(n, t) for n, t in (("block", pa.int64()), ("rows", pa.int64()), ("t_min", pa.int64()),
                                          ("t_max", pa.int64()), ("t_first", pa.int64()), ("t_last", pa.int64()),
                                          ("ts_nulls", pa.int64()), ("id_nulls", pa.int64()),
                                          ("unsorted_at", pa.int64()), ("strict", pa.bool_()))]
    for c, kind in stat_columns:
        fields += [pa.field(f"nulls:{c}", pa.int64()), pa.field(f"min:{c}", VALUE_TYPE[kind]),
                   pa.field(f"max:{c}", VALUE_TYPE[kind])]
        if kind in SUM_TYPE:
            fields.append(pa.field(f"sum:{c}", SUM_TYPE[kind]))
    return pa.schema(fields)


def key_schema(kind: str) -> pa.Schema:
    return pa.schema([pa.field("key", VALUE_TYPE[kind]), pa.field("seq", pa.int64()), pa.field("t", pa.int64())])


# --------------------------------------------------------------------------------------------- tasks
class Blocks:
    """Reads blocks of the directory (one open ParquetFile per file)."""

    def __init__(self, spec: BlockSpec):
        self.spec = spec
        self.open: dict[str, pq.ParquetFile] = {}

    def read(self, k: int, columns) -> pa.Table:
        name = self.spec.files[k]
        if name not in self.open:
            self.open[name] = pq.ParquetFile(os.path.join(self.spec.root, name))
        return self.open[name].read_row_group(self.spec.row_groups[k], columns=list(columns))


def exact_int_sum(values: np.ndarray) -> int:
    """The exact sum of int64 values (two 32-bit halves, each summed without overflow)."""
    v = values.astype(np.int64, copy=False)
    return int((v >> 32).sum()) * (1 << 32) + int((v & 0xFFFFFFFF).sum())


def _column_stats(col: pa.ChunkedArray, kind: str) -> dict:
    out = {"nulls": col.null_count}
    valid = col.drop_null()
    if kind == "float":
        valid = valid.filter(pc.invert(pc.is_nan(valid)))
    mm = pc.min_max(valid)
    out["min"], out["max"] = mm["min"].as_py(), mm["max"].as_py()
    if kind == "int":
        out["sum"] = str(exact_int_sum(valid.to_numpy()))
    elif kind == "float":
        out["sum"] = math.fsum(col.drop_null().to_numpy())
    return out


def block_stats(spec: BlockSpec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over block numbers: one statistics row per block."""
    schema = stats_schema(spec.stat_columns)
    reader = Blocks(spec)
    try:
        for rb in batches:
            rows = []
            for k in rb.column("block").to_pylist():
                table = reader.read(k, spec.columns)
                ts = table.column(TS)
                t = ts.drop_null().to_numpy().astype(np.int64)
                d = np.diff(t)
                bad = np.flatnonzero(d < 0)
                row = {"block": k, "rows": table.num_rows, "t_min": int(t.min()) if len(t) else None,
                       "t_max": int(t.max()) if len(t) else None, "t_first": int(t[0]) if len(t) else None,
                       "t_last": int(t[-1]) if len(t) else None, "ts_nulls": ts.null_count,
                       "id_nulls": table.column(ID).null_count,
                       "unsorted_at": int(bad[0]) + 1 if len(bad) else -1, "strict": bool(np.all(d > 0))}
                for c, kind in spec.stat_columns:
                    for name, v in _column_stats(table.column(c), kind).items():
                        row[f"{name}:{c}"] = v
                rows.append(row)
            yield pa.RecordBatch.from_pylist(rows, schema=schema)
    except CepkitError as exc:
        raise T.wrap_error(exc) from None


def key_entries(spec: BlockSpec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over block numbers: the (key, seq, t) entries of the one indexed column
    (spec.columns = (ts, attr)); nulls (and NaN) have no entry."""
    attr, kind = spec.stat_columns[0]
    schema = key_schema(kind)
    reader = Blocks(spec)
    for rb in batches:
        for k in rb.column("block").to_pylist():
            table = reader.read(k, (TS, attr))
            key = table.column(attr)
            keep = pc.is_valid(key)
            if kind == "float":
                keep = pc.and_(keep, pc.invert(pc.is_nan(key)))
            seq = np.arange(table.num_rows, dtype=np.int64) + spec.first_seqs[k]
            out = pa.table({"key": key.cast(VALUE_TYPE[kind]), "seq": seq, "t": table.column(TS).cast(pa.int64())},
                           schema=schema).filter(keep)
            yield from out.to_batches()


# --------------------------------------------------------------------------------------------- driver
def _layout(root: str, files: list[str]) -> tuple[pa.Schema, list[tuple[str, int, int]]]:
    """The common schema of the files and their non-empty row groups (file, row group, rows)."""
    schema, blocks = None, []
    for name in files:
        path = os.path.join(root, name)
        try:
            pf = pq.ParquetFile(path)
        except (OSError, pa.ArrowException) as exc:
            raise EventError(f"cannot read '{path}' as Parquet: {exc}") from None
        s = pf.schema_arrow.remove_metadata()
        if schema is None:
            schema = s
        elif not s.equals(schema):
            raise EventError(f"'{path}' has another schema than '{files[0]}' ({s} against {schema})")
        for g in range(pf.metadata.num_row_groups):
            n = pf.metadata.row_group(g).num_rows
            if n:
                blocks.append((name, g, n))
    if TS not in schema.names or not pa.types.is_integer(schema.field(TS).type):
        found = schema.field(TS).type if TS in schema.names else "no such column"
        raise EventError(f"spark index needs integer timestamps in column '{TS}' ({found})", column=TS)
    if ID not in schema.names or not (pa.types.is_integer(schema.field(ID).type)
                                      or pa.types.is_string(schema.field(ID).type)):
        found = schema.field(ID).type if ID in schema.names else "no such column"
        raise EventError(f"spark index needs integer or text event ids in column '{ID}' ({found})", column=ID)
    return schema, blocks


def _check_order(root: str, stats: pa.Table, files, groups) -> bool:
    """EventError for a missing timestamp or id, or events out of timestamp order; whether ts is strict."""
    s = stats.to_pydict()
    prev = None
    strict = True
    for k in range(stats.num_rows):
        where = f"'{os.path.join(root, files[k])}', row group {groups[k]}"
        if s["ts_nulls"][k]:
            raise EventError(f"{where}: missing timestamp ({s['ts_nulls'][k]} rows)", column=TS)
        if s["id_nulls"][k]:
            raise EventError(f"{where}: missing event id ({s['id_nulls'][k]} rows)", column=ID)
        if s["unsorted_at"][k] >= 0 or (prev is not None and s["t_first"][k] < prev):
            at = max(s["unsorted_at"][k], 0)
            raise EventError(f"{where}, row {at + 1}: events are not in timestamp order (replay needs the files, "
                             "row groups and rows in timestamp order)", column=TS)
        strict = strict and s["strict"][k] and (prev is None or s["t_first"][k] > prev)
        prev = s["t_last"][k]
    return strict


def build_index(spark, root: str, secondary: tuple[str, ...] = (), ts_unit: str | None = None) -> Built:
    """Build (or rebuild) the side table of the Parquet directory `root`."""
    files = F.data_files(root)
    prints = {f: F.fingerprint(os.path.join(root, f)) for f in files}
    schema, blocks = _layout(root, files)
    kinds = {f.name: stat_kind(f.type) for f in schema}
    for attr in secondary:
        if attr not in schema.names or attr == TS:
            raise EventError(f"cannot index '{attr}': not an attribute column of '{root}'", column=attr)
        if kinds[attr] is None:
            raise EventError(f"cannot index '{attr}': spark index indexes integer, floating and text columns, "
                             f"not {schema.field(attr).type}", column=attr)
    ts_unit = ts_unit or F.store_ts_unit(root)
    names, groups, counts = [b[0] for b in blocks], [b[1] for b in blocks], [b[2] for b in blocks]
    firsts = list(np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(int)) if blocks else []
    stat_columns = tuple((c, kinds[c]) for c in schema.names if kinds[c] is not None)
    spec = BlockSpec(root, tuple(names), tuple(groups), tuple(int(x) for x in firsts), tuple(schema.names),
                     stat_columns)
    target = os.path.join(root, INDEX_DIR)
    C.recover(target)
    block_df = _block_frame(spark, len(blocks))
    stats = _collect(block_df.mapInArrow(T.call(block_stats, spec), IO.spark_schema(stats_schema(stat_columns))),
                     stats_schema(stat_columns))
    stats = stats.sort_by("block")
    strict = _check_order(root, stats, names, groups)
    staging = C.stage(target)
    try:
        info = {}
        for attr in secondary:
            kspec = BlockSpec(root, spec.files, spec.row_groups, spec.first_seqs, (TS, attr),
                              ((attr, kinds[attr]),))
            entries = block_df.mapInArrow(T.call(key_entries, kspec), IO.spark_schema(key_schema(kinds[attr])))
            out = os.path.join(staging, f"secondary-{attr}")
            entries.sort("key", "seq").write.option("parquet.block.size", KEY_ROW_GROUP_BYTES).parquet(out)
            parts = sorted(f for f in os.listdir(out) if f.endswith(".parquet"))
            info[attr] = {"dir": f"secondary-{attr}", "kind": kinds[attr],
                          "parts": {p: F.fingerprint(os.path.join(out, p)) for p in parts}}
        if {f: F.fingerprint(os.path.join(root, f)) for f in files} != prints:
            raise EventError(f"the files of '{root}' changed while they were indexed; run `cepkit spark index` again")
        table = _blocks_table(names, groups, firsts, stats)
        meta = {"version": VERSION, "events": int(sum(counts)), "strict_ts": strict, "ts_unit": ts_unit,
                "files": prints, "secondary": info}
        pq.write_table(table.replace_schema_metadata({META_KEY: json.dumps(meta).encode()}),
                       os.path.join(staging, BLOCKS))
        open(os.path.join(staging, "_SUCCESS"), "w").close()
        C.swap(staging, target)
    except BaseException:
        C.discard(staging)
        raise
    return Built(int(sum(counts)), len(blocks), len(files), tuple(secondary), strict)


def _blocks_table(names, groups, firsts, stats: pa.Table) -> pa.Table:
    table = pa.table({"file": pa.array(names, pa.string()), "row_group": pa.array(groups, pa.int64()),
                      "first_seq": pa.array(firsts, pa.int64())})
    for f in stats.schema:
        if f.name not in ("block", "ts_nulls", "id_nulls", "unsorted_at", "strict"):
            table = table.append_column(f, stats.column(f.name))
    return table


def _block_frame(spark, n: int):
    """A DataFrame of block numbers 0..n-1, spread over the cores: made by the JVM (`range`), not from Python
    rows, whose tasks would each need a Python worker to unpickle them."""
    parts = max(1, min(n, 4 * spark.sparkContext.defaultParallelism))
    return spark.range(n, numPartitions=parts).withColumnRenamed("id", "block")


def _collect(df, schema: pa.Schema) -> pa.Table:
    """The rows of a small DataFrame as Arrow (a task's cepkit error re-raised as itself)."""
    try:
        return df.toArrow().cast(schema)
    except Exception as exc:
        found = T.unwrap_error(str(exc))
        if found is not None:
            raise found from None
        raise
