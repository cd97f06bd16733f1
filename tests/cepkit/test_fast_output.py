"""The column-wise match writer (cepkit.match_output, cepkit.core.match_json) against the row-by-row formatting
it replaced (`Match.to_json` through `json_line`; a pandas frame of `plain` values through `to_csv` and the
text table; the window queries' rows of RETURN items alone), byte for byte, over random match tables: every table shape a language hands over (Kleene and
plain variables, unbound variables, no variables; a detection time; sign and lifetime), ids as integers
or text, and values that are ints, big integers, Fractions, floats (infinities, NaN, -0.0), truth values,
text with quotes, commas, line breaks and non-ASCII characters, nulls and mixtures."""
from __future__ import annotations

import io
import math
from fractions import Fraction

import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cepkit import match_output as M
from cepkit.forms import (TimeForm, cell_text, frame_csv, ids_text, json_line, numeric, ts_records, use_max_ids,
                          use_time_form)
from cepkit.core.match import Match, plain
from cepkit.core.match_table import Layout, MatchTable

EXAMPLES = max(10, settings.default.max_examples // 10)

texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6) | \
    st.sampled_from(["", "a,b", 'say "hi"', "two\nlines", "cr\r", "é", "日本", "😀", "\\", "\x00\x1f", " pad "])
ints = st.integers(-5, 5) | st.integers(-(2**70), 2**70) | st.sampled_from([2**53 + 1, 2**63 - 1, -(2**63), 10**40])
floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([-0.0, 1e16, 1e-5, 0.1, 2.5, 1e300])
fractions = st.builds(Fraction, st.integers(-10**6, 10**6), st.integers(1, 10**6)) | \
    st.builds(Fraction, st.integers(-(2**80), 2**80), st.integers(1, 2**70))
KINDS = {"int": ints, "float": floats, "fraction": fractions | ints, "bool": st.booleans(), "text": texts,
         "mixed": ints | floats | fractions | texts | st.booleans()}
NAMES = ["a", "b", "é", "ts", "bindings", "detected", "sign", "lifetime", "x,y", 'q"', "p"]


@st.composite
def tables(draw):
    variables = tuple(draw(st.lists(st.sampled_from(["a", "b", "c", "é"]), max_size=3, unique=True)))
    payload = tuple(draw(st.lists(st.sampled_from(NAMES), max_size=4, unique=True)))
    payload = tuple(p for p in payload if p not in variables)
    detection, speculative = draw(st.booleans()), draw(st.booleans())
    layout = Layout(variables, payload, detection=detection, speculative=speculative)
    text_ids = draw(st.booleans())
    ids = st.text("xyz\"é,", min_size=1, max_size=3) if text_ids else st.integers(0, 10**6)
    kinds = {p: draw(st.sampled_from(sorted(KINDS))) for p in payload}
    ts_kind = draw(st.sampled_from(["int", "int", "fraction", "float", "mixed"]))
    n = draw(st.integers(0, 12))
    rows = []
    for _ in range(n):
        bindings = []
        for v in variables:
            if draw(st.integers(0, 4)) == 0:
                continue   # this row leaves v unbound
            bindings.append((v, tuple(draw(st.lists(ids, min_size=0 if v == "c" else 1, max_size=5)))))
        ts = draw(KINDS[ts_kind])
        values = tuple((p, draw(st.none() | KINDS[kinds[p]])) for p in payload)
        detected = draw(st.none() | ints) if detection else None
        lifetime = (draw(st.none() | ints), draw(st.none() | ints)) if speculative else None
        sign = draw(st.sampled_from([1, -1])) if speculative else 1
        rows.append(Match(tuple(bindings), ts, values, sign=sign, lifetime=lifetime, detected=detected))
    return MatchTable.from_matches(layout, rows)


def old_jsonl(table: MatchTable) -> str:
    return "".join(json_line(r) for r in ts_records((m.to_json() for m in table), ("ts",)))


