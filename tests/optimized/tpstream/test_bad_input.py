"""Bad input: what the reference TPStream engine rejects, the optimized one rejects with the same error
(class, row, column); 64-bit overflow is an EventError naming the event, never a silent wrap."""
from __future__ import annotations

import pandas as pd
import pytest

import cepkit
from cepkit.core.errors import CepkitError, EventError
from cepkit.core.inputs import to_untyped_batch

Q = "FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 10"
QP = "FROM s PARTITION BY car DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 10"


def _batch(rows: list[dict]):
    return to_untyped_batch(pd.DataFrame(rows))


def _error(engine: str, query: str, batches, mode: str = "exact") -> EventError:
    program = cepkit.compile(query, language="tpstream", engine=engine, mode=mode)
    with pytest.raises(EventError) as info:
        for b in batches:
            program.feed(b)
        program.close()
    return info.value


def _same(query: str, batches, mode: str = "exact") -> EventError:
    ref = _error("reference", query, batches(), mode)
    opt = _error("optimized", query, batches(), mode)
    assert (type(opt), opt.row, opt.column) == (type(ref), ref.row, ref.column), (str(ref), str(opt))
    return opt


@pytest.mark.parametrize("mode", ["exact", "early"])
def test_text_in_a_numeric_condition_column(mode):
    rows = [{"ts": t, "x": v, "y": 1} for t, v in enumerate([1, 2, "abc", 0], 1)]
    err = _same(Q, lambda: [_batch(rows)], mode)
    assert (err.row, err.column) == (3, "x")


@pytest.mark.parametrize("mode", ["exact", "early"])
def test_missing_column(mode):
    err = _same(Q, lambda: [_batch([{"ts": 1, "x": 1}, {"ts": 2, "x": 0}])], mode)
    assert err.column == "y"


@pytest.mark.parametrize("mode", ["exact", "early"])
def test_time_going_back_across_feeds(mode):
    first = [{"ts": t, "x": 1, "y": 0} for t in (1, 2, 3)]
    second = [{"ts": t, "x": 0, "y": 1} for t in (2, 4)]
    err = _same(Q, lambda: [_batch(first), _batch(second)], mode)
    assert err.column == "ts"


@pytest.mark.parametrize("mode", ["exact", "early"])
def test_repeated_timestamp_in_a_partition_across_feeds(mode):
    first = [{"ts": 1, "car": 1, "x": 1, "y": 0}, {"ts": 2, "car": 2, "x": 1, "y": 0}]
    second = [{"ts": 2, "car": 2, "x": 0, "y": 1}, {"ts": 3, "car": 1, "x": 0, "y": 1}]
    err = _same(QP, lambda: [_batch(first), _batch(second)], mode)
    assert err.column == "ts"


@pytest.mark.parametrize("condition, values, row", [
    ("x * x > 0", [1, 2, 4_000_000_000, 1], 3),
    ("x + 1 > 0", [1, 2**63 - 1, 1, 0], 2),
    ("-x < 0", [1, -(2**63), 1, 0], 2),
    ("x / 3 * 4000000000000000000 > 0", [0, 1, 5, 0], 3),
])
def test_overflow_is_an_event_error_naming_the_event(condition, values, row):
    query = f"FROM s DEFINE A AS {condition}, B AS y > 0 PATTERN A meets B WITHIN 10"
    rows = [{"ts": t, "x": v, "y": 0} for t, v in enumerate(values, 1)]
    program = cepkit.compile(query, language="tpstream", engine="optimized")
    with pytest.raises(EventError) as info:
        program.run(_batch(rows))
    assert info.value.row == row and "64-bit" in str(info.value)


def test_overflow_only_where_the_reference_evaluates():
    """AND stops at the first false item: the product of an event it never reaches does not count."""
    query = "FROM s DEFINE A AS x < 10 AND x * x > 0, B AS y > 0 PATTERN A meets B WITHIN 10"
    rows = [{"ts": 1, "x": 0, "y": 0}, {"ts": 2, "x": 1, "y": 0}, {"ts": 3, "x": 4_000_000_000, "y": 1},
            {"ts": 4, "x": 0, "y": 0}]
    opt = cepkit.compile(query, language="tpstream", engine="optimized").run(_batch(rows))
    ref = cepkit.compile(query, language="tpstream", engine="reference").run(_batch(rows))
    assert len(ref) == 1 and opt.canonical() == ref.canonical()


def test_an_unknown_mode_is_refused_as_by_the_reference():
    errors = []
    for engine in ("reference", "optimized"):
        with pytest.raises(CepkitError) as info:
            cepkit.compile(Q, language="tpstream", engine=engine, mode="late").run(_batch([{"ts": 1, "x": 1, "y": 0}]))
        errors.append(info.value)
    assert type(errors[1]) is type(errors[0]) and "late" in str(errors[1])


def test_a_repeated_timestamp_is_found_before_conditions_are_evaluated():
    """The reference checks timestamps before deriving: an overflow later in the batch does not hide it."""
    query = "FROM s DEFINE A AS x * x > 0, B AS y > 0 PATTERN A meets B WITHIN 10"
    rows = [{"ts": 1, "x": 1, "y": 0}, {"ts": 2, "x": 1, "y": 0}, {"ts": 2, "x": 1, "y": 1},
            {"ts": 3, "x": 4_000_000_000, "y": 0}]
    err = _same(query, lambda: [_batch(rows)])
    assert (err.row, err.column) == (3, "ts")
