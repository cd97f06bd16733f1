"""The SASE 1.0 dialect (docs/semantics.md S1): how a query gets it, what it refuses, and that every SASE
engine other than the reference refuses it by name. Its answers are pinned by conformance/cases/sase1/."""
from __future__ import annotations

import pytest

import cepkit
from cepkit.core import registry
from cepkit.core.errors import QueryError, Unsupported
from cepkit.front.language import parse
from cepkit.front.language.dialects import dialect_of_path, with_dialect
from cepkit.front.nfab.compile import compile_nfab

ANY = "PATTERN SEQ(A+ a[], B b) WHERE skip-till-any-match AND [k] AND a[i].v > a[i-1].v WITHIN 10"
EVENTS = [{"id": "a1", "type": "A", "ts": 1, "k": 1, "v": 1}, {"id": "a2", "type": "A", "ts": 2, "k": 1, "v": 2},
          {"id": "b1", "type": "B", "ts": 3, "k": 1, "v": 0}]


def test_the_dialect_is_a_field_of_the_query_with_its_window_convention():
    plus, one = parse(ANY), parse(ANY, dialect="sase1")
    assert plus.dialect == "sase+" and plus.conventions.window_bound == "strict" and not plus.window.inclusive
    assert one.dialect == "sase1" and one.conventions.window_bound == "inclusive" and one.window.inclusive
    assert with_dialect(one, "sase+") == plus and with_dialect(plus, "sase1") == one
    assert dialect_of_path("x/Q1.QUERY") == "sase1" and dialect_of_path("q.sase") is None


@pytest.mark.parametrize("text, words", [
    ("PATTERN SEQ(A+ a[], B b) WHERE strict-contiguity WITHIN 5", "strict-contiguity: SASE 1.0 runs"),
    ("PATTERN SEQ(A+ a[], B b) WITHIN 5", "no event selection strategy"),
    ("PATTERN SEQ(A+ a[], B b) WHERE skip-till-next-match", "needs WITHIN"),
    ("PATTERN SEQ(A+ a[], B b) WHERE skip-till-next-match WITHIN 5 EVENTS", "not a count of events"),
    ("PATTERN SEQ(A a, B+ b[]) WHERE skip-till-next-match WITHIN 5", "cannot end the pattern"),
    ("PATTERN SEQ(A a) WHERE skip-till-next-match WITHIN 5", "at least two components"),
    ("PATTERN SEQ(A+ a[], B+ b[], C c) WHERE skip-till-next-match WITHIN 5", "one Kleene closure at most"),
    ("PATTERN SEQ(A a, B b) WHERE partition-contiguity WITHIN 5", "needs a partition attribute"),
    ("PATTERN SEQ(A+ a[], A b, A c) WHERE skip-till-any-match AND [k] AND [g] WITHIN 5",
     r"second partition attribute \(\[g\]\) after a Kleene closure first \(a\) under skip-till-any-match: "
     "SASE 1.0 compares it with the last event taken into a by any of the runs"),
    ("PATTERN AND(A a, B b) WHERE skip-till-any-match WITHIN 5", "SEQ"),
    ("EVENT SEQ(A a, B b) WITHIN 5", "RFID"),
])
def test_what_sase1_cannot_run_is_a_query_error(text, words):
    with pytest.raises(QueryError, match=words):
        parse(text, dialect="sase1")


