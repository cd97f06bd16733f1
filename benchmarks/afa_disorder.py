"""Disordered AFA input for benchmarks: price ticks like examples/afa/make_streams.py (the paper's running
examples Q1-Q3), scaled up with NumPy, then disordered (spec/003 §8's setup).

    frame = stream("q1", n, late=0.10, max_lateness=50, retract=0.01, punctuate_every=1000)

- Ticks: LE = 10 * i (i = 0, 1, ...), RE = LE + 10 * window (the example AFA's window in ticks); `change`
  from the noise set, with the query's patterns embedded (30 % of the slots); `price` the running sum.
- Disorder: a fraction `late` of the events arrives late, by a uniform delay of 1..max_lateness ticks
  (arrival key LE + 10 * delay, stable sort).
- Retractions: a fraction `retract` of junk events (LE = 10 * i + 5, a copy of a nearby tick) is inserted
  and retracted 1..max_lateness ticks later.
- Punctuations: every `punctuate_every` rows a punctuation at the smallest LE still to arrive (the latest
  valid one; none when 0).
The columns are kind, le, re, price, change (the kind as a pandas categorical).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

WINDOWS = {"q1": 7, "q2": 12, "q3": 10}
NOISE = {"q1": [-10, 10, -30, 30], "q2": [-10, 10, -20, 20], "q3": [-10, 10]}
PATTERNS = {
    "q1": [[-100, -10, -10, 10, 10, -10, 10], [-100, -10, 10, -10, 10]],
    "q2": [[-50, -10, 30, -10, 50], [-40, -10, 10, -10, 60]],
    "q3": [[10, 10, -10, 10, -10, -10, 10, -10]],
}
KINDS = ["insert", "retract", "punctuate"]


def changes(query: str, n: int, rnd: np.random.Generator) -> np.ndarray:
    """n price changes: noise with the query's patterns embedded in 30 % of the slots."""
    pats = [np.array(p, np.int64) for p in PATTERNS[query]]
    noise = np.array(NOISE[query], np.int64)
    slots = n  # more slots than needed; cut to n
    kind = np.where(rnd.random(slots) < 0.3, rnd.integers(0, len(pats), slots) + 1, 0)
    lengths = np.where(kind == 0, 1, np.array([1] + [len(p) for p in pats])[kind])
    ends = np.cumsum(lengths)
    k = int(np.searchsorted(ends, n)) + 1
    kind, lengths = kind[:k], lengths[:k]
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    out = np.empty(int(lengths.sum()), np.int64)
    noisy = kind == 0
    out[starts[noisy]] = noise[rnd.integers(0, len(noise), int(noisy.sum()))]
    for j, p in enumerate(pats, start=1):
        at = starts[kind == j]
        for off, c in enumerate(p):
            out[at + off] = c
    return out[:n]


def stream(query: str, n: int, late: float = 0.0, max_lateness: int = 50, retract: float = 0.0,
           punctuate_every: int = 1000, seed: int = 2010) -> pd.DataFrame:
    """The input rows (arrival order) of n ticks for the example AFA `query` (q1, q2, q3)."""
    rnd = np.random.default_rng(seed)
    window = WINDOWS[query]
    ch = changes(query, n, rnd)
    price = 10000 + np.cumsum(ch)
    le = np.arange(n, dtype=np.int64) * 10
    delay = np.where(rnd.random(n) < late, rnd.integers(1, max_lateness + 1, n), 0) * 10
    arrival = le + delay
    kind = np.zeros(n, np.int8)
    m = int(n * retract)
    if m:
        at = np.sort(rnd.choice(n, m, replace=False))
        j_le = le[at] + 5
        src = np.clip(at + rnd.integers(-3, 4, m), 0, n - 1)
        lag = rnd.integers(1, max_lateness + 1, m) * 10
        le = np.concatenate([le, j_le, j_le])
        ch = np.concatenate([ch, ch[src], ch[src]])
        price = np.concatenate([price, price[src], price[src]])
        arrival = np.concatenate([arrival, j_le, j_le + lag])
        kind = np.concatenate([kind, np.zeros(m, np.int8), np.ones(m, np.int8)])
    order = np.argsort(arrival, kind="stable")
    le, ch, price, kind = le[order], ch[order], price[order], kind[order]
    re = le + 10 * window
    if punctuate_every:
        future_min = np.minimum.accumulate(le[::-1])[::-1]     # the smallest LE from here on
        at = np.arange(punctuate_every, len(le), punctuate_every)
        t = future_min[at]
        pos = at + np.arange(len(at))                         # where the punctuations land in the output
        total = len(le) + len(at)
        is_p = np.zeros(total, np.bool_)
        is_p[pos] = True
        out_le = np.empty(total, np.int64)
        out_le[is_p] = t
        out_le[~is_p] = le
        def spread(values, fill):
            full = np.full(total, fill, np.int64)
            full[~is_p] = values
            return full
        out_kind = spread(kind, 2)
        re, ch, price, le = spread(re, 0), spread(ch, 0), spread(price, 0), out_le
        kind = out_kind
    frame = pd.DataFrame({"kind": pd.Categorical.from_codes(kind, KINDS), "le": le, "re": re, "price": price,
                          "change": ch})
    return frame


def summary(frame: pd.DataFrame) -> dict:
    kinds = frame["kind"].value_counts()
    ins = frame[frame["kind"] == "insert"]["le"].to_numpy()
    late = int((ins < np.maximum.accumulate(ins)).sum())
    return {"rows": len(frame), "insertions": int(kinds.get("insert", 0)), "retractions": int(kinds.get("retract", 0)),
            "punctuations": int(kinds.get("punctuate", 0)), "late insertions": late}


if __name__ == "__main__":
    f = stream("q1", 20, late=0.2, retract=0.1, punctuate_every=5, max_lateness=3)
    print(f.to_string())
    print(summary(f))
