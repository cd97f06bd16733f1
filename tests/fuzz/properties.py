"""The fuzz properties, each returning the outcome and what is wrong with it (None when it holds)."""
from __future__ import annotations

import json
from functools import lru_cache

from tests.fuzz.driver import Outcome, run_case
from tests.fuzz.formats import serialize
from tests.fuzz.seeds import Seed
from tests.fuzz.strategies import INVALID, Case, usage_error


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def run(case: Case) -> Outcome:
    return run_case(case.lang, case.query, case.events_name, case.events, case.args)


def not_json(out: Outcome, args: tuple[str, ...]) -> str | None:
    """The first JSON-lines output line that strict JSON refuses (bare NaN / Infinity), if any."""
    if out.code != 0 or ("--format" in args and args[args.index("--format") + 1:][:1] != ["jsonl"]):
        return None
    for line in out.stdout.splitlines():
        try:
            json.loads(line, parse_constant=_no_constant)
        except ValueError:
            return line[:200]
    return None


def well_handled(case: Case) -> tuple[Outcome, str | None]:
    """Exit 0, or 2 / 3 / 4 naming what is wrong; never a traceback, a hang or exit 1; JSON output is JSON."""
    out = run(case)
    if out.failed:
        return out, out.signature()
    bad = not_json(out, case.args)
    if bad is not None:
        return out, f"output is not JSON: {bad[:80]}"
    return out, None


@lru_cache(maxsize=None)
def baseline(seed: Seed, fmt: str) -> Outcome:
    """The unchanged seed's run with its events in `fmt`."""
    return run_case(seed.lang, seed.query.encode(), f"events.{fmt}", serialize(seed.events, fmt), seed.args)


def usage_refused(case: Case) -> tuple[Outcome, str | None]:
    """As well_handled; and a value wrong by itself (--ts-unit fortnight, --sigma abc) is exit 2."""
    out, problem = well_handled(case)
    extra = case.args[len(case.seed.args):] if case.seed else case.args
    if problem is None and usage_error(extra) and out.code != 2:
        opts = " ".join(k for k, v in zip(extra, extra[1:]) if v in INVALID.get(k, ()))
        return out, f"usage error ({opts}) gave exit {out.code}, not 2"
    return out, problem


def refused(case: Case) -> tuple[Outcome, str | None]:
    """A changed valid input: exit 3 (2 or 3 when a column is gone) naming the row or column, or exit 0
    with the unchanged answer (a row the query never read); never another answer."""
    assert case.seed is not None
    fmt = case.events_name.removeprefix("events.")
    base = baseline(case.seed, fmt)
    out = run(case)
    if out.failed:
        return out, out.signature()
    allowed = (2, 3) if " drop-column " in case.how else (3,)
    if out.code in allowed:
        return out, None
    if out.code == 0 and base.code == 0 and out.stdout == base.stdout:
        return out, None
    kind = case.how.split()[2]
    if out.code == 0:
        return out, f"silently changed answer ({fmt} {kind}): exit 0 and another output"
    return out, f"changed input ({fmt} {kind}) gave exit {out.code}, not 3"
