"""The replay job on Spark: the units of a replay (one per replay interval, or the slices of a full scan),
the row groups each reads, the tasks that run them (cepkit.spark_jobs.replay_tasks), the atomic write of the
matches. The replay intervals come from cepkit.reference.replay's planner over cepkit.spark_jobs.index_table
(cepkit.spark_replay_cli joins the two)."""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import pyarrow as pa

from cepkit.core import registry
from cepkit.core.errors import QueryError, Unsupported
from cepkit.front.sql import ast as S
from cepkit.front.sql.constructs import constructs, variables
from cepkit.front.sql.parse import parse
from cepkit.front.sql.table import output_columns, referenced_columns
from cepkit.spark_jobs import commit as C
from cepkit.spark_jobs import index_build as B
from cepkit.spark_jobs import replay_tasks as R
from cepkit.spark_jobs import source as SRC
from cepkit.spark_jobs import tasks as T
from cepkit.spark_jobs import task_witnesses as TW
from cepkit.spark_jobs.index_table import IndexedEvents
from cepkit.spark_jobs.spark_io import write_matches

JOB = "spark replay"
BLOCKS_PER_TASK = 16


@dataclass(frozen=True)
class Unit:
    """A time range [a, b] (owning the matches that start in it and end by b + extend) and the blocks holding
    it with its PREV / NEXT context."""

    a: int
    b: int
    extend: int
    blocks: tuple[int, ...]


@dataclass(frozen=True)
class ReplaySummary:
    """What a replay did."""

    events: int
    matches: int
    mode: str                 # 'index' | 'full scan'
    units: int
    blocks_read: int          # distinct row groups the tasks read
    blocks_total: int
    seconds: float            # the Spark stage: read, match, write


def nav_reach(q: S.MatchRecognize) -> tuple[int, int]:
    """How many rows before and after a match PREV / NEXT can read (the context a unit needs)."""
    reach = {"prev": 0, "next": 0}
    for expr in [*(m.expr for m in q.measures), *(d.cond for d in q.define)]:
        for n in expr.walk():
            if isinstance(n, S.Nav) and n.kind in reach:
                reach[n.kind] = max(reach[n.kind], n.offset)
    return reach["prev"], reach["next"]


class BlockRanges:
    """The blocks of the events as arrays, for finding the blocks of a time range with its context."""

    def __init__(self, events: IndexedEvents, back: int, fwd: int):
        blocks = events.blocks
        self.t_min = np.array([b.t_min for b in blocks], np.int64)
        self.t_max = np.array([b.t_max for b in blocks], np.int64)
        self.starts = np.array([b.first_seq for b in blocks], np.int64)
        self.ends = self.starts + np.array([b.rows for b in blocks], np.int64)
        self.events, self.back, self.fwd = events.events, back, fwd

    def covering(self, a: int, c: int) -> tuple[int, ...]:
        """The blocks whose timestamps meet [a, c], widened by `back` rows before and `fwd` rows after."""
        k0 = int(np.searchsorted(self.t_max, a, "left"))
        k1 = int(np.searchsorted(self.t_min, c, "right")) - 1
        if k0 > k1:
            return ()
        lo = max(int(self.starts[k0]) - self.back, 0)
        hi = min(int(self.ends[k1]) - 1 + self.fwd, self.events - 1)
        j0 = int(np.searchsorted(self.starts, lo, "right")) - 1
        j1 = int(np.searchsorted(self.starts, hi, "right")) - 1
        return tuple(range(j0, j1 + 1))


def interval_units(ranges: BlockRanges, intervals: Sequence[tuple[int, int]]) -> list[Unit]:
    units = [Unit(a, b, 0, ranges.covering(a, b)) for a, b in intervals]
    return [u for u in units if u.blocks]


