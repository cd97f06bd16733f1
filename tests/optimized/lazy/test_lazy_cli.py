"""`cepkit run` with the optimized lazy engines prints exactly what the reference lazy engine prints on the
example of examples/lazy, and the same work counters; the engine names show in `cepkit run --help`."""
from __future__ import annotations

from pathlib import Path

import pytest

from cepkit.cli import main

ROOT = Path(__file__).resolve().parents[3]
QUERY, EVENTS = str(ROOT / "examples/lazy/fraud.sase"), str(ROOT / "examples/lazy/fraud.csv")


def _run(capsys, *argv) -> tuple[str, str]:
    assert main(["run", QUERY, EVENTS, *argv]) == 0
    out, err = capsys.readouterr()
    return out, err.splitlines()[-1]


@pytest.mark.parametrize("extra", [[], ["--order", "Alert,Transfer,Login"], ["--chunk-size", "37"]], ids=str)
def test_optimized_lazy_prints_the_reference_lazy_output(capsys, extra):
    want, want_counters = _run(capsys, "--engine", "reference-lazy", "--counters", *extra)
    got, got_counters = _run(capsys, "--engine", "optimized-lazy", "--counters", *extra)
    assert got == want and want.count("\n") == 86
    assert got_counters == want_counters and "order a,t,l" in got_counters


@pytest.mark.parametrize("fast, ref", [("optimized-tree", "reference-tree"), ("optimized-eager", "reference-eager")])
def test_optimized_tree_and_eager_print_the_reference_output(capsys, fast, ref):
    assert _run(capsys, "--engine", fast, "--counters") == _run(capsys, "--engine", ref, "--counters")


def test_engine_names_in_help(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split()).replace("- ", "-")   # (argparse wraps after hyphens)
    for name in ("optimized-lazy", "optimized-tree", "optimized-eager"):
        assert name in out


def test_kleene_is_refused_by_name(tmp_path, capsys):
    query = tmp_path / "q.sase"
    query.write_text("PATTERN SEQ(Login l, Transfer+ t[], Alert a) WITHIN 30")
    assert main(["run", str(query), EVENTS, "--engine", "optimized-tree"]) == 2
    assert "does not support Kleene closure" in capsys.readouterr().err


def test_overflow_is_an_event_error():
    import pandas as pd

    from cepkit import compile
    from cepkit.core.errors import EventError
    from cepkit.core.readers import from_pandas

    frame = pd.DataFrame({"id": [1, 2], "type": ["A", "B"], "ts": [1, 2], "x": [2**62, 2**62]})
    with pytest.raises(EventError, match="64-bit"):
        compile("PATTERN SEQ(A a, B b) WHERE a.x * b.x > 0", engine="optimized-lazy").run(from_pandas(frame))


@pytest.mark.parametrize("fast, ref", [("optimized-lazy", "reference-lazy"), ("optimized-tree", "reference-tree"),
                                       ("optimized-eager", "reference-eager")])
def test_max_state_gives_the_reference_error(fast, ref):
    from cepkit import compile
    from cepkit.core.errors import ResourceLimit
    from cepkit.core.readers import read_events

    batch = read_events(EVENTS)
    text = open(QUERY).read()
    errors = []
    for engine in (fast, ref):
        with pytest.raises(ResourceLimit) as exc:
            compile(text, engine=engine, max_state=1 if engine.endswith("lazy") else 5).run(batch)
        errors.append(str(exc.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("fast, ref", [("optimized-lazy", "reference-lazy"), ("optimized-eager", "reference-eager")])
def test_kleene_with_return_prints_the_reference_output(tmp_path, capsys, fast, ref):
    query = tmp_path / "k.sase"
    query.write_text("PATTERN SEQ(Login l, Transfer+ t[], Alert a) WHERE [user] AND t[i].amount >= t[i-1].amount "
                     "WITHIN 30 RETURN l.user AS user, sum(t[].amount) AS total, t.LEN AS n")
    outs = []
    for engine in (fast, ref):
        assert main(["run", str(query), EVENTS, "--engine", engine, "--counters", "--chunk-size", "50"]) == 0
        out, err = capsys.readouterr()
        outs.append((out, err.splitlines()[-1]))
    assert outs[0] == outs[1] and outs[0][0].count("\n") > 5
