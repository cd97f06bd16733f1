"""The saved reproducers (tests/fuzz/reproducers/, one per failure class the fuzzing found: 01-40 before issue 14's
fixes, 41- found by `make fuzz` after them): each input now meets its case.json `expect`."""
import json
from pathlib import Path

import pytest

from tests.fuzz.run import holds, run_saved

FOLDERS = sorted(p.parent for p in (Path(__file__).parent / "reproducers").glob("*/case.json"))


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_reproducer_is_fixed(folder):
    case = json.loads((folder / "case.json").read_text())
    out = run_saved(folder, case, case["events"])
    assert holds(folder, case, out), (f"{case['defect']}\n  expected {case['expect']}\n  exit {out.code} "
                                      f"({out.kind}) {out.error}\n  stderr: {out.stderr[-400:]}")
