"""Index-based windowed aggregation over a store (spec/004 §3.3): each slice's partial aggregate comes
from the lightweight index (row count, null count, min/max statistics and the stored block sums) for
the blocks a slice covers entirely, and from reading events only for blocks cut by a slice edge. The
cost model of §3.3.2 decides between index and replay; both give the same rows.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

from cepkit.core.errors import EventError
from cepkit.reference.replay import cost as C
from cepkit.reference.replay.store import ReplayWarning, Store
from cepkit.reference.windows.aggregate import AggRow, aggregate, aggregate_windows
from cepkit.reference.windows.partial import EMPTY, Partial, of_values
from cepkit.front.windows.spec import Window, WindowSpec, windows_from_bounds


@dataclass(frozen=True)
class AggPlan:
    method: str            # 'index' | 'replay'
    reason: str
    c_index: float | None = None
    c_replay: float | None = None


def choose(store: Store, spec: WindowSpec) -> AggPlan:
    """§3.3.2 for the store's layout: r events per tick, B events per block, D blocks per file."""
    if not store.blocks:
        return AggPlan("replay", "empty store")
    span = store.blocks[-1].t_max - store.blocks[0].t_min + 1
    r = store.events / max(span, 1) if spec.kind == "time" else 1.0
    B = max(store.manifest.get("block_size", 1), 1)
    files = max(len(store.manifest["files"]), 1)
    D = max(2, math.ceil(len(store.blocks) / files))
    h = max(2, math.ceil(math.log(max(len(store.blocks), 1), D)) + 1 if len(store.blocks) > 1 else 2)
    ci, cr = C.c_index(spec.slide, r, B, D, h), C.c_replay(spec.slide, r)
    method = "index" if ci < cr else "replay"
    return AggPlan(method, f"C_index {ci:.4g} {'<' if ci < cr else '>='} C_replay {cr:.4g}", ci, cr)


def _block_partial(store: Store, b: int, attr: str) -> Partial | None:
    sums = store.block_sums(b)
    nulls = store.block_null_count(b, attr)
    if sums is None or attr not in sums or nulls is None:
        return None
    rows = store.blocks[b].rows
    if rows - nulls == 0:
        return Partial(rows, 0, 0, None, None)
    mm = store.block_min_max(b, attr)
    if mm is None:
        return None
    return Partial(rows, rows - nulls, sums[attr], mm[0], mm[1])


def aggregate_store(store: Store, attr: str, spec: WindowSpec, funcs: Sequence[str] = ("sum",),
                    method: str = "auto", skip_empty: bool = False) -> tuple[list[AggRow], AggPlan]:
    if attr not in store.columns:
        raise EventError(f"missing attribute column '{attr}'", column=attr)
    decision = choose(store, spec) if method == "auto" else AggPlan(method, "requested")
    if decision.method == "index":
        ok = store.stats_ok and all(_block_partial(store, b, attr) is not None for b in range(len(store.blocks)))
        if not ok:
            warnings.warn(ReplayWarning("the lightweight index (block statistics or sums) is missing or damaged; "
                                        "falling back to full replay"), stacklevel=2)
            decision = AggPlan("replay", "lightweight index unusable")
    if decision.method == "replay":
        rows = store.read_all()
        return aggregate([r["ts"] for r in rows], [r.get(attr) for r in rows], spec, funcs, "tree",
                         skip_empty), decision
    return _by_index(store, attr, spec, funcs, skip_empty), decision


def _by_index(store: Store, attr: str, spec: WindowSpec, funcs, skip_empty) -> list[AggRow]:
    blocks = store.blocks
    if not blocks:
        return []
    full = {b: _block_partial(store, b, attr) for b in range(len(blocks))}

    def by_seq(a: int, z: int) -> Partial:          # events a..z-1
        p = EMPTY
        for b, blk in enumerate(blocks):
            lo, hi = blk.first_seq, blk.first_seq + blk.rows
            if hi <= a or lo >= z:
                continue
            if a <= lo and hi <= z:
                p = p + full[b]
            else:
                rows = store.read_block(b)[max(a - lo, 0):min(z - lo, blk.rows)]
                p = p + of_values(r.get(attr) for r in rows)
        return p

    def by_time(a: int, z: int) -> Partial:         # timestamps [a, z)
        p = EMPTY
        for b, blk in enumerate(blocks):
            if blk.t_max < a or blk.t_min >= z:
                continue
            if a <= blk.t_min and blk.t_max < z:
                p = p + full[b]
            else:
                p = p + of_values(r.get(attr) for r in store.read_block(b) if a <= r["ts"] < z)
        return p

    if spec.kind == "time":
        wins = windows_from_bounds(spec, store.events, blocks[0].t_min, blocks[-1].t_max)
        return aggregate_windows(wins, spec, funcs, skip_empty, by_time)
    wins = windows_from_bounds(spec, store.events, None, None)
    wins = [Window(w.k, w.start, w.stop, _ts_at(store, w.stop - 1)) for w in wins]
    return aggregate_windows(wins, spec, funcs, skip_empty, by_seq)


def _ts_at(store: Store, seq: int) -> Any:
    b = store.block_of(seq)
    blk = store.blocks[b]
    if seq == blk.first_seq + blk.rows - 1:
        return blk.t_max
    return store.read_block(b)[seq - blk.first_seq]["ts"]
