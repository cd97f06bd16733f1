"""Without an engine named, the fastest engine that runs the query runs it, and one that refuses the query or
its input hands over to the next, saying so (cepkit/engine_choice.py; issue 29, item 4)."""
from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

import cepkit
from cepkit.cli import main
from cepkit.core import registry
from cepkit.core.errors import CepkitError, Unsupported
from cepkit.engine_choice import EngineFallback, compile_fastest

EX = Path(__file__).resolve().parents[2] / "examples"
SEQ = "PATTERN SEQ(A a, B b)\nWHERE a.x = b.x\nWITHIN 10\n"
FINE = "type,ts,x\nA,1,1\nB,2,1\nA,3,2\nB,4,2\n"


def _matches(table) -> list:
    return [(m.bindings, m.ts) for m in table]


def test_the_default_is_the_fastest_engine_and_the_summary_names_it(capsys):
    program = cepkit.compile(SEQ, engine=None)
    assert program.engine_name == "optimized" and registry.language("sase").default_engine == "optimized"
    assert cepkit.compile(SEQ, engine="reference").engine_name == cepkit.compile(SEQ).engine_name == "reference"
    assert main(["run", str(EX / "query3.sase"), str(EX / "fig3_stream.csv"), "--no-progress"]) == 0
    default = capsys.readouterr()
    assert main(["run", str(EX / "query3.sase"), str(EX / "fig3_stream.csv"), "--no-progress", "--engine",
                 "reference"]) == 0
    reference = capsys.readouterr()
    assert default.out == reference.out and default.out
    assert "(engine optimized," in default.err and "(engine reference," in reference.err
    assert "note:" not in default.err


@pytest.mark.parametrize("lang, query, events, options", [
    ("sql", "sql/v_shape.sql", "sql/ticker.csv", {}),
    ("tpstream", "tpstream/aggressive_drivers.tps", "tpstream/car_sensors.csv", {"ts_unit": "s"}),
])
def test_every_language_with_a_fast_engine_defaults_to_it(lang, query, events, options):
    fast = cepkit.run(EX / query, EX / events, **options)
    slow = cepkit.run(EX / query, EX / events, engine="reference", **options)
    rows = [sorted(map(str, t.to_pandas().to_dict("records"))) for t in (fast, slow)]   # (as sets: TPStream's
    assert rows[0] == rows[1] and len(fast)                                              # order is per engine)
    assert cepkit.compile((EX / query).read_text(), language=lang, engine=None).engine_name == "optimized"


def test_a_construct_the_fast_engine_does_not_run_goes_to_the_next_engine_that_does():
    text = "PATTERN AND(A a, B b)\nWITHIN 10\n"   # AND(...): not the NFA^b engine's; the lazy one runs it
    events = pd.DataFrame({"type": ["A", "B", "A", "B"], "ts": [1, 2, 3, 4]})
    with pytest.warns(EngineFallback, match=r"engine optimized does not run AND\(\.\.\.\): engine optimized-lazy"):
        got = cepkit.run(text, events)
    assert _matches(got) == _matches(cepkit.run(text, events, engine="reference")) and len(got) == 4
    text = (EX / "rfid" / "shoplifting.sase").read_text()   # the RFID dialect: neither fast engine's
    with pytest.warns(EngineFallback, match="engine optimized-lazy does not run RFID dialect: engine reference"):
        assert cepkit.compile(text, engine=None).engine_name == "reference"


def test_a_value_the_fast_engines_cannot_hold_hands_the_run_to_the_reference(tmp_path, capsys):
    """A number beyond 64 bits in the fourth chunk: the three chunks before are read again by the reference,
    their matches (already written) not written twice; the output is the reference's, exit 0."""
    q = tmp_path / "q.sase"
    q.write_text(SEQ)
    ev = tmp_path / "ev.csv"
    ev.write_text(FINE + "A,5,7\nB,6,2.5\nA,7,99999999999999999999999\nB,8,3\nA,9,3\nB,10,3\n")
    assert main(["run", str(q), str(ev), "--chunk-size", "2", "--no-progress"]) == 0
    default = capsys.readouterr()
    assert main(["run", str(q), str(ev), "--no-progress", "--engine", "reference"]) == 0
    reference = capsys.readouterr()
    assert default.out == reference.out and default.out.count("\n") == 3
    assert "note: engine optimized does not run integers beyond 64 bits (column 'x')" in default.err
    assert "engine reference runs it (the 3 batches before read again)" in default.err
    assert "(engine reference," in default.err


def test_text_that_reads_as_a_number_hands_over_at_the_first_feed():
    events = pd.DataFrame({"type": ["A", "B", "A", "B"], "ts": [1, 2, 3, 4], "x": ["1", "1", "abc", "abc"]})
    with pytest.warns(EngineFallback, match="text that reads as a number"):
        got = cepkit.run(SEQ, events)
    assert _matches(got) == _matches(cepkit.run(SEQ, events, engine="reference")) and len(got) == 2


def test_a_compiled_program_hands_over_on_its_first_feed_and_names_the_engine_after():
    program = cepkit.compile(SEQ, engine=None)
    big = pd.DataFrame({"type": ["A", "B"], "ts": [1, 2], "x": [10**30, 10**30]})
    with pytest.warns(EngineFallback):
        assert len(program.feed(big)) == 1
    assert program.engine_name == "reference" and len(program.close()) == 0


def test_a_compiled_program_fed_before_says_which_engine_to_compile_with():
    """Fed by the caller, the batches before cannot be read again: the refusal is raised, naming the engine."""
    program = cepkit.compile(SEQ, engine=None)
    assert len(program.feed(pd.DataFrame({"type": ["A", "B"], "ts": [1, 2], "x": [1, 1]}))) == 1
    with pytest.raises(Unsupported, match=r"fed before came from engine optimized: compile with "
                                          r"engine='reference'"):
        program.feed(pd.DataFrame({"type": ["A", "B"], "ts": [3, 4], "x": [10**30, 10**30]}))


