"""Write matches as JSON lines, CSV, Parquet or a text table."""
from __future__ import annotations

import json
import sys
from typing import Any, Sequence

import pandas as pd

from reference.errors import CepkitError
from reference.match import Match, plain


class OutputError(CepkitError):
    """The matches could not be written where the user asked."""

    exit_code = 1


def matches_frame(matches: Sequence[Match], variables: Sequence[str], returns: Sequence[str]) -> pd.DataFrame:
    """One row per match: a list-of-ids column per variable, ts, then the RETURN fields."""
    rows = []
    for m in matches:
        b = m.binding_dict
        row: dict[str, Any] = {v: [plain(i) for i in b.get(v, ())] for v in variables}
        row["ts"] = m.ts
        payload = dict(m.payload)
        row.update({name: plain(payload.get(name)) for name in returns})
        rows.append(row)
    return pd.DataFrame(rows, columns=list(variables) + ["ts"] + list(returns))


def write_matches(matches: Sequence[Match], fmt: str, output: str | None, program: Any) -> None:
    variables = list(program.variables)
    returns = [r.name for r in program.query.returns]
    if fmt == "parquet" and not output:
        raise OutputError("--format parquet needs --output PATH")
    try:
        if fmt == "jsonl":
            text = "".join(json.dumps(m.to_json(), default=str) + "\n" for m in matches)
            _write_text(text, output)
            return
        frame = matches_frame(matches, variables, returns)
        if fmt == "parquet":
            frame.to_parquet(output, index=False)
        elif fmt == "csv":
            flat = frame.copy()
            for v in variables:
                flat[v] = [" ".join(str(i) for i in ids) for ids in flat[v]]
            _write_text(flat.to_csv(index=False), output)
        else:
            shown = frame.copy()
            for v in variables:
                shown[v] = [",".join(str(i) for i in ids) for ids in shown[v]]
            _write_text((shown.to_string(index=False) if len(shown) else "(no matches)") + "\n", output)
    except OSError as exc:
        raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None


def _write_text(text: str, output: str | None) -> None:
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