def old_rows(table: MatchTable) -> list[dict]:
    """The window queries' rows: the RETURN items alone (cepkit/runners/window.py before)."""
    return [{c: plain(v) for c, v in m.payload} for m in table]


def old_rows_jsonl(table: MatchTable) -> str:
    return "".join(json_line(r) for r in ts_records(old_rows(table), ("ts",)))


def keep_ints(frame: pd.DataFrame, rows: list[dict], fmt: str) -> pd.DataFrame:
    """The frame with each column whose values (in `rows`) are integers and nulls kept integers (FO-2; pandas
    makes them floats): nullable Int64 for CSV (a null: empty), the Python values for the text table."""
    for c in frame.columns:
        values = [r.get(c) for r in rows]
        raw = [v for v in values if v is not None]
        if raw and len(raw) < len(values) and all(type(v) is int and -2**63 <= v < 2**63 for v in raw):
            frame[c] = pd.array(values, dtype="Int64") if fmt == "csv" else pd.Series(values, dtype=object)
    return frame


def old_frame(table: MatchTable, fmt: str) -> pd.DataFrame:
    """The frame the row-by-row writer built (cepkit.output.matches_frame and write_matches before)."""
    variables, returns = list(table.layout.variables), list(table.layout.payload)
    rows = []
    for m in table:
        b = m.binding_dict
        row = {v: [plain(i) for i in b.get(v, ())] for v in variables}
        row["ts"] = m.ts
        payload = dict(m.payload)
        row.update({name: plain(payload.get(name)) for name in returns})
        rows.append(row)
    frame = keep_ints(pd.DataFrame(rows, columns=variables + ["ts"] + returns), rows, fmt)
    for v in variables:
        frame[v] = [(" ".join(str(i) for i in ids) if fmt == "csv" else ids_text(ids)) for ids in frame[v]]
    return frame


def old_render(frame: pd.DataFrame) -> str:
    columns = [str(c) for c in frame.columns]
    rows = [[cell_text(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    right = [bool(len(frame)) and all(numeric(v) or v is None for v in frame.iloc[:, k]) for k in range(len(columns))]
    widths = [max([len(c)] + [len(r[k]) for r in rows]) for k, c in enumerate(columns)]

    def line(cells):
        return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)).rstrip()

    return "\n".join([line(columns), line(["-" * w for w in widths])] + [line(r) for r in rows])


def new_text(pieces) -> str:
    return b"".join(bytes(p) for p in pieces).decode()


def arrow_copy(table: MatchTable) -> MatchTable:
    """The table as an engine hands it over from its arrays: Arrow columns, rows decoded on demand."""
    return MatchTable(table.layout, arrow=table.to_arrow())


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tables())
def test_json_lines_are_byte_identical_to_the_row_writer(table):
    with use_time_form(TimeForm("ticks")):
        assert new_text(M.jsonl(table)) == old_jsonl(table)
        decoded = arrow_copy(table)
        assert new_text(M.jsonl(decoded)) == old_jsonl(decoded)
        assert new_text(M.jsonl(decoded, payload_only=True)) == old_rows_jsonl(decoded)


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tables(), st.sampled_from([0, 1, 3, 5]))
def test_csv_and_text_table_are_byte_identical_to_the_pandas_writer(table, limit):
    table = arrow_copy(table)
    whole = "ts" not in table.layout.payload   # (queries refuse a RETURN item named ts; window rows have one)
    with use_time_form(TimeForm("ticks")), use_max_ids(limit):
        names, cells, _ = M.match_cells(table, "csv")
        assert not whole or new_text(M.csv_text(names, cells)) == frame_csv(old_frame(table, "csv"))
        names, cells, _ = M.match_cells(table, "csv", payload_only=True)
        rows = keep_ints(pd.DataFrame(old_rows(table), columns=list(table.layout.payload)), old_rows(table), "csv")
        assert new_text(M.csv_text(names, cells, len(table))) == frame_csv(rows)
        if len(table):
            names, cells, _ = M.match_cells(table, "table")
            assert not whole or M.table_text(names, cells) == old_render(old_frame(table, "table"))
            names, cells, _ = M.match_cells(table, "table", payload_only=True)
            shown = keep_ints(pd.DataFrame(old_rows(table), columns=list(table.layout.payload)), old_rows(table),
                              "table")
            assert M.table_text(names, cells) == old_render(shown)


