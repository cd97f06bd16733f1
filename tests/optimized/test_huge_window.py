"""Windows of 2^63 ticks or more (docs/semantics.md "Query limits and odd text (issue 14)"): effectively
unbounded, they run on every engine with the reference engine's answer (the optimized engine raised
OverflowError, the gpu window operators too, the reference aggregate tree ran out of memory)."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from cepkit.cli import main
from cepkit.optimized.nfab.program import INT64_MAX, window_ticks
from cepkit.front.binding import WindowBound

EX = Path(__file__).resolve().parents[2] / "examples"


def _run(capsys, *argv) -> list[str]:
    assert main([*argv, "--format", "csv"]) == 0, capsys.readouterr().err
    return sorted(capsys.readouterr().out.splitlines())


@pytest.mark.parametrize("size", [1, 2, 3, Fraction(1, 2), Fraction(5, 2), Fraction(10**20 + 1, 10**7), 2**40])
@pytest.mark.parametrize("strict", [True, False])
def test_the_whole_number_bound_keeps_exactly_the_spans_the_window_keeps(size, strict):
    bound = window_ticks(WindowBound(size, "ts", strict))
    for span in {0, 1, 2, 3, 2**40 - 1, 2**40, 2**40 + 1, int(size), int(size) + 1, max(int(size) - 1, 0)}:
        assert (span <= bound) == WindowBound(size, "ts", strict).inside(0, 0, span, 0)


@pytest.mark.parametrize("size,strict,unbounded", [
    (INT64_MAX, True, False), (INT64_MAX, False, True), (INT64_MAX + 1, True, True),
    (10**30, False, True), (Fraction(2 * INT64_MAX + 1, 2), True, True), (INT64_MAX - 1, False, False)])
def test_a_window_no_int64_span_can_leave_is_no_window(size, strict, unbounded):
    assert (window_ticks(WindowBound(size, "ts", strict)) is None) == unbounded


def _stocks(tmp_path, n=80) -> str:
    p = tmp_path / "stocks.csv"
    p.write_text("".join(open(EX / "stocks.csv").readlines()[: n + 1]))
    return str(p)


SASE = [
    ("PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match(a, b) {{ [symbol] AND b.price > a.price }}\n"
     "WITHIN {w}"),
    ("PATTERN SEQ(Stock a, Stock+ b[], Stock c)\nWHERE skip_till_next_match(a, b, c) {{ [symbol] AND "
     "b[i].price > a.price AND c.price < a.price }}\nWITHIN {w}"),
    ("PATTERN SEQ(Stock a, !(Stock n), Stock b)\nWHERE skip_till_any_match(a, b) {{ a.price + 8 < b.price "
     "AND n.volume > 900 }}\nWITHIN {w}"),
]
WINDOWS = [("1000000 days", "ns"), ("99999999999999999999999", None), ("9223372036854775807", None),
           ("9223372036854775808", None), ("99999999999999999999999 events", None),
           ("300000000000000 days", "s")]


@pytest.mark.parametrize("within,unit", WINDOWS, ids=[w for w, _ in WINDOWS])
@pytest.mark.parametrize("query", range(len(SASE)))
def test_sase_optimized_equals_reference(query, within, unit, tmp_path, capsys):
    q = tmp_path / "q.sase"
    q.write_text(SASE[query].format(w=within))
    events = _stocks(tmp_path)
    common = [str(q), events] + (["--ts-unit", unit] if unit else [])
    want = _run(capsys, "run", *common)
    assert len(want) > 1
    assert _run(capsys, "run", *common, "--engine", "optimized") == want
    assert _run(capsys, "run", *common, "--engine", "optimized", "--chunk-size", "7") == want
    q.write_text(SASE[query].format(w="1000000"))   # wider than the stream: the same matches
    assert _run(capsys, "run", str(q), events) == want


SQL = ("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts MEASURES A.price AS p, B.price AS q "
       "ALL MATCHES SKIP_TILL_ANY_MATCH PATTERN (A B) WITHIN {w} DEFINE B AS B.price > A.price + 1)")


@pytest.mark.parametrize("within", ["INTERVAL '1000000' DAY", "99999999999999999999999"])
def test_sql_engines_equal_the_reference(within, tmp_path, capsys):
    q = tmp_path / "q.sql"
    q.write_text(SQL.format(w=within))
    common = [str(q), _stocks(tmp_path, 60), "--ts-unit", "ns"]
    want = _run(capsys, "run", *common)
    assert len(want) > 100
    for engine in ("replay", "gpu"):
        assert _run(capsys, "run", *common, "--engine", engine) == want


def test_tpstream_gpu_equals_the_reference(tmp_path, capsys):
    text = (EX / "tpstream" / "aggressive_drivers.tps").read_text()
    q = tmp_path / "q.tps"
    q.write_text(text.replace("WITHIN 5 minutes", "WITHIN 300000000000000 days"))
    common = [str(q), str(EX / "tpstream" / "car_sensors.csv"), "--ts-unit", "s"]
    want = _run(capsys, "run", *common)
    assert len(want) == 4
    assert _run(capsys, "run", *common, "--engine", "gpu") == want


@pytest.mark.parametrize("query", [
    "AGGREGATE sum(price), avg(price), max(price) OVER TIME 9223372036854775807 SLIDE 1 ALIGN ZERO",
    "AGGREGATE sum(price) OVER TIME 99999999999999999999999 SLIDE 99999999999999999999999 ALIGN ZERO",
    "AGGREGATE count(price) OVER COUNT 99999999999999999999999 SLIDE 5"])
def test_window_aggregates_equal_the_reference(query, tmp_path, capsys):
    q = tmp_path / "q.win"
    q.write_text(query)
    common = [str(q), _stocks(tmp_path, 40)]
    want = _run(capsys, "run", *common)
    assert _run(capsys, "run", *common, "--engine", "gpu") == want


@pytest.mark.parametrize("options", [
    ["--size", "99999999999999999999999", "--active", "warmup"], ["--size", "9223372036854775807"],
    ["--size", "9223372036854775807", "--align", "zero"], ["--size", "99999999999999999999999", "--kind", "count"],
    ["--size", "99999999999999999999999", "--kind", "count", "--active", "warmup"]])
def test_window_joins_equal_the_reference(options, tmp_path, capsys):
    events = _stocks(tmp_path, 20)
    common = ["window", "join", events, events, "--on", "L.price = R.price", *options]
    want = _run(capsys, *common)
    assert _run(capsys, *common, "--engine", "gpu") == want


def test_an_afa_with_a_huge_window_runs(tmp_path, capsys):
    text = (EX / "afa" / "q1.afa.yaml").read_text()
    huge, big = tmp_path / "huge.afa.yaml", tmp_path / "big.afa.yaml"
    huge.write_text(text.replace("window: 7", "window: 99999999999999999999999"))
    big.write_text(text.replace("window: 7", "window: 100000"))
    events = str(EX / "afa" / "q1.shuffled.csv")
    for flavor in ("basic", "cleanse"):
        a = _run(capsys, "run", str(huge), events, "--flavor", flavor, "--net")
        b = _run(capsys, "run", str(big), events, "--flavor", flavor, "--net")
        assert len(a) == len(b) > 1   # the same events; their lifetimes end at LE + window


@pytest.mark.parametrize("method", ["tree", "index", "naive", "replay"])
def test_window_aggregates_over_a_store_equal_those_over_the_file(method, tmp_path, capsys):
    """The index-based slice tree would hold 2^63 slices (MemoryError before)."""
    events = _stocks(tmp_path, 40)
    assert main(["store", events, str(tmp_path / "store"), "--index", "price"]) == 0
    window = ["--attr", "price", "--size", "9223372036854775807", "--slide", "1", "--align", "zero"]
    want = _run(capsys, "window", "aggregate", events, *window)
    assert len(want) == 41   # the header and one window per event
    assert _run(capsys, "window", "aggregate", str(tmp_path / "store"), *window, "--method", method) == want


def test_the_optimized_afa_refuses_lifetimes_beyond_64_bits_by_name(tmp_path, capsys):
    """LE + window past int64 (it raised OverflowError, a traceback): refused by name; without an engine named
    the reference runs it (test_an_afa_with_a_huge_window_runs, docs/semantics.md DE2)."""
    huge = tmp_path / "huge.afa.yaml"
    huge.write_text((EX / "afa" / "q1.afa.yaml").read_text().replace("window: 7", "window: 99999999999999999999999"))
    assert main(["run", str(huge), str(EX / "afa" / "q1.shuffled.csv"), "--engine", "optimized"]) == 2
    assert "event lifetimes beyond 64-bit timestamps" in capsys.readouterr().err
