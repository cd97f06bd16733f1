#!/usr/bin/env python3
"""The tiny SASE+ engine (tiny_sase.py) as an external command for the conformance kit: it reads the case
file the kit names as its last argument and answers by the command protocol (docs/conformance.md):

    cepkit conformance --language sase --command "python examples/conformance/tiny_sase_command.py"

Exit 0 with one JSON match row per line on stdout; 77 with the refused construct on stderr; 65 for an
error in the query, 66 for one in the events."""
import json
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tiny_sase import Refused, TinySase


def main(case_file: str) -> int:
    vector = SimpleNamespace(**json.loads(Path(case_file).read_text(encoding="utf-8")))
    engine = TinySase()
    try:
        plan = engine.compile(vector)
    except Refused as exc:
        print(exc.construct, file=sys.stderr)
        return 77
    except ValueError as exc:
        print(f"query error: {exc}", file=sys.stderr)
        return 65
    try:
        rows = list(engine.run(plan, vector))
    except (KeyError, TypeError, ValueError) as exc:
        print(f"event error: {exc}", file=sys.stderr)
        return 66
    for row in rows:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