def test_times_in_json_lines_and_csv_match_the_row_writer():
    """--ts-format iso / a pattern: the ts column goes through the run's time form as before."""
    layout = Layout(("a",), ("p",))
    rows = [Match((("a", (1, 2)),), ts, (("p", Fraction(1, 3)),)) for ts in (0, 1_700_000_000, 2**40, -5)]
    rows.append(Match((("a", (3,)),), Fraction(1, 2), (("p", None),)))
    table = arrow_copy(MatchTable.from_matches(layout, rows))
    for spec in ("iso", "%Y-%m-%d %H:%M", "ticks"):
        with use_time_form(TimeForm(spec, "s", tz="+02:00")):
            assert new_text(M.jsonl(table)) == old_jsonl(table)
            names, cells, _ = M.match_cells(table, "csv")
            frame = old_frame(table, "csv")
            from cepkit.forms import ts_frame

            assert new_text(M.csv_text(names, cells)) == frame_csv(ts_frame(frame, ["ts"], "csv"))
            window = arrow_copy(MatchTable.from_matches(Layout((), ("ts", "p")), [
                Match((), m.ts, (("ts", m.ts), ("p", 1))) for m in rows]))
            assert new_text(M.jsonl(window, payload_only=True)) == old_rows_jsonl(window)
            names, cells, _ = M.match_cells(window, "csv", payload_only=True)
            frame = pd.DataFrame(old_rows(window), columns=["ts", "p"])
            assert new_text(M.csv_text(names, cells)) == frame_csv(ts_frame(frame, ["ts"], "csv"))


def test_large_kleene_table_goes_in_slices(monkeypatch):
    """Tables past one slice are written piece by piece with the same bytes."""
    monkeypatch.setattr(M, "SLICE", 7)
    monkeypatch.setattr(M, "SLICE_IDS", 20)  # past one row: a slice holds at most 20 bound ids
    layout = Layout(("a", "b"), ("n",))
    rows = [Match((("a", tuple(range(i, i + i % 9 + 1))), ("b", (i + 20,))), i, (("n", i * 0.5),)) for i in range(50)]
    table = arrow_copy(MatchTable.from_matches(layout, rows))
    pieces = M.slices(table)
    assert sum(len(p) for p in pieces) == 50 and max(len(p) for p in pieces) <= 7 and len(pieces) > 8
    with use_time_form(TimeForm("ticks")):
        assert new_text(M.jsonl(table)) == old_jsonl(table)
        names, cells, _ = M.match_cells(table, "csv")
        assert new_text(M.csv_text(names, cells)) == frame_csv(old_frame(table, "csv"))


def test_parquet_holds_the_same_values_as_the_pandas_writer(tmp_path):
    """The values pandas wrote; a column Parquet has no type for (integers past int64, text mixed with
    numbers), where pandas failed, in the match table's exact encoding (semantics.md FO-1)."""
    layout = Layout(("a", "b"), ("avg", "flag", "name", "big", "mixed"))
    rows = [Match((("a", (1, 2, 3)), ("b", (4,))), 4, (("avg", Fraction(5, 2)), ("flag", True), ("name", "é"),
                                                      ("big", 10**20), ("mixed", "x"))),
            Match((("a", (5,)),), 6, (("avg", 3), ("flag", False), ("name", None), ("big", 7), ("mixed", 3)))]
    table = arrow_copy(MatchTable.from_matches(layout, rows))
    with use_time_form(TimeForm("ticks")):
        names, cells, encoded = M.match_cells(table, "parquet")
        pq.write_table(M.parquet_table(names, cells, encoded), tmp_path / "new.parquet")
    new = pd.read_parquet(tmp_path / "new.parquet")
    assert [list(x) for x in new["a"]] == [[1, 2, 3], [5]] and [list(x) for x in new["b"]] == [[4], []]
    assert new["ts"].tolist() == [4, 6] and new["avg"].tolist() == [2.5, 3.0]
    assert new["flag"].tolist() == [True, False] and new["name"].tolist() == ["é", None]
    assert [int(v) for v in new["big"]] == [10**20, 7]
    assert new["mixed"].tolist() == ['"x"', "3"]


