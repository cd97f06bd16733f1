"""Nesting limits of every query language (docs/semantics.md "Query limits and odd text (issue 14)").

A query nested exactly MAX_DEPTH levels parses and runs on every engine of its language (or is refused
as Unsupported, never a RecursionError); one level more is a QueryError, exit 2, naming line and column.
Flat chains (AND of 5000 terms, SEQ of 500 components, 10^4 grouping parentheses) are not nesting."""
from __future__ import annotations

import pytest

from cepkit.cli import main
from cepkit.core import registry
from cepkit.core.errors import QueryError
from cepkit.front.language.limits import MAX_DEPTH

D = MAX_DEPTH


def _stocks(tmp_path, n, types=None):
    rows = ["id,ts,type,price,symbol"]
    for i in range(n):
        rows.append(f"{i},{i},{types[i] if types else 'Stock'},{10 + i % 7},1")
    p = tmp_path / "stocks.csv"
    p.write_text("\n".join(rows) + "\n")
    return p


def sase_not(k):
    return f"PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match(a, b) {{ {'NOT ' * (k - 1)}(a.price > 12) }}\nWITHIN 3"


def sase_neg(k):
    return f"PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match(a, b) {{ a.price > {'-' * (k - 1)}b.price }}\nWITHIN 3"


def sase_sum(k):
    return f"PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match(a, b) {{ a.price{' + 1' * (k - 1)} > 12 }}\nWITHIN 3"


def sase_right(k):
    """A right-nested difference: the postfix evaluator's value stack holds about k values."""
    return ("PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match(a, b) {\n  a.price > "
            + "(a.price - " * (k - 1) + "b.price" + ")" * (k - 1) + "\n}\nWITHIN 3")


def sase1_not(k):
    """A SASE 1.0 query file: its WHERE items form an AND, one level."""
    return ("PATTERN SEQ(Stock a, Stock b)\nWHERE partition-contiguity AND [symbol] AND "
            f"{'NOT ' * (k - 2)}(a.price > 12)\nWITHIN 3")


def sase_seq(k):
    """SEQ( nested k deep: SEQ(SEQ(... SEQ(Stock a, Stock b) ...))."""
    return "PATTERN " + "SEQ(" * (k - 1) + "SEQ(Stock a, Stock b)" + ")" * (k - 1) + "\nWITHIN 3"


def sql(pattern, define):
    return ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(A0.price) AS p ONE ROW PER MATCH "
            f"PATTERN ({pattern}) DEFINE {define})")


def sql_not(k):
    return sql("A0 A1", f"A1 AS {'NOT ' * (k - 1)}(price > 12)")


def sql_neg(k):
    return sql("A0 A1", f"A1 AS price > {'- ' * (k - 1)}price")


def sql_sum(k):
    return sql("A0 A1", f"A1 AS price{' + 1' * (k - 1)} > 12")


def sql_all_matches(k):
    """The + chain under ALL MATCHES (what the gpu engine runs)."""
    return sql_sum(k).replace("ONE ROW PER MATCH", "ALL MATCHES CONTIGUOUS").replace("FIRST(A0.price) AS p", "A0.price AS p")


def sql_pattern(k):
    """Row-pattern concatenation nested k deep: (A0 (A1 (... (Ak-1 Ak))))."""
    return sql("".join(f"A{i} (" for i in range(k - 1)) + f"A{k - 1} A{k}" + ")" * (k - 1), "A0 AS price > 0")


def tps_not(k):
    return ("FROM s DEFINE X AS " + "NOT " * (k - 1) + "(price > 12), Y AS price <= 12\n"
            "PATTERN X before Y WITHIN 10")


def tps_sum(k):
    return "FROM s DEFINE X AS price" + " + 1" * (k - 1) + " > 12, Y AS price <= 12\nPATTERN X before Y WITHIN 10"


def afa_not(k):
    return ("name: deep\nwindow: 10\nregister: {n: 0}\nstates: [q0, q1]\nstart: q0\nfinal: [q1]\narcs:\n"
            f"  - {{name: a0, from: q0, to: q1, fence: \"{'NOT ' * (k - 1)}(e.price > 12)\", "
            "transfer: {n: \"r.n + e.price\"}}\n")


