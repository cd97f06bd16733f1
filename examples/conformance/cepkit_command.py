#!/usr/bin/env python3
"""cepkit's own reference engine behind the command protocol of the conformance kit (docs/conformance.md):
what a command for another engine does, in a few lines. It reads the case file (its last argument), runs the
query over the events with `cepkit.run`, and writes each match with `Match.to_json` as one JSON line.

    cepkit conformance --command "python examples/conformance/cepkit_command.py"

Exit 0 with the matches; 77 with the construct on stderr when the engine refuses one; 65 for a query error,
66 for an event error."""
import json
import sys
import warnings
from pathlib import Path

import pandas as pd

import cepkit
from cepkit.core.errors import CepkitWarning, EventError, QueryError, Unsupported

ENGINE = "reference"
NON_FINITE = ("Infinity", "-Infinity", "NaN")


def events_of(case: dict):
    """The events in the form cepkit.run reads for the language: AFA rows as they are, the others as a
    DataFrame (a pair of them for a two-input window JOIN)."""
    if case["language"] == "afa":
        return case["events"]
    if case["right_events"] is not None:
        return pd.DataFrame(case["events"]), pd.DataFrame(case["right_events"])
    return pd.DataFrame(case["events"])


def main(case_file: str) -> int:
    case = json.loads(Path(case_file).read_text(encoding="utf-8"))
    warnings.simplefilter("ignore", CepkitWarning)
    try:
        options = {k: float(v) if v in NON_FINITE else v for k, v in case["options"].items()}  # sigma: "Infinity"
        table = cepkit.run(case["query"], events_of(case), language=case["language"], engine=ENGINE,
                           read_options=case["read_options"], **options)
    except Unsupported as exc:
        print(exc.construct, file=sys.stderr)
        return 77
    except QueryError as exc:
        print(f"query error: {exc}", file=sys.stderr)
        return 65
    except EventError as exc:
        print(f"event error: {exc}", file=sys.stderr)
        return 66
    for match in table:
        print(json.dumps(match.to_json(), default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
