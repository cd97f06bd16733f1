"""A stored event stream: a directory of Parquet files whose row groups are the blocks.

Each row group's statistics (row count, min/max/null count per column, in particular the ts range)
are the lightweight index; per-block exact sums are kept in the file's key-value metadata. Secondary
indexes are Parquet files of (key, seq, t) sorted by key. `_cepkit_store.json` lists the files and a
SHA-256 of every secondary index, so a changed or damaged index is detected, never trusted.
"""
from __future__ import annotations

import bisect
import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from cepkit.core.blocks import Block
from cepkit.core.errors import CepkitError, EventError
from cepkit.core.events import exact

MANIFEST = "_cepkit_store.json"
SUMS_KEY = b"cepkit.block_sums"


class StoreError(CepkitError):
    """The directory is not a readable store."""


class ReplayWarning(UserWarning):
    """An index could not be used; the answer comes from a full replay instead."""


def _text(v: Any) -> str:
    return str(v)


def _number(s: str) -> Any:
    v = Fraction(s)
    return v.numerator if v.denominator == 1 else v


def write_store(batch, directory: str | os.PathLike, block_size: int = 64, blocks_per_file: int = 16,
                secondary: Sequence[str] = ()) -> "Store":
    """Write an EventBatch as a store (ts, id and every attribute) with secondary indexes on `secondary`."""
    if block_size < 1 or blocks_per_file < 1:
        raise StoreError("block size and blocks per file must be positive")
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    data = {"ts": np.asarray(batch.ts, dtype=np.int64), "id": batch.ids}
    for name, values in batch.columns.items():
        if name not in data:
            data[name] = values
    frame = pd.DataFrame(data)
    n = len(frame)
    numeric = [c for c in frame.columns if c not in ("ts", "id") and frame[c].dtype.kind in "biuf"]
    files, blocks = [], []
    per_file = block_size * blocks_per_file
    for f, start in enumerate(range(0, max(n, 1), per_file)):
        part = frame.iloc[start:start + per_file]
        if n == 0 and f > 0:
            break
        name = f"part-{f:05d}.parquet"
        sums = []
        for b in range(0, len(part), block_size):
            chunk = part.iloc[b:b + block_size]
            sums.append({c: _text(sum(v for v in (exact(x) for x in chunk[c]) if v is not None)) for c in numeric})
        table = pa.Table.from_pandas(part, preserve_index=False)
        meta = dict(table.schema.metadata or {})
        meta[SUMS_KEY] = json.dumps(sums).encode()
        pq.write_table(table.replace_schema_metadata(meta), root / name, row_group_size=block_size)
        files.append(name)
    manifest = {"version": 1, "events": n, "files": files, "block_size": block_size,
                "strict_ts": bool(n < 2 or np.all(np.diff(data["ts"]) > 0)), "ts_unit": batch.ts_unit,
                "indexes": {}}
    (root / MANIFEST).write_text(json.dumps(manifest, indent=1))
    store = Store(root)
    for attr in secondary:
        store.build_index(attr)
    return store