def win_not(k):
    return f"FILTER WHERE {'NOT ' * (k - 1)}(price > 12)"


def win_sum(k):
    return "FILTER WHERE price" + " + 1" * (k - 1) + " > 12"


def win_neg(k):
    return "FILTER WHERE price > " + "- " * (k - 1) + "price"


# (name, language, query of nesting height k, query suffix)
CASES = [
    ("sase NOT", "sase", sase_not, ".sase"), ("sase unary minus", "sase", sase_neg, ".sase"),
    ("sase + chain", "sase", sase_sum, ".sase"), ("sase right-nested -", "sase", sase_right, ".sase"),
    ("sase nested SEQ(", "sase", sase_seq, ".sase"),
    ("SASE 1.0 query file", "sase", sase1_not, ".query"),
    ("sql NOT", "sql", sql_not, ".sql"), ("sql unary minus", "sql", sql_neg, ".sql"),
    ("sql + chain", "sql", sql_sum, ".sql"), ("sql + chain, ALL MATCHES", "sql", sql_all_matches, ".sql"),
    ("sql nested pattern", "sql", sql_pattern, ".sql"),
    ("tpstream NOT", "tpstream", tps_not, ".tps"), ("tpstream + chain", "tpstream", tps_sum, ".tps"),
    ("afa NOT", "afa", afa_not, ".afa.yaml"),
    ("window NOT", "window", win_not, ".win"), ("window + chain", "window", win_sum, ".win"),
    ("window unary minus", "window", win_neg, ".win"),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name,lang,make,suffix", CASES, ids=IDS)
def test_one_level_too_deep_is_refused_with_its_position(name, lang, make, suffix, tmp_path, capsys):
    registry.parse(lang, make(D))
    with pytest.raises(QueryError) as exc:
        registry.parse(lang, make(D + 1))
    assert exc.value.line is not None and exc.value.column is not None
    assert f"more than {D} levels" in exc.value.message
    q = tmp_path / f"q{suffix}"
    q.write_text(make(D + 1))
    assert main(["run", str(q), str(_stocks(tmp_path, 5)), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"line {exc.value.line}, column {exc.value.column}: nested more than {D} levels" in err


def _events(tmp_path, lang, make):
    if make is sql_pattern:
        return _stocks(tmp_path, D + 1, [f"T{i}" for i in range(D + 1)])
    if lang == "afa":
        p = tmp_path / "afa.csv"
        p.write_text("kind,le,price\n" + "".join(f"insert,{i},{10 + i % 7}\n" for i in range(1, 30)))
        return p
    return _stocks(tmp_path, 30)


RUNS = [(c, e) for c in CASES for e in registry.engines_for(c[1])]


@pytest.mark.parametrize("case,engine", RUNS, ids=[f"{c[0]}-{e}" for c, e in RUNS])
def test_at_the_limit_runs_on_every_engine(case, engine, tmp_path, capsys):
    """Exit 0 with the reference engine's rows, or a refusal naming what the engine does not support."""
    _name, lang, make, suffix = case
    q = tmp_path / f"q{suffix}"
    q.write_text(make(D))
    events = str(_events(tmp_path, lang, make))
    assert main(["run", str(q), events, "--no-progress", "--format", "csv"]) == 0
    want = capsys.readouterr().out
    rc = main(["run", str(q), events, "--no-progress", "--format", "csv", "--engine", engine])
    out, err = capsys.readouterr()
    if rc == 2:
        assert "does not support" in err
    else:
        assert rc == 0, err
        assert sorted(out.splitlines()) == sorted(want.splitlines())


@pytest.mark.parametrize("name,lang,make,suffix", CASES, ids=IDS)
def test_explain_at_the_limit(name, lang, make, suffix, tmp_path, capsys):
    q = tmp_path / f"q{suffix}"
    q.write_text(make(D))
    assert main(["explain", str(q)]) == 0, capsys.readouterr().err


N = 2000   # 5000 works too (measured); 2000 keeps the suite fast
FLAT = [
    ("sase AND", "sase", "PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match(a, b) { "
     + " AND ".join(["a.price > 10"] * N) + " }\nWITHIN 3", ".sase"),
    ("SASE 1.0 AND items", "sase", "PATTERN SEQ(Stock a, Stock b)\nWHERE partition-contiguity AND [symbol] AND "
     + " AND ".join(["a.price > 10"] * N) + "\nWITHIN 3", ".query"),
    ("sase OR", "sase", "PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match(a, b) { "
     + " OR ".join(["a.price < 0"] * N) + " OR a.price > 10 }\nWITHIN 3", ".sase"),
    ("sase parentheses", "sase", "PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match(a, b) { "
     + "(" * N + "a.price > 10" + ")" * N + " }\nWITHIN 3", ".sase"),
    ("sase long SEQ", "sase", "PATTERN SEQ(" + ", ".join(f"Stock v{i}" for i in range(500))
     + ")\nWHERE strict-contiguity\nWITHIN 3", ".sase"),
    ("sql AND", "sql", sql("A0 A1", "A1 AS " + " AND ".join(["price > 10"] * N)), ".sql"),
    ("sql OR", "sql", sql("A0 A1", "A1 AS " + " OR ".join(["price < 0"] * N) + " OR price > 10"), ".sql"),
    ("sql parentheses", "sql", sql("(" * N + "A0 A1" + ")" * N, "A1 AS " + "(" * N + "price > 10" + ")" * N),
     ".sql"),
    ("sql alternation", "sql", sql(" | ".join(["A0 A1"] * 500), "A1 AS price > 10"), ".sql"),
    ("tpstream AND", "tpstream", "FROM s DEFINE X AS " + " AND ".join(["price > 12"] * N)
     + ", Y AS price <= 12\nPATTERN X before Y WITHIN 10", ".tps"),
    ("afa AND", "afa", afa_not(1).replace("(e.price > 12)", " AND ".join(["e.price > 12"] * N)), ".afa.yaml"),
    ("window OR", "window", "FILTER WHERE " + " OR ".join(["price < 0"] * N) + " OR price > 12", ".win"),
]


@pytest.mark.parametrize("name,lang,text,suffix", FLAT, ids=[f[0] for f in FLAT])
def test_flat_chains_are_not_nesting(name, lang, text, suffix, tmp_path, capsys):
    """N-item AND / OR chains, N grouping parentheses, long SEQ lists and alternations parse and
    run on the language's reference engine."""
    q = tmp_path / f"q{suffix}"
    q.write_text(text)
    events = _events(tmp_path, lang, None) if lang == "afa" else _stocks(tmp_path, 12)
    assert main(["run", str(q), str(events), "--no-progress", "--format", "csv"]) == 0, capsys.readouterr().err


def test_a_wide_or_on_the_optimized_engine_matches_the_reference(tmp_path, capsys):
    """The optimized engine's postfix evaluator holds one stack value per OR item (more than 64 here)."""
    q = tmp_path / "q.sase"
    q.write_text("PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match(a, b) { "
                 + " OR ".join(f"a.price = {i}" for i in range(200)) + " }\nWITHIN 3")
    events = str(_stocks(tmp_path, 40))
    outs = []
    for engine in ("reference", "optimized"):
        assert main(["run", str(q), events, "--no-progress", "--format", "csv", "--engine", engine]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and len(outs[0].splitlines()) == 40


@pytest.mark.parametrize("name,lang,text,suffix", [f for f in FLAT if f[0] in ("sql AND", "afa AND")],
                         ids=["sql AND", "afa AND"])
def test_the_optimized_engine_refuses_expressions_too_large_to_compile(name, lang, text, suffix, tmp_path, capsys):
    """2,000 ANDed comparisons are ~25,000 lines of generated Numba source, which took more than 12 GB to
    compile: the optimized engine refuses them by name (optimized/cache.py MAX_LINES); without an engine named
    the reference runs them (test_flat_chains_are_not_nesting)."""
    q = tmp_path / f"q{suffix}"
    q.write_text(text)
    events = _events(tmp_path, lang, None) if lang == "afa" else _stocks(tmp_path, 12)
    assert main(["run", str(q), str(events), "--no-progress", "--engine", "optimized"]) == 2
    assert "lines of generated Numba source, more than 1,200" in capsys.readouterr().err