def test_no_python_call_per_bound_id(monkeypatch):
    """A Kleene table of integer ids is written without `plain` or `json_safe` per id."""
    import cepkit.core.match
    import cepkit.forms
    import cepkit.output
    import cepkit.core.match_json

    calls = []
    for module in (cepkit.core.match, cepkit.core.match_json, M, cepkit.forms, cepkit.output):
        for name in ("plain", "json_safe"):
            if hasattr(module, name):
                real = getattr(module, name)
                monkeypatch.setattr(module, name, lambda v, _real=real: calls.append(v) or _real(v))
    layout = Layout(("a", "b"), ("n",))
    rows = [Match((("a", tuple(range(i, i + 40))), ("b", (i + 50,))), i, (("n", i),)) for i in range(100)]
    table = arrow_copy(MatchTable.from_matches(layout, rows))
    with use_time_form(TimeForm("ticks")):
        text = new_text(M.jsonl(table))
        names, cells, _ = M.match_cells(table, "csv")
        M.csv_text(names, cells)
    assert text.count("\n") == 100 and calls == []


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_non_finite_values_keep_their_json_names(value):
    table = arrow_copy(MatchTable.from_matches(Layout(("a",), ("v",)), [Match((("a", (1,)),), 1, (("v", value),))]))
    with use_time_form(TimeForm("ticks")):
        assert new_text(M.jsonl(table)) == old_jsonl(table)
    assert '"Infinity"' in old_jsonl(table) or '"-Infinity"' in old_jsonl(table) or '"NaN"' in old_jsonl(table)


def test_writer_output_reads_back_as_json():
    import json

    table = arrow_copy(MatchTable.from_matches(Layout(("a",), ("s",)),
                                               [Match((("a", (1, 2)),), 2, (("s", 'x"\n😀'),))]))
    with use_time_form(TimeForm("ticks")):
        line = new_text(M.jsonl(table))
    assert json.load(io.StringIO(line)) == {"bindings": {"a": [1, 2]}, "ts": 2, "s": 'x"\n😀'}


def test_table_lines_lose_the_trailing_whitespace_str_rstrip_removes():
    from cepkit.forms import RSTRIP_SPACES

    assert sorted(RSTRIP_SPACES) == sorted(c for c in map(chr, range(0x110000)) if c.isspace())


@st.composite
def sql_rows(draw):
    """MATCH_RECOGNIZE's output shape: named columns, plain values, timestamp columns."""
    names = draw(st.lists(st.sampled_from(["ts", "symbol", "price", "m", "x,y", "é"]), min_size=1, max_size=5,
                          unique=True))
    kinds = [draw(st.sampled_from(sorted(KINDS))) for _ in names]
    n = draw(st.integers(0, 10))
    rows = [tuple(plain(draw(st.none() | KINDS[k]) if k != "int" else draw(st.none() | st.integers(-10**6, 10**12)))
                  for k in kinds) for _ in range(n)]
    timestamps = tuple(c for c, k in zip(names, kinds) if k == "int" and draw(st.booleans()))
    return names, rows, timestamps


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sql_rows(), st.sampled_from(["ticks", "iso"]))
# a CR beside an int column with a null: frame_csv kept the int (Series.map had made it 0.0)
@example((["ts", "symbol", "price", "m", "x,y"], [(None,) * 5, (None, "\r", None, None, 0)], ("x,y",)), "ticks")
def test_sql_rows_are_byte_identical_to_the_row_writer(shape, spec):
    from cepkit.forms import exact_frame, render_table, ts_frame

    names, rows, timestamps = shape
    records = [dict(zip(names, row)) for row in rows]
    values = {c: [row[k] for row in rows] for k, c in enumerate(names)}
    table = M.Rows(names, values, len(rows), timestamps)
    with use_time_form(TimeForm(spec, "s")):
        assert new_text(table.jsonl()) == "".join(json_line(r) for r in ts_records(records, timestamps))
        for fmt in ("csv", "table"):
            plain_records = [{c: v for c, v in r.items() if c not in timestamps} for r in records]
            frame = ts_frame(keep_ints(exact_frame(records, names, timestamps), plain_records, fmt), timestamps, fmt)
            if fmt == "csv":
                assert new_text(M.csv_text(table.names, table.cells(fmt), len(rows))) == frame_csv(frame)
            elif rows:
                assert M.table_text(table.names, table.cells(fmt)) == render_table(frame)


