"""The side table of `cepkit spark index` opened for planning: the store interface that cepkit.reference.replay's
planner reads (events, blocks with their timestamp ranges, strict_ts, ts_unit, the secondary indexes),
after checking that it still describes the data (cepkit.spark_jobs.index_files.check_fresh)."""
from __future__ import annotations

import json
import math
import os
from fractions import Fraction
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from cepkit.core.blocks import Block
from cepkit.core.errors import EventError
from cepkit.spark_jobs import index_build as B
from cepkit.spark_jobs import index_files as F

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def _int_bounds(lo: Any, lo_incl: bool, hi: Any, hi_incl: bool) -> tuple[int, int]:
    """The inclusive integer range equal to a range of exact numbers (None: unbounded)."""
    a, z = INT64_MIN, INT64_MAX
    if lo is not None:
        f = Fraction(lo)
        a = max(a, math.ceil(f) if lo_incl else math.floor(f) + 1)
    if hi is not None:
        f = Fraction(hi)
        z = min(z, math.floor(f) if hi_incl else math.ceil(f) - 1)
    return a, z


def _float(v: Any, toward: float) -> float:
    try:
        return float(np.nextafter(float(v), toward))   # one step outward: a superset of the exact range
    except OverflowError:
        return toward


class KeyIndex:
    """A secondary index (key, seq, t) sorted by key in Parquet; a range query reads the row groups whose key
    statistics meet the range."""

    def __init__(self, attr: str, path: str, kind: str):
        self.attr, self.path, self.kind = attr, path, kind
        self.text = kind == "text"

    def range(self, lo: Any, lo_incl: bool, hi: Any, hi_incl: bool) -> list[tuple[int, int]]:
        """(seq, t) of the entries with key in the range (None = unbounded), sorted by seq. Float keys: a
        superset by one ulp at each bound (replay intervals from a superset give the same matches)."""
        if any(v is not None and (isinstance(v, str) != self.text or isinstance(v, bool)) for v in (lo, hi)):
            return []
        key = ds.field("key")
        cond = key.is_valid()
        if self.kind == "int":
            a, z = _int_bounds(lo, lo_incl, hi, hi_incl)
            if a > z:
                return []
            cond = cond & (key >= a) & (key <= z)
        elif self.kind == "float":
            if lo is not None:
                cond = cond & (key >= _float(lo, -math.inf))
            if hi is not None:
                cond = cond & (key <= _float(hi, math.inf))
        else:
            if lo is not None:
                cond = cond & ((key >= lo) if lo_incl else (key > lo))
            if hi is not None:
                cond = cond & ((key <= hi) if hi_incl else (key < hi))
        data = ds.dataset(self.path, format="parquet")
        if "seq" not in data.schema.names:   # no part file: no entry (a column of nulls)
            return []
        table = data.to_table(columns=["seq", "t"], filter=cond)
        seq, t = table.column("seq").to_numpy(), table.column("t").to_numpy()
        order = np.argsort(seq, kind="stable")
        return list(zip(seq[order].tolist(), t[order].tolist()))

    def count(self, lo: Any, lo_incl: bool, hi: Any, hi_incl: bool) -> int:
        return len(self.range(lo, lo_incl, hi, hi_incl))


class IndexedEvents:
    """The events of a Parquet directory as cepkit.reference.replay.plan.plan reads a store: StaleIndex when the side
    table is missing or no longer matches the data files or its own secondary indexes."""

    stats_ok = True   # the side table holds every block's timestamp range

    def __init__(self, root: str):
        self.root = root
        files = F.data_files(root)
        path = os.path.join(root, B.INDEX_DIR, B.BLOCKS)
        if not os.path.isfile(path):
            raise F.StaleIndex(f"'{root}' has no index: build it with `cepkit spark index {root}`")
        try:
            table = pq.read_table(path)
            meta = json.loads((table.schema.metadata or {})[B.META_KEY])
            if meta.get("version") != B.VERSION:
                raise ValueError(f"version {meta.get('version')}, this cepkit reads version {B.VERSION}")
        except (OSError, pa.ArrowException, ValueError, KeyError) as exc:
            raise F.StaleIndex(f"the index of '{root}' is unreadable ({exc}); rebuild it with "
                               f"`cepkit spark index {root}`") from None
        added = sorted(set(files) - set(meta["files"]))
        if added:
            raise F.StaleIndex(f"the index of '{root}' is stale: data file '{added[0]}' was added after it was "
                               f"built; rebuild it with `cepkit spark index {root}`")
        F.check_fresh(root, meta["files"], "data file")
        self.secondary = meta.get("secondary", {})
        for attr, info in self.secondary.items():
            F.check_fresh(os.path.join(root, B.INDEX_DIR, info["dir"]), info["parts"],
                          f"secondary index part of '{attr}'")
        self.events = int(meta["events"])
        self.strict_ts = bool(meta["strict_ts"])
        self.ts_unit = meta.get("ts_unit")
        self.files = list(meta["files"])
        d = table.select(["file", "row_group", "first_seq", "rows", "t_min", "t_max"]).to_pydict()
        self.blocks = [Block(*row) for row in zip(d["file"], d["row_group"], d["first_seq"], d["rows"],
                                                  d["t_min"], d["t_max"])]
        self.table = table
        if sum(b.rows for b in self.blocks) != self.events:
            raise F.StaleIndex(f"the index of '{root}' is damaged (its blocks do not add up to its events); "
                               f"rebuild it with `cepkit spark index {root}`")

    @property
    def schema(self) -> pa.Schema:
        return pq.read_schema(os.path.join(self.root, self.files[0]))

    @property
    def columns(self) -> list[str]:
        return list(self.schema.names)

    def indexed(self) -> list[str]:
        return sorted(self.secondary)

    def index(self, attr: str) -> KeyIndex | None:
        info = self.secondary.get(attr)
        if info is None:
            return None
        return KeyIndex(attr, os.path.join(self.root, B.INDEX_DIR, info["dir"]), info["kind"])

    def require(self, columns) -> None:
        """EventError naming a column the query reads that the events lack."""
        have = self.columns
        lower = {c.lower() for c in have}
        for c in sorted(columns):
            if c not in have and c.lower() not in lower:
                raise EventError(f"'{self.root}' has no column '{c}' (read by the query); its columns are: "
                                 f"{', '.join(have)}", column=c)
