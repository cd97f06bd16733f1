"""What runs inside a replay task: for each unit (a time range and the blocks that hold it with its context),
read those row groups with pyarrow, run the query's program over them, and keep the matches the unit owns.

A unit (a, b, extend) owns the matches whose first row has a <= ts <= b and whose last row has
ts <= b + extend. A replay interval is a unit with extend 0: the matches lying wholly inside [a, b]
(cepkit.reference.replay.plan.execute keeps the same ones); a slice of a full scan has extend = the window, so
every match starting in the slice is its own. Rows read before and after the range are context (PREV,
NEXT); a match starting or ending in them belongs to another unit."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from cepkit.core import registry
from cepkit.core.errors import CepkitError
from cepkit.core.match_table import MatchTable
from cepkit.core.readers import from_arrow
from cepkit.spark_jobs import index_build as B
from cepkit.spark_jobs import tasks as T
from cepkit.spark_jobs.typed_output import BATCH_VALUES

UNIT_COLUMNS = ("unit", "a", "b", "extend", "blocks")


@dataclass(frozen=True)
class ReplaySpec:
    """Everything a replay task needs (the block layout of cepkit.spark_jobs.index_build, the query)."""

    query: str
    engine: str
    blocks: B.BlockSpec
    ts_unit: str | None
    variables: tuple[str, ...]
    returns: tuple[str, ...]     # the payload items (the query's output columns)
    id_is_int: bool
    values: str = BATCH_VALUES   # payload values as VALUE structs, typed after matching (typed_output)


_PROGRAMS: dict[tuple[str, str], object] = {}


def program(spec: ReplaySpec):
    """The query compiled once per Python worker."""
    key = (spec.query, spec.engine)
    if key not in _PROGRAMS:
        _PROGRAMS[key] = registry.get_engine("sql", spec.engine).compile(spec.query)
    return _PROGRAMS[key]


def owned(table: MatchTable, ids: np.ndarray, ts: np.ndarray, a: int, b: int, extend: int) -> np.ndarray:
    """Which matches of `table` (found over rows with these ids and timestamps) the unit owns."""
    n = len(table)
    arrow = table.to_arrow()
    first = np.full(n, len(ids), np.int64)
    last = np.full(n, -1, np.int64)
    where = pd.Index(ids)
    for v in table.layout.variables:
        col = arrow.column(v).combine_chunks()
        lengths = pc.fill_null(pc.list_value_length(col), 0).to_numpy().astype(np.int64)
        if not lengths.sum():
            continue
        pos = where.get_indexer(pc.list_flatten(col).to_numpy(zero_copy_only=False))
        row = np.repeat(np.arange(n), lengths)
        np.minimum.at(first, row, pos)
        np.maximum.at(last, row, pos)
    bound = last >= 0
    t_first = np.where(bound, ts[np.minimum(first, len(ts) - 1)], 0)
    t_last = np.where(bound, ts[np.maximum(last, 0)], 0)
    return bound & (t_first >= a) & (t_first <= b) & (t_last <= b + extend)


class UnitReader:
    """Reads a unit's row groups, keeping the previous unit's (neighbouring units share blocks)."""

    def __init__(self, spec: ReplaySpec):
        self.blocks = B.Blocks(spec.blocks)
        self.cache: dict[int, pa.Table] = {}

    def read(self, blocks: list[int]) -> pa.Table:
        tables = {k: self.cache[k] if k in self.cache else self.blocks.read(k, self.blocks.spec.columns)
                  for k in blocks}
        self.cache = tables
        return pa.concat_tables([tables[k] for k in blocks])


def run_unit(spec: ReplaySpec, table: pa.Table, a: int, b: int, extend: int) -> pa.RecordBatch | None:
    """The owned matches of one unit over its rows (None when no row lies in its range)."""
    ts = table.column(B.TS).to_numpy().astype(np.int64)
    if not len(ts) or np.searchsorted(ts, a, "left") >= np.searchsorted(ts, b, "right"):
        return None
    batch = from_arrow(table, type_col=None, default_type="row", ts_col=B.TS, ts_unit=spec.ts_unit)
    found = program(spec).run(batch)
    if not len(found):
        return None
    keep = owned(found, np.asarray(batch.ids), ts, a, b, extend)
    if not keep.any():
        return None
    kept = MatchTable(found.layout, arrow=found.to_arrow().filter(pa.array(keep)))
    return T.matches_to_arrow(spec, kept)


def replay_units(spec: ReplaySpec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over units (UNIT_COLUMNS), in stream order."""
    try:
        reader = UnitReader(spec)
        for rb in batches:
            d = rb.to_pydict()
            for a, b, extend, blocks in zip(d["a"], d["b"], d["extend"], d["blocks"]):
                out = run_unit(spec, reader.read(blocks), a, b, extend)
                if out is not None:
                    yield out
    except CepkitError as exc:
        raise T.wrap_error(exc) from None
