"""Filter σ_φ (Def 2.10) on an OpenCL device: one work-item per 32 events evaluates the generated
condition into a bitmap word, then order-preserving compaction (cepkit.gpu.compact). Input moves to the device
in batches of `batch_size` events; the kept positions of every batch are appended in order."""
from __future__ import annotations

from typing import Any

import numpy as np

from cepkit.gpu import clexpr
from cepkit.gpu.bind import bind
from cepkit.gpu.buffers import scratch, upload
from cepkit.gpu.columns import raw_column
from cepkit.gpu.compact import WORD, compact, words
from cepkit.gpu.device import runtime
from cepkit.gpu.launch import kernel, overflow_error, overflowed
from cepkit.reference.sql.run import numeric_columns
from cepkit.front.language.ast import SQL_CONVENTIONS   # the conditions are SQL expressions
from cepkit.reference.windows.api import filter_condition, output_rows

BATCH = 1 << 22


def flags_source(pred: str, params: list[str]) -> str:
    args = ", ".join(params + ["const long n", "__global uint *bits", "__global uint *counts",
                               "__global int *cepkit_err"])
    return clexpr.PRELUDE + f"""
__kernel void cepkit_flags({args}) {{
    size_t c = get_global_id(0);
    long first = (long)c * {WORD};
    uint w = 0;
    for (int k = 0; k < {WORD}; k++) {{
        long i = first + k;
        if (i < n && {pred}) w |= (1u << k);
    }}
    bits[c] = w;
    counts[c] = popcount(w);
}}
"""


def filter_indices(batch, where: str, device: str | None = None, batch_size: int = BATCH,
                   events: list | None = None) -> np.ndarray:
    """Positions (int64, ascending) of the events of `batch` satisfying `where`, as the reference."""
    cond = filter_condition(batch, where)
    rt = runtime(device)
    bound = bind(cond, lambda var, col: raw_column(batch, col), lambda var: "i")
    flags = kernel(rt, flags_source(clexpr.predicate(cond, bound.resolve, conventions=SQL_CONVENTIONS), bound.params()), "cepkit_flags")

    def run(a: int, b: int):
        m = words(b - a)
        bits, counts, err = scratch(rt, np.uint32, m), scratch(rt, np.uint32, m), scratch(rt, np.int32, 1)
        bufs = [upload(rt, x) for x in bound.arrays(lambda var: slice(a, b))]
        ev = flags(rt.queue, (m,), None, *bufs, np.int64(b - a), bits, counts, err)
        if events is not None:
            events.append(ev)
        return bits, counts, overflowed(rt, err)

    out = []
    for a in range(0, len(batch), batch_size):
        b = min(a + batch_size, len(batch))
        bits, counts, bad = run(a, b)
        if bad:
            while b - a > 1:      # the first event whose condition overflows, by bisection
                mid = (a + b) // 2
                a, b = (a, mid) if run(a, mid)[2] else (mid, b)
            computed = sorted(numeric_columns([cond]))
            raise overflow_error("the condition", row=int(batch.source_rows[a]),
                                 column=", ".join(computed) or None)
        out.append(compact(rt, bits, counts, b - a, a, events))
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def filter_rows(batch, where: str, device: str | None = None, batch_size: int = BATCH) -> list[dict[str, Any]]:
    """Like cepkit.reference.windows.api.filter_batch: the kept events as rows with ts, id and attributes."""
    return output_rows(batch, filter_indices(batch, where, device, batch_size))
