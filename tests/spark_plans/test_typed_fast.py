"""The batch jobs' typed output column-wise (issue 31 item 2, docs/spark.md "Output", semantics SP-T1): tasks
write VALUE structs, witnesses are Arrow aggregates, typing is Arrow's kernels; on any column split into any
tasks this equals the per-value typing it replaces (typed_output.parquet_values over the Python values of
each task after the witnesses), and the plain kinds never go value by value. Pure pyarrow, no Spark."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings, strategies as st

from cepkit.core.match_table import FRACTION, decode, encode
from cepkit.spark_jobs import task_witnesses as TW, typed_output as TO

EDGES = [2**53 - 1, 2**53, 2**53 + 1, -2**53 - 1, 2**63 - 1, -2**63, 2**63, -2**63 - 1, 10**38 - 1, 10**38, 10**40]
KINDS = {
    "int": st.one_of(st.integers(-1000, 1000), st.integers(-2**64, 2**64), st.sampled_from(EDGES)),
    "float": st.one_of(st.floats(), st.sampled_from([0.0, -0.0, 1.5, float("nan"), float("inf"), -float("inf")])),
    "fraction": st.one_of(
        st.builds(Fraction, st.integers(-10**4, 10**4), st.integers(1, 10**4)),
        st.builds(Fraction, st.sampled_from(EDGES), st.sampled_from([2, 3, 2**53 + 1, 2**63 - 1, 2**64])),
        st.builds(Fraction, st.integers(-3, 3), st.sampled_from([2**53 - 1, 2**53 + 1, 2**63 - 1, 2**64]))),
    "bool": st.booleans(),
    "str": st.text(max_size=4),
    "other": st.tuples(st.integers(0, 3), st.text(max_size=2)),
}


@st.composite
def split_columns(draw):
    """A column of one or a few kinds (nulls among them), cut into tasks."""
    kinds = draw(st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=3, unique=True))
    values = draw(st.lists(st.one_of(st.none(), *[KINDS[k] for k in kinds]), max_size=12))
    cuts = sorted(draw(st.lists(st.integers(0, len(values)), max_size=3)))
    bounds = [0, *cuts, len(values)]
    return values, [values[a:b] for a, b in zip(bounds, bounds[1:])]


def _struct(values: list) -> pa.StructArray:
    col, kind = encode(values)   # a task's match-table column
    return TO.value_struct(col, kind.encode() if kind else None)


def _typed(parts: list[list]) -> pa.ChunkedArray:
    """The batch job's steps: VALUE structs per task, witnesses per task merged as the driver's accumulator merges
    them (task_witnesses), typed per task."""
    structs = [_struct(p) for p in parts]
    found: dict = {}
    for s in structs:
        found = TW.WitnessParam().addInPlace(found, {"v": TO.value_witnesses(s)})
    found.setdefault("v", [])
    return pa.chunked_array([TO.typed_values(s, found["v"]) for s in structs], type=TO.column_type(found["v"]))


def _per_value(parts: list[list]) -> pa.ChunkedArray:
    """The same steps value by value, as the job typed before: exact JSON text per task, Python witnesses per
    task, each task typed as `parquet_values` types the witnesses followed by its values."""
    texts = [TO.exact_json(*_encoded(p)) for p in parts]
    found = TO.witnesses([w for t in texts for w in TO.witnesses(TO.read_exact(t))])
    typed = [TO.parquet_values(found + TO.read_exact(t)).slice(len(found)) for t in texts]
    return pa.chunked_array([c if c.type == TO.column_type(found) else c.cast(TO.column_type(found)) for c in typed],
                            type=TO.column_type(found))


def _same(a: list, b: list) -> bool:
    return repr(a) == repr(b)   # NaN equals NaN, -0.0 differs from 0.0, 1 from 1.0


@settings(deadline=None, max_examples=400)
@given(split_columns())
def test_column_wise_typing_is_the_per_value_typing(case):
    _, parts = case
    want, typed = _per_value(parts), _typed(parts)
    assert typed.type == want.type
    assert _same(typed.to_pylist(), want.to_pylist())


@settings(deadline=None, max_examples=200)
@given(split_columns())
def test_value_structs_keep_every_value(case):
    values, _ = case
    col, kind = encode(values)
    kind = kind.encode() if kind else None
    assert _same(TO.struct_values(TO.value_struct(col, kind)), decode(col, kind))
    assert _same(TO.struct_values(TO.struct_of(decode(col, kind))), decode(col, kind))


def test_rationals_not_in_lowest_terms_are_the_values_they_stand_for():
    """An engine's own struct<numerator, denominator> column (from_columns) need not be reduced."""
    col = pa.array([{"numerator": 4, "denominator": 2}, {"numerator": -3, "denominator": 6}, None,
                    {"numerator": 0, "denominator": 5}, {"numerator": 6, "denominator": 4}], FRACTION)
    values = TO.struct_values(TO.value_struct(col, b"fraction"))
    assert _same(values, [2, Fraction(-1, 2), None, 0, Fraction(3, 2)])
    assert _same(TO.value_witnesses(TO.value_struct(col, b"fraction")), TO.witnesses(values))


PLAIN = {  # the common answers, each task's column of one kind: no value goes through Python
    "int": [np.arange(-500, 0, dtype=np.int64), [None, 2**62, -7]],
    "float": [np.linspace(-3, 3, 500), [1.5, None, float("nan")]],
    "non-finite": [np.array([np.nan, np.inf, -np.inf, -0.0] * 100), [0.5, None]],
    "rational": [[Fraction(k, 7) for k in range(500)], [3, None, 2**53]],
    "int+float": [np.arange(500, dtype=np.int64), [0.25, None, float("inf")], [-2**53, None]],
    "int+rational": [[Fraction(1, 2**53), None], [-2**53, 4]],
    "bool": [[k % 2 == 0 for k in range(500)], [None, True]],
    "text": [[f"t{k}" for k in range(500)], [None, "y\n\"z"]],
    "nulls": [[None] * 500, [None]],
}


@pytest.mark.parametrize("parts", PLAIN.values(), ids=PLAIN.keys())
def test_plain_kinds_are_typed_without_a_python_value(parts, monkeypatch):
    want = TO.parquet_values([v for p in parts for v in decode(*_encoded(p))])

    def refused(*_):
        raise AssertionError("a value went through Python")

    for name in ("struct_of", "struct_values", "read_exact"):
        monkeypatch.setattr(TO, name, refused)
    structs = [TO.value_struct(*_encoded(p)) for p in parts]
    found = TO.witnesses([w for s in structs for w in TO.value_witnesses(s)])
    typed = pa.chunked_array([TO.typed_values(s, found) for s in structs], type=TO.column_type(found))
    assert typed.type == (pa.string() if pa.types.is_null(want.type) else want.type)
    assert _same(typed.to_pylist(), want.to_pylist())


def _encoded(values) -> tuple[pa.Array, bytes | None]:
    col, kind = encode(values)
    return col, kind.encode() if kind else None