@pytest.mark.parametrize("text, clauses", [
    # the first [attr] partitions; a later one is SASE 1.0's `g = $1.g` on every later component
    ("PATTERN SEQ(A a, A+ b[], C c) WHERE partition-contiguity AND [k] AND [g] WITHIN 5",
     (["e.type = A", "e.type = A ∧ b[1].k = a.k ∧ b[1].g = a.g", "e.type = C ∧ c.k = a.k ∧ c.g = a.g"],
      [None, "e.type = A ∧ b[i].k = a.k ∧ b[i].g = a.g", None])),
    # after a Kleene closure first: not on the closing component, the closure's last event for the later ones
    ("PATTERN SEQ(A+ a[], A b, C c) WHERE skip-till-next-match AND [k] AND [g] AND [h] WITHIN 5",
     (["e.type = A", "e.type = A ∧ b.k = a[1].k", "e.type = C ∧ c.k = a[1].k ∧ c.g = a[a.LEN].g ∧ c.h = a[a.LEN].h"],
      ["e.type = A ∧ a[i].k = a[1].k", None, None])),
    # two components: the second attribute is never checked, under every strategy
    ("PATTERN SEQ(A+ a[], A b) WHERE skip-till-any-match AND [k] AND [g] WITHIN 5",
     (["e.type = A", "e.type = A ∧ b.k = a[1].k"], ["e.type = A ∧ a[i].k = a[1].k", None])),
])
def test_a_second_partition_attribute_is_sase1s_predicate(text, clauses):
    """docs/semantics.md S1.6: the dialect runs the query the jar runs, with the jar's predicate for [g]."""
    nfa = compile_nfab(parse(text, dialect="sase1"))
    assert ([f.text() for f in nfa.begin], [f and f.text() for f in nfa.take]) == clauses
    assert nfa.partition_attrs == ("k",)
    assert compile_nfab(parse(text)).partition_attrs != ("k",)  # SASE+ partitions by every [attr]


def test_unknown_dialect():
    with pytest.raises(QueryError, match="unknown SASE dialect"):
        parse(ANY, dialect="sase2")
    with pytest.raises(QueryError, match="applies to SASE queries"):
        cepkit.compile("SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A) DEFINE A AS true)", dialect="sase1")


@pytest.mark.parametrize("text, construct", [
    ("PATTERN SEQ(A a, !(C c), B b) WHERE skip-till-next-match WITHIN 5", "negation in the SASE 1.0 dialect"),
])
def test_reference_refuses_what_it_does_not_model_by_name(text, construct):
    with pytest.raises(Unsupported, match=construct):
        cepkit.compile(parse(text, dialect="sase1"))
    with pytest.raises(Unsupported, match="non-overlap output format in the SASE 1.0 dialect"):
        cepkit.compile(parse(ANY, dialect="sase1"), selection="non_overlap")


@pytest.mark.parametrize("engine", [e for e in registry.engines_for("sase") if e not in ("reference", "optimized")])
def test_every_other_sase_engine_refuses_the_dialect_by_name(engine):
    q = parse(ANY, dialect="sase1")
    with pytest.raises(Unsupported, match="SASE 1.0 dialect") as exc:
        cepkit.compile(q, engine=engine)
    assert "run it with: optimized, reference" in str(exc.value)
    with pytest.raises(Unsupported, match="SASE 1.0 dialect"):  # its own compile step, past the registry
        registry.get_engine("sase", engine).build(q)


def test_query_files_are_read_in_sase1_and_the_flag_overrides(tmp_path, capsys):
    import json

    import pandas as pd

    from cepkit.cli import main

    events = tmp_path / "e.csv"
    pd.DataFrame([{"id": f"e{i}", "type": "A", "ts": i, "k": 1, "v": v} for i, v in ((1, 1), (2, 200), (3, 300))]
                 ).to_csv(events, index=False)
    text = "PATTERN SEQ(A+ a[], A b) WHERE skip-till-next-match AND [k] AND b.v > 100 WITHIN 10"
    (tmp_path / "q.query").write_text(text)
    (tmp_path / "q.sase").write_text(text)
    # SASE 1.0: e2 closes e1's closure and is not taken into it; e3 closes the run e2 began
    sase1 = {(("a", ("e1",)), ("b", ("e2",))), (("a", ("e2",)), ("b", ("e3",)))}
    assert {m.key() for m in cepkit.run(tmp_path / "q.query", events)} == sase1
    assert {m.key() for m in cepkit.run(tmp_path / "q.sase", events, dialect="sase1")} == sase1
    plus = {m.key() for m in cepkit.run(tmp_path / "q.sase", events)}
    assert (("a", ("e1", "e2")), ("b", ("e3",))) in plus  # SASE+ also takes e2 into a[]
    assert plus == {m.key() for m in cepkit.run(tmp_path / "q.query", events, dialect="sase+")}
    for path, flag, want in ((tmp_path / "q.query", [], sase1), (tmp_path / "q.query", ["--dialect", "sase+"], plus),
                             (tmp_path / "q.sase", ["--dialect", "sase1"], sase1)):
        assert main(["run", str(path), str(events), *flag]) == 0
        got = {tuple((v, tuple(ids)) for v, ids in sorted(json.loads(line)["bindings"].items()))
               for line in capsys.readouterr().out.splitlines()}
        assert got == want, (path, flag)


