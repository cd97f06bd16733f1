"""cepkit.gpu.clexpr against the reference: generated truth values, run in an OpenCL kernel, equal the reference's
SQL evaluation (cepkit.reference.sql.exprs) on random expressions over random rows."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyopencl as cl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cepkit.gpu import clexpr
from cepkit.gpu.bind import bind
from cepkit.gpu.buffers import download, scratch, upload
from cepkit.gpu.device import GpuBuildError, runtime
from cepkit.core.errors import EventError, Unsupported
from cepkit.core.readers import from_pandas
from cepkit.reference.sql.exprs import Ctx, _truthy, evaluate, holds
from cepkit.front.sql.parse import parse_expression
from cepkit.reference.sql.run import batch_rows

# random conditions compare a column with itself now and then; the compiler's note on it is expected
pytestmark = pytest.mark.filterwarnings("ignore:.*compiler output")

INTS = st.one_of(st.none(), st.integers(-6, 6), st.sampled_from([2 ** 40, -(2 ** 40), 2 ** 62]))
FLOATS = st.one_of(st.none(), st.sampled_from([0.1, 0.5, -2.0, 3.0, 2.5, 1e15, -0.0, 0.30000000000000004]))
TEXTS = st.one_of(st.none(), st.sampled_from(["", "a", "b", "ab", "10", "2.5", " 3 ", "x", "0.1", "-4"]))
NUM_LIT = st.sampled_from(["0", "1", "-3", "2.5", "0.1", "0.30000000000000001", "99999999999999999999",
                           "100000000000000000000", "NULL", "TRUE"])
TEXT_LIT = st.sampled_from(["'a'", "'b'", "'10'", "'2.5'", "''", "'zz'", "' 3 '", "'-4'"])


def _arith():
    leaf = st.one_of(st.sampled_from(["a", "b", "ts", "f"]), st.sampled_from(["0", "2", "-1", "7", "0.5", "2.25"]))
    return st.recursive(leaf, lambda x: st.tuples(x, st.sampled_from(["+", "-", "*", "%", "/"]), x).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})") | x.map(lambda s: f"(- ({s}))"), max_leaves=4)


def _operand():
    return st.one_of(_arith(), st.sampled_from(["f", "s", "t"]), NUM_LIT, TEXT_LIT)


def _condition():
    cmp = st.tuples(_operand(), st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), _operand()).map(
        lambda t: f"{t[0]} {t[1]} {t[2]}")
    isnull = st.tuples(_operand(), st.booleans()).map(lambda t: f"{t[0]} IS {'NOT ' if t[1] else ''}NULL")
    atom = st.one_of(cmp, isnull, st.sampled_from(["a", "f", "s", "TRUE", "NULL", "0", "'x'"]))
    return st.recursive(atom, lambda x: st.one_of(
        st.tuples(x, st.sampled_from(["AND", "OR"]), x).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        x.map(lambda s: f"NOT ({s})")), max_leaves=4)


def _batch(rows):
    df = pd.DataFrame({"ts": range(len(rows)), "a": [r[0] for r in rows], "b": [r[1] for r in rows],
                       "f": pd.Series([r[2] for r in rows], dtype=float),
                       "s": pd.Series([r[3] for r in rows], dtype=object),
                       "t": pd.Series([r[4] for r in rows], dtype=object)})
    return from_pandas(df, type_col=None, default_type="e")


def _raw(batch):
    return lambda var, col: np.asarray(batch.ts) if col == "ts" else batch.columns[col]


def device_cells(batch, exprs, cells) -> tuple[np.ndarray, int]:
    """The int values `cells(expression, resolve)` (a list of OpenCL C expressions per expression) take on
    every row, computed by one generated kernel: shape (expressions, cells, rows), and the overflow flag."""
    rt = runtime()
    bound = [bind(e, _raw(batch), lambda v: "i") for e in exprs]
    params, arrays, body = [], [], []
    width = 0
    for k, (e, b) in enumerate(zip(exprs, bound)):
        b.names = {key: f"e{k}_{name}" for key, name in b.names.items()}
        params += b.params()
        arrays += b.arrays()
        code = cells(e, b.resolve)
        width = len(code)
        body += [f"out[{width * k + c} * n + i] = {text};" for c, text in enumerate(code)]
    params += ["long n", "__global int *out", "__global int *cepkit_err"]
    src = clexpr.PRELUDE + (f"__kernel void cells({', '.join(params)})"
                            " {\n  size_t i = get_global_id(0);\n  " + "\n  ".join(body) + "\n}\n")
    prog = rt.build(src)
    n = len(batch)
    out, err = scratch(rt, np.int32, width * n * len(exprs)), scratch(rt, np.int32, 1)
    if n:
        cl.Kernel(prog, "cells")(rt.queue, (n,), None, *[upload(rt, a) for a in arrays], np.int64(n), out, err)
    got = download(rt, out, np.int32, width * n * len(exprs)).reshape(len(exprs), width, n)
    return got, int(download(rt, err, np.int32, 1)[0])


def device_truths(batch, exprs) -> tuple[np.ndarray, np.ndarray, int]:
    """(truth value of every expression on every row, then its predicate() value, overflow flag) computed
    by one generated kernel."""
    got, err = device_cells(batch, exprs, lambda e, resolve: [clexpr.truth(e, resolve), clexpr.predicate(e, resolve)])
    return got[:, 0], got[:, 1], err


def reference_truths(batch, expr) -> list[int]:
    _, rows = batch_rows(batch, ts_col="ts", id_col="id")
    out = []
    for i in range(len(rows)):
        v = _truthy(evaluate(expr, Ctx(rows, (i,), ("_",), 0, {})))
        out.append(2 if v is None else int(v))
    return out


def reference_holds(batch, expr) -> list[int]:
    _, rows = batch_rows(batch, ts_col="ts", id_col="id")
    return [int(holds(expr, Ctx(rows, (i,), ("_",), 0, {}))) for i in range(len(rows))]


@settings(max_examples=int(os.environ.get("CEPKIT_GPU_EXAMPLES", 60)),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rows=st.lists(st.tuples(INTS, INTS, FLOATS, TEXTS, TEXTS), max_size=10),
       conds=st.lists(_condition(), min_size=1, max_size=6))
def test_generated_truth_equals_reference(rows, conds):
    batch = _batch(rows)
    exprs = [parse_expression(c) for c in conds]
    want, kept = [], []
    for e in exprs:
        try:
            want.append(reference_truths(batch, e))
            kept.append(e)
        except EventError:      # arithmetic on a non-number: the reference refuses the row too
            continue
    if not kept:
        return
    try:
        got, pred, err = device_truths(batch, kept)
    except Unsupported as exc:   # only the documented refusals
        assert any(w in exc.construct for w in ("text", "float64", "boolean", "int64", "non-integers")), \
            exc.construct
        return
    if err:
        return                   # int64 overflow: the hosts turn this flag into an EventError
    for e, g, p, w in zip(kept, got, pred, want):
        assert list(g) == w, e
        assert list(p) == reference_holds(batch, e), e


SMALL = st.one_of(st.none(), st.integers(-6, 6))
SMALL_FLOATS = st.one_of(st.none(), st.sampled_from([0.1, 0.5, -2.0, 2.25, -0.0, 0.3, 1.125]))


@settings(max_examples=int(os.environ.get("CEPKIT_GPU_EXAMPLES", 40)),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rows=st.lists(st.tuples(SMALL, SMALL, SMALL_FLOATS, st.none(), st.none()), max_size=8),
       conds=st.lists(st.tuples(_arith(), st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), _arith()).map(
           lambda t: f"{t[0]} {t[1]} {t[2]}"), min_size=1, max_size=6))
def test_exact_arithmetic_equals_reference(rows, conds):
    """int64, decimal and quotient arithmetic (+ - * / %, unary minus) compared exactly."""
    test_generated_truth_equals_reference.hypothesis.inner_test(rows=rows, conds=conds)


@pytest.mark.parametrize("text,construct", [
    ("f % 2 > 1", "'%' on non-integers"),
    ("a * 99999999999999999999 > 1", "integer constants beyond int64"),
    ("g + 1 > 2", "float64 values without a common int64 decimal scale"),
    ("s + 1 > 2", "text in"),
])
def test_refused_at_compile_time(text, construct):
    batch = from_pandas(pd.DataFrame({"ts": [0, 1], "a": [1, 2], "b": [2, 3], "f": [0.5, 1.5], "g": [1e20, 0.1],
                                      "s": ["x", "y"]}),
                        type_col=None, default_type="e")
    with pytest.raises(Unsupported, match=construct):
        clexpr.predicate(parse_expression(text), bind(parse_expression(text), _raw(batch), lambda v: "i").resolve)


def test_overflow_sets_the_error_flag():
    batch = _batch([(2 ** 62, 4, 0.5, "x", "y"), (1, 2, 0.5, "x", "y"), (None, 2 ** 62, 0.5, "x", "y")])
    got, _, err = device_truths(batch, [parse_expression("a * b > 0")])
    assert err == 1
    got, _, err = device_truths(batch.slice(1, 3), [parse_expression("a * b > 0")])
    assert err == 0 and list(got[0]) == [1, 2]   # a null operand never overflows


def test_text_columns_share_a_dictionary():
    batch = _batch([(1, 2, 0.5, "b", "a"), (1, 2, 0.5, "a", "b"), (1, 2, 0.5, "10", "9")])
    got, _, _ = device_truths(batch, [parse_expression("s < t"), parse_expression("s = t")])
    assert [list(g) for g in got] == [reference_truths(batch, parse_expression("s < t")),
                                      reference_truths(batch, parse_expression("s = t"))]


def test_broken_source_shows_source_and_log():
    with pytest.raises(GpuBuildError) as info:
        runtime().build(clexpr.PRELUDE + "__kernel void k(__global int *o) { o[0] = undefined_name; }")
    assert "undefined_name" in str(info.value) and "--- compiler log ---" in str(info.value)