class Store:
    def __len__(self) -> int:
        """The events it holds."""
        return self.events

    def __init__(self, directory: str | os.PathLike):
        self.root = Path(directory)
        try:
            self.manifest = json.loads((self.root / MANIFEST).read_text())
            files = self.manifest["files"]
            self.events = int(self.manifest["events"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"'{self.root}' is not a cepkit store ({MANIFEST} unreadable: {exc})") from None
        self.strict_ts = bool(self.manifest.get("strict_ts", False))
        self.ts_unit = self.manifest.get("ts_unit")
        self.blocks: list[Block] = []
        self.stats_ok = True
        self._sums: list[dict[str, str]] | None = []
        seq = 0
        for name in files:
            try:
                meta = pq.ParquetFile(self.root / name).metadata
            except (OSError, pa.ArrowException) as exc:
                raise StoreError(f"cannot read block file {name}: {exc}") from None
            ts_col = meta.schema.names.index("ts")
            nonempty = 0
            for g in range(meta.num_row_groups):
                rg = meta.row_group(g)
                if rg.num_rows == 0:
                    continue
                nonempty += 1
                st = rg.column(ts_col).statistics
                if st is None or not st.has_min_max:
                    self.stats_ok = False
                    t_min = t_max = None
                else:
                    t_min, t_max = int(st.min), int(st.max)
                self.blocks.append(Block(name, g, seq, rg.num_rows, t_min, t_max))
                seq += rg.num_rows
            try:
                raw = (meta.metadata or {}).get(SUMS_KEY)
                sums = json.loads(raw) if raw is not None else None
                if self._sums is not None and sums is not None and len(sums) == nonempty:
                    self._sums.extend(sums)
                else:
                    self._sums = None
            except ValueError:
                self._sums = None
        if seq != self.events:
            raise StoreError(f"store {self.root}: blocks hold {seq} events, the manifest says {self.events}")
        self._cache: dict[int, list[dict]] = {}
        self.blocks_read: set[int] = set()
        self._index_cache: dict[str, "SecondaryIndex"] = {}

    # -------------------------------------------------------------------------------- reading
    @property
    def columns(self) -> list[str]:
        files = self.manifest["files"]
        if not files:
            return ["ts", "id"]
        return list(pq.ParquetFile(self.root / files[0]).schema_arrow.names)

    def kinds(self) -> dict[str, str | None]:
        """The kind of each column (cepkit.front.kinds: number, text, boolean; None when the schema does not say)."""
        files = self.manifest["files"]
        if not files:
            return {"ts": "number", "id": None}
        out: dict[str, str | None] = {}
        for field in pq.ParquetFile(self.root / files[0]).schema_arrow:
            t = field.type
            out[field.name] = ("number" if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)
                               else "text" if pa.types.is_string(t) or pa.types.is_large_string(t)
                               else "boolean" if pa.types.is_boolean(t) else None)
        return out

    def read_block(self, b: int) -> list[dict]:
        if b not in self._cache:
            blk = self.blocks[b]
            table = pq.ParquetFile(self.root / blk.file).read_row_group(blk.row_group)
            rows = [{k: exact(v) for k, v in rec.items()} for rec in table.to_pylist()]
            self._cache[b] = rows
        self.blocks_read.add(b)
        return self._cache[b]

    def read_all(self) -> list[dict]:
        return [r for b in range(len(self.blocks)) for r in self.read_block(b)]

    def block_of(self, seq: int) -> int:
        starts = [b.first_seq for b in self.blocks]
        return bisect.bisect_right(starts, seq) - 1

    def rows(self, lo_seq: int, hi_seq: int) -> list[dict]:
        """Events lo_seq..hi_seq (clipped to the stream), reading only the blocks that hold them."""
        lo_seq, hi_seq = max(0, lo_seq), min(self.events - 1, hi_seq)
        if lo_seq > hi_seq:
            return []
        out = []
        for b in range(self.block_of(lo_seq), self.block_of(hi_seq) + 1):
            blk = self.blocks[b]
            rows = self.read_block(b)
            a = max(lo_seq - blk.first_seq, 0)
            z = min(hi_seq - blk.first_seq, blk.rows - 1)
            out.extend(rows[a:z + 1])
        return out

    def seq_range(self, t_lo: int, t_hi: int) -> tuple[int, int] | None:
        """First and last seq of the events with t_lo <= ts <= t_hi, using the lightweight index to skip
        blocks (None if there are none)."""
        first = last = None
        for b, blk in enumerate(self.blocks):
            if blk.t_min is None or blk.t_max < t_lo or blk.t_min > t_hi:
                continue
            for i, row in enumerate(self.read_block(b)):
                if t_lo <= row["ts"] <= t_hi:
                    s = blk.first_seq + i
                    first = s if first is None else first
                    last = s
        return None if first is None else (first, last)

    def block_sums(self, b: int) -> dict[str, Any] | None:
        if self._sums is None:
            return None
        return {k: _number(v) for k, v in self._sums[b].items()}

    def block_null_count(self, b: int, attr: str) -> int | None:
        blk = self.blocks[b]
        meta = pq.ParquetFile(self.root / blk.file).metadata
        col = meta.schema.names.index(attr)
        st = meta.row_group(blk.row_group).column(col).statistics
        return None if st is None else st.null_count

    def block_min_max(self, b: int, attr: str) -> tuple[Any, Any] | None:
        blk = self.blocks[b]
        meta = pq.ParquetFile(self.root / blk.file).metadata
        col = meta.schema.names.index(attr)
        st = meta.row_group(blk.row_group).column(col).statistics
        if st is None or not st.has_min_max:
            return None
        return exact(st.min), exact(st.max)

    # -------------------------------------------------------------------------------- secondary indexes
    def build_index(self, attr: str) -> None:
        if attr not in self.columns or attr in ("ts",):
            raise EventError(f"cannot index '{attr}': not an attribute column of the store", column=attr)
        keys, seqs, ts = [], [], []
        for seq, row in enumerate(self.read_all()):
            v = row.get(attr)
            if v is None:
                continue
            keys.append(v)
            seqs.append(seq)
            ts.append(row["ts"])
        kinds = {isinstance(k, str) for k in keys}
        if len(kinds) > 1 or any(isinstance(k, bool) for k in keys):
            raise EventError(f"cannot index '{attr}': it mixes text and numbers", column=attr)
        order = sorted(range(len(keys)), key=lambda i: (keys[i], seqs[i]))
        text_keys = bool(kinds == {True})
        frame = pd.DataFrame({"key": [keys[i] if text_keys else str(keys[i]) for i in order],
                              "seq": [seqs[i] for i in order], "t": [ts[i] for i in order]})
        name = f"index-{attr}.parquet"
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), self.root / name)
        digest = hashlib.sha256((self.root / name).read_bytes()).hexdigest()
        self.manifest["indexes"][attr] = {"file": name, "entries": len(keys), "sha256": digest,
                                          "text": text_keys}
        (self.root / MANIFEST).write_text(json.dumps(self.manifest, indent=1))
        self._index_cache.pop(attr, None)

    def indexed(self) -> list[str]:
        return sorted(self.manifest.get("indexes", {}))

    def index(self, attr: str) -> "SecondaryIndex | None":
        """The secondary index on attr, or None (with a ReplayWarning) when it is missing or damaged."""
        if attr in self._index_cache:
            return self._index_cache[attr]
        info = self.manifest.get("indexes", {}).get(attr)
        if info is None:
            return None
        path = self.root / info["file"]
        try:
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() != info["sha256"]:
                raise ValueError("its checksum does not match the manifest")
            frame = pq.read_table(path).to_pandas()
            if list(frame.columns) != ["key", "seq", "t"] or len(frame) != info["entries"]:
                raise ValueError("its layout does not match the manifest")
        except (OSError, ValueError, pa.ArrowException) as exc:
            warnings.warn(ReplayWarning(f"secondary index on '{attr}' is unusable ({exc}); "
                                        "falling back to full replay"), stacklevel=2)
            return None
        keys = list(frame["key"]) if info.get("text") else [_number(k) for k in frame["key"]]
        idx = SecondaryIndex(attr, keys, [int(s) for s in frame["seq"]], [int(t) for t in frame["t"]],
                             bool(info.get("text")))
        self._index_cache[attr] = idx
        return idx


@dataclass
class SecondaryIndex:
    attr: str
    keys: list
    seqs: list[int]
    ts: list[int]
    text: bool

    def range(self, lo: Any, lo_incl: bool, hi: Any, hi_incl: bool) -> list[tuple[int, int]]:
        """(seq, t) of the entries with key in the range (None = unbounded), sorted by seq."""
        if lo is not None and isinstance(lo, str) != self.text or hi is not None and isinstance(hi, str) != self.text:
            return []
        a = 0 if lo is None else (bisect.bisect_left(self.keys, lo) if lo_incl else bisect.bisect_right(self.keys, lo))
        z = len(self.keys) if hi is None else (bisect.bisect_right(self.keys, hi) if hi_incl
                                               else bisect.bisect_left(self.keys, hi))
        return sorted(zip(self.seqs[a:z], self.ts[a:z]))

    def count(self, lo: Any, lo_incl: bool, hi: Any, hi_incl: bool) -> int:
        return len(self.range(lo, lo_incl, hi, hi_incl))
