"""cepkit.gpu.clexpr reads the query's null logic: under a two-valued query (SASE, TPStream) the generated truth
values, run in an OpenCL kernel, equal cepkit.front.evaluate's two-valued logic on random expressions over
random rows; under the default (SQL, three-valued) they are what tests/gpu/test_clexpr.py pins."""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cepkit.gpu import clexpr
from cepkit.gpu.bind import bind
from cepkit.core.errors import EventError, Unsupported
from cepkit.front.evaluate import truth
from cepkit.front.language import ast as A
from cepkit.reference.sql.exprs import Ctx, evaluate
from cepkit.front.sql.parse import parse_expression
from cepkit.reference.sql.run import batch_rows
from tests.gpu.test_clexpr import FLOATS, INTS, TEXTS, _batch, _condition, device_cells

pytestmark = pytest.mark.filterwarnings("ignore:.*compiler output")
TWO = A.Conventions("two_valued", "strict")


def device_predicates(batch, exprs, conventions) -> tuple[np.ndarray, int]:
    got, err = device_cells(batch, exprs, lambda e, resolve: [clexpr.predicate(e, resolve, "gpu", conventions)])
    return got[:, 0], err


def reference_two_valued(batch, expr) -> list[int]:
    _, rows = batch_rows(batch, ts_col="ts", id_col="id")
    return [int(truth(evaluate(expr, Ctx(rows, (i,), ("_",), 0, {}, null_logic="two_valued"))))
            for i in range(len(rows))]


@settings(max_examples=int(os.environ.get("CEPKIT_GPU_EXAMPLES", 40)),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rows=st.lists(st.tuples(INTS, INTS, FLOATS, TEXTS, TEXTS), max_size=10),
       conds=st.lists(_condition(), min_size=1, max_size=6))
def test_two_valued_generation_equals_reference(rows, conds):
    batch = _batch(rows)
    want, kept = [], []
    for e in (parse_expression(c) for c in conds):
        try:
            want.append(reference_two_valued(batch, e))
            kept.append(e)
        except EventError:
            continue
    if not kept:
        return
    try:
        got, err = device_predicates(batch, kept, TWO)
    except Unsupported as exc:
        assert any(w in exc.construct for w in ("text", "float64", "boolean", "int64", "non-integers",
                                                "conditions")), exc.construct
        return
    if err:
        return
    for e, g, w in zip(kept, got, want):
        assert list(g) == w, e


def test_the_null_logic_changes_the_generated_code():
    e = parse_expression("NOT (a > 1)")
    resolve = bind(e, lambda var, col: np.zeros(1, np.int64), lambda v: "i").resolve
    three = clexpr.truth(e, resolve)                          # SQL's default
    assert three == clexpr.truth(e, resolve, conventions=A.SQL_CONVENTIONS)
    assert "cepkit_not" in three
    assert "cepkit_not" not in clexpr.truth(e, resolve, conventions=TWO)
