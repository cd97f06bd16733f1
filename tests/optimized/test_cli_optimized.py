"""`cepkit run --engine optimized` writes what `--engine reference` writes, and reports errors the same way."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cepkit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(tmp_path: Path, engine: str, *extra: str) -> tuple[int, list]:
    out = tmp_path / f"{engine}.jsonl"
    code = main(["run", *extra, "--engine", engine, "--format", "jsonl", "--output", str(out), "--no-progress"])
    lines = out.read_text().splitlines() if out.exists() else []
    return code, [json.loads(line) for line in lines]


@pytest.mark.parametrize("selection", ["all", "non-overlap"])
def test_cli_query3_matches_reference(tmp_path, selection):
    args = (str(EXAMPLES / "query3.sase"), str(EXAMPLES / "fig3_stream.csv"), "--selection", selection)
    code, ours = _run(tmp_path, "optimized", *args)
    ref_code, theirs = _run(tmp_path, "reference", *args)
    assert (code, ours) == (ref_code, theirs) and code == 0


def test_cli_event_error_exit_3(tmp_path):
    events = tmp_path / "e.csv"
    events.write_text("id,ts,type,price\n1,0,stock,10\n2,1,stock,abc\n")
    query = tmp_path / "q.sase"
    query.write_text("PATTERN SEQ(stock a, stock b) WHERE skip_till_any_match { b.price > a.price }")
    code, _ = _run(tmp_path, "optimized", str(query), str(events))
    assert code == 3