def test_an_afa_input_the_optimized_reader_refuses_is_read_by_the_reference(tmp_path, capsys):
    ev = tmp_path / "ev.csv"
    ev.write_text("type,le,v\nA,1.5,1\nB,2,1\n")   # a fractional timestamp: not the typed arrays' (O5)
    assert main(["run", str(EX / "afa" / "ab.afa.yaml"), str(ev), "--no-progress"]) == 0
    default = capsys.readouterr()
    assert main(["run", str(EX / "afa" / "ab.afa.yaml"), str(ev), "--no-progress", "--engine", "reference"]) == 0
    reference = capsys.readouterr()
    assert default.out == reference.out
    assert "note: engine optimized does not run non-integer timestamps" in default.err


def test_engines_that_disagree_on_the_matches_before_a_hand_over_are_an_error_not_an_answer():
    """The hand-over checks that the next engine finds the matches already handed out (here two real engines
    compiled from different queries stand for a defect)."""
    tight = registry.parse("sase", SEQ)
    loose = registry.parse("sase", "PATTERN SEQ(A a, B b)\nWITHIN 10\n")

    def compile_on(name: str):
        return cepkit.compile(tight if name == "optimized" else loose, engine=name)

    program = compile_fastest("sase", tight, {}, compile_on, reread=lambda name: [first, second])
    first = pd.DataFrame({"type": ["A", "A", "B"], "ts": [1, 2, 3], "x": [1, 2, 1]})
    second = pd.DataFrame({"type": ["B"], "ts": [4], "x": [10**30]})
    assert len(program.feed(first)) == 1
    with warnings.catch_warnings(), pytest.raises(CepkitError, match=r"found 2 matches in the 1 batches engine "
                                                                     r"optimized had found 1"):
        warnings.simplefilter("ignore", EngineFallback)
        program.feed(second)


def test_an_option_of_the_fast_engine_alone_on_a_query_only_the_reference_runs_is_a_query_error(tmp_path, capsys):
    """--no-merge is the optimized engine's; a query only the reference runs cannot take it: one line saying
    which engine runs the query and what to drop (the fuzz's RFID-C6 with --no-merge)."""
    q = tmp_path / "q.sase"
    q.write_text("EVENT SEQ(!(A x), B y) WITHIN 5")   # the RFID dialect: the reference's alone
    ev = tmp_path / "ev.csv"
    ev.write_text("type,ts\nB,1\n")
    assert main(["run", str(q), str(ev), "--no-merge", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--no-merge is not an option of engine reference, the one engine that runs this query" in err
    assert "engine optimized does not run RFID dialect" in err and "drop --no-merge to run it" in err
    assert main(["run", str(q), str(ev), "--no-progress"]) == 0


def test_ids_beyond_64_bits_hand_over_on_every_language_with_a_fast_engine():
    """The fuzz (seed 8): a SASE 1.0 run with such ids raised OverflowError in the optimized engine; an ALL ROWS
    query stayed refused, since its columns are known only once fed (the hand-over compares them after the
    batches before are fed again)."""
    big = 10**40
    events = pd.DataFrame({"id": [big, big + 1, big + 2], "ts": [1, 2, 3], "type": ["A", "B", "B"],
                           "price": [10, 8, 6]})
    sase = "PATTERN SEQ(A a, B b)\nWITHIN 10\n"
    with pytest.warns(EngineFallback, match="event ids beyond 64-bit integers"):
        got = cepkit.run(sase, events)
    assert _matches(got) == _matches(cepkit.run(sase, events, engine="reference")) and len(got) == 2
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES CLASSIFIER() AS cls ALL ROWS PER MATCH "
           "PATTERN (B+) DEFINE B AS price < PREV(price))")
    with pytest.warns(EngineFallback, match="event ids beyond 64-bit integers"):
        got = cepkit.run(sql, events, language="sql")
    assert got.to_pandas().equals(cepkit.run(sql, events, language="sql", engine="reference").to_pandas())


def test_the_choice_imports_only_the_engines_it_reaches():
    """Start-up: a query the first engine runs loads no other engine's module (they were all imported to
    look at their options, 54 ms for the lazy engines alone)."""
    import subprocess
    import sys

    code = ("import sys, cepkit; cepkit.run(sys.argv[1], sys.argv[2]); print(sorted(m for m in ("
            "'cepkit.optimized.lazy.engines', 'cepkit.reference.engine', 'cepkit.optimized.engine') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, str(EX / "query3.sase"), str(EX / "fig3_stream.csv")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['cepkit.optimized.engine']"


def test_an_option_without_engine_is_left_to_the_engine_choice_on_the_command_line(capsys):
    """No --engine: the command line no longer checks an engine option against the default engine alone (it
    said "--negation applies to --engine reference-lazy or optimized-lazy only, not optimized" where
    cepkit.compile(engine=None) weighs every engine); the engine choice gives the same message as the API."""
    root = Path(__file__).resolve().parents[2] / "examples"
    query = (root / "query3.sase").read_text()
    code = main(["run", str(root / "query3.sase"), str(root / "fig3_stream.csv"), "--negation", "first-chance"])
    err = capsys.readouterr().err
    assert code == 2 and "applies to --engine" not in err
    assert "--negation is not an option of engine reference, the one engine that runs this query" in err
    with pytest.raises(CepkitError, match="is not an option of engine reference, the one engine that runs"):
        cepkit.compile(query, engine=None, negation="first-chance")