@pytest.mark.parametrize("name, flag, dialect", [("q.query", [], "SASE 1.0 dialect"), ("q.sase", [], "SASE+ dialect"),
                                                 ("q.sase", ["--dialect", "sase1"], "SASE 1.0 dialect"),
                                                 ("q.query", ["--dialect", "sase+"], "SASE+ dialect")])
def test_the_summary_line_names_the_dialect(tmp_path, capsys, name, flag, dialect):
    """The same text means other matches in the two dialects; the summary line says which one ran (issue 30:
    a .sase file renamed .query changed its answer silently)."""
    from cepkit.cli import main

    events = tmp_path / "e.csv"
    events.write_text("id,type,ts,k,v\ne1,A,1,1,1\ne2,A,2,1,200\n")
    (tmp_path / name).write_text("PATTERN SEQ(A+ a[], A b) WHERE skip-till-next-match AND [k] AND b.v > 100 WITHIN 10")
    assert main(["run", str(tmp_path / name), str(events), *flag]) == 0
    summary = capsys.readouterr().err.strip().splitlines()[-1]
    assert summary.endswith(f", skip_till_next_match, {dialect})"), summary


def test_cepkit_run_of_examples_q1_over_its_regenerated_stream_prints_sase1s_count(tmp_path, capsys):
    """The issue's acceptance: examples/Q1.query over the stream examples/sase1/Q1.stream describes gives
    SASE 1.0's count (the count itself is the conformance vector S1-Q1; here the command line is checked)."""
    import json

    from cepkit.cli import main
    from cepkit.conformance.sase1_loader import load_cases
    from cepkit.reference.sase1.__main__ import main as write_stream

    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    assert write_stream([str(root / "examples/sase1/Q1.stream"), str(tmp_path / "q1.csv")]) == 0
    assert main(["run", str(root / "examples/Q1.query"), str(tmp_path / "q1.csv")]) == 0
    out, err = capsys.readouterr()
    vector = next(c for c in load_cases() if c.id == "S1-Q1")
    from cepkit.reference.sase1.stock_stream import StockStreamConfig, read_config

    assert read_config(root / "examples/sase1/Q1.stream") == StockStreamConfig.from_mapping(vector.stream)
    rows = [json.loads(line)["bindings"] for line in out.splitlines()]
    assert len(rows) == vector.expected_count and f"{vector.expected_count} matches from 100000 events" in err
    assert {"a": [1177, 1179, 1183], "b": [1184]} in rows


def test_spark_jobs_refuse_a_sase1_query_file_by_name():
    """The Spark jobs ship query text (read in the SASE+ dialect), so a .query file is refused, not misread."""
    import argparse

    from cepkit.spark_lang_cli import language_kwargs

    args = argparse.Namespace(query="examples/Q1.query", language=None, key=None, flavor=None)
    with pytest.raises(Unsupported, match="SASE 1.0 dialect"):
        language_kwargs(args)
    assert language_kwargs(argparse.Namespace(query="q.sase", language=None, key=None, flavor=None))["language"] == "sase"