def scan_units(ranges: BlockRanges, window: int, count: int) -> list[Unit]:
    """A full scan: `count` slices of consecutive blocks, each owning the matches that start in it."""
    n = len(ranges.t_min)
    if not n:
        return []
    cuts = np.unique(np.linspace(0, n, min(count, n) + 1).astype(np.int64))
    units = []
    for i, j in pairwise(cuts):
        a = int(ranges.t_min[i])
        b = int(ranges.t_min[j]) - 1 if j < n else int(ranges.t_max[-1])
        if a <= b:
            units.append(Unit(a, b, window, ranges.covering(a, b + window)))
    return units


def prepare(text: str, events: IndexedEvents, engine: str) -> tuple[S.MatchRecognize, tuple[str, ...]]:
    """The query and its output columns, after every refusal the job makes (before any Spark work)."""
    q = parse(text)
    registry.get_engine("sql", engine).compile(text)   # the engine's own refusals, by construct
    for name, pos in constructs(q).items():
        if name.startswith("MATCH_NUMBER"):
            raise Unsupported(JOB, f"{name} (a match's number depends on every interval before it)",
                              pos.line, pos.column)
    events.require(referenced_columns(q))
    returns = tuple(output_columns(q, events.columns) or ())
    taken = set(variables(q.pattern)) | {"ts"}
    for r in returns:
        if r in taken:
            raise QueryError(f"output column '{r}' has the name of a pattern variable or of the match's ts "
                             "column in the Spark output; rename it", q.pos.line, q.pos.column)
    return q, returns


def run_replay(spark, text: str, events: IndexedEvents, out_dir: str, intervals: Sequence[tuple[int, int]] | None,
               window: int, engine: str = "reference") -> ReplaySummary:
    """Replay `text` over the indexed events: over `intervals` (index-based replay), or a full scan when None.
    The matches go to `out_dir` (replaced atomically)."""
    q, returns = prepare(text, events, engine)
    if SRC.is_local(out_dir):
        C.recover(SRC.local_path(out_dir))
    else:
        C.recover(out_dir, C.HadoopFS(spark))
    ranges = BlockRanges(events, *nav_reach(q))
    parallelism = spark.sparkContext.defaultParallelism
    if intervals is None:
        units, mode = scan_units(ranges, window, 4 * parallelism), "full scan"
    else:
        units, mode = interval_units(ranges, intervals), "index"
    blocks = events.blocks
    layout = B.BlockSpec(events.root, tuple(b.file for b in blocks), tuple(b.row_group for b in blocks),
                         tuple(b.first_seq for b in blocks), tuple(events.columns))
    id_is_int = pa.types.is_integer(events.schema.field(B.ID).type)
    spec = R.ReplaySpec(text, engine, layout, events.ts_unit, variables(q.pattern), returns, id_is_int)
    schema = T.output_schema(spec.variables, returns, id_is_int, spec.values)
    from pyspark.sql import types as ST
    from pyspark.sql.pandas.types import from_arrow_schema

    unit_type = ST.StructType([ST.StructField("unit", ST.LongType()), ST.StructField("a", ST.LongType()),
                               ST.StructField("b", ST.LongType()), ST.StructField("extend", ST.LongType()),
                               ST.StructField("blocks", ST.ArrayType(ST.LongType()))])
    rows = [(k, u.a, u.b, u.extend, list(u.blocks)) for k, u in enumerate(units)]
    read = len({k for u in units for k in u.blocks})
    # consecutive units per task (they share row groups), at least BLOCKS_PER_TASK row groups a task
    parts = max(1, min(len(rows), 4 * parallelism, -(-read // BLOCKS_PER_TASK)))
    t0 = time.perf_counter()
    frame = spark.createDataFrame(spark.sparkContext.parallelize(rows, parts), unit_type)
    gathered = TW.accumulator(spark)   # the value columns' witnesses, from the tasks (task_witnesses)
    out = frame.mapInArrow(TW.gathering(T.call(R.replay_units, spec), returns, gathered), from_arrow_schema(schema))
    # typed as `cepkit run --format parquet` types them
    matches = write_matches(out, out_dir, values=returns, gathered=gathered)
    return ReplaySummary(events.events, matches, mode, len(units), read, len(blocks), time.perf_counter() - t0)