def test_integer_columns_with_nulls_stay_integers_in_csv_and_the_text_table():
    """FO-2: a column of integers and nulls (an ALL ROWS PER MATCH measure before its variable's row) is
    written 90 / empty in CSV and 90 / null in the text table, not 90.0 as pandas would type it."""
    values = {"bottom": [None, 90, 80], "n": [1, 2, 3]}
    table = M.Rows(["bottom", "n"], values, 3)
    with use_time_form(TimeForm("ticks")):
        assert new_text(M.csv_text(table.names, table.cells("csv"), 3)) == "bottom,n\n,1\n90,2\n80,3\n"
        assert M.table_text(table.names, table.cells("table")).splitlines()[2:] == [
            "  null  1", "    90  2", "    80  3"]


def test_text_with_del_is_escaped_as_json_dumps_does():
    """json.dumps (ensure_ascii) escapes every character outside printable ASCII, DEL (0x7f) included; the
    column writer wrote DEL raw (found by the hypothesis test above, a text column holding 'a\\x7f')."""
    values = {"symbol": ["a\x7f", "\x7f\x7f", " \x7f", "plain"]}
    table = M.Rows(["symbol"], values, 4)
    with use_time_form(TimeForm("ticks")):
        assert new_text(table.jsonl()) == "".join(json_line({"symbol": v}) for v in values["symbol"])


@pytest.mark.parametrize("values", [[2**63], [2**63, 1], [2**63, None], [2**64 - 1, -5], [-2**63 - 1, None]])
def test_integers_past_int64_are_exact_in_parquet(values, tmp_path):
    """A RETURN column holding an integer outside int64 is written as decimal(38, 0), exact: pandas typed
    [2**63] as uint64, which the Parquet writer cast to int64 (-2**63, silently), and [2**63, None] as a double."""
    import pyarrow as pa

    layout = Layout(("a",), ("big",))
    table = MatchTable.from_matches(layout, [Match((("a", (i,)),), i, (("big", v),)) for i, v in enumerate(values)])
    names, cells, encoded = M.match_cells(table, "parquet")
    pq.write_table(M.parquet_table(names, cells, encoded), tmp_path / "m.parquet")
    got = pq.read_table(tmp_path / "m.parquet").column("big")
    assert pa.types.is_decimal(got.type)
    assert [None if v is None else int(v) for v in got.to_pylist()] == values


def test_integers_past_int64_without_nulls_are_exact_in_csv():
    """pandas types [2**63, 2**64 - 1] as uint64; the CSV writer cast them to int64 (-2**63 and -1, silently)
    where pandas' own writer prints their digits."""
    layout = Layout(("a",), ("big",))
    values = [2**63, 2**64 - 1, 5]
    table = MatchTable.from_matches(layout, [Match((("a", (i,)),), i, (("big", v),)) for i, v in enumerate(values)])
    names, cells, _ = M.match_cells(table, "csv")
    text = new_text(M.csv_text(names, cells))
    assert text == frame_csv(old_frame(table, "csv"))
    assert [line.rsplit(",", 1)[1] for line in text.splitlines()[1:]] == [str(v) for v in values]
