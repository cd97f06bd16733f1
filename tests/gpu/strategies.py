"""Hypothesis strategies shared by the gpu differential tests: small event batches and window specs."""
from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

from cepkit.core.readers import from_pandas
from cepkit.front.windows.spec import WindowSpec

VALUES = st.one_of(st.none(), st.integers(-9, 9), st.sampled_from([2 ** 40, -(2 ** 40)]))
DECIMALS = st.one_of(st.none(), st.sampled_from([0.1, 0.25, -1.5, 3.0, 2.75, -0.3]))
TEXTS = st.one_of(st.none(), st.sampled_from(["a", "b", "10", "x"]))


@st.composite
def batches(draw, max_size: int = 25):
    n = draw(st.integers(0, max_size))
    gaps = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    ts, t = [], draw(st.integers(-5, 5))
    for g in gaps:
        t += g
        ts.append(t)
    df = pd.DataFrame({"ts": ts, "v": pd.Series(draw(st.lists(VALUES, min_size=n, max_size=n)), dtype=object),
                       "f": pd.Series(draw(st.lists(DECIMALS, min_size=n, max_size=n)), dtype=float),
                       "s": pd.Series(draw(st.lists(TEXTS, min_size=n, max_size=n)), dtype=object)})
    return from_pandas(df, type_col=None, default_type="e")


@st.composite
def specs(draw):
    size = draw(st.integers(1, 6))
    return WindowSpec(draw(st.sampled_from(["count", "time"])), size, draw(st.integers(1, size)),
                      draw(st.sampled_from(["first", "zero"])))
