"""The verdict on one vector: passed, failed or refused, with what a reader needs to see why."""
from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass

from cepkit.conformance.harness import Case
from cepkit.conformance.kit.answers import Answer, Crash, Raised, Refusal
from cepkit.conformance.kit.protocol import vector_of

PASSED, FAILED, REFUSED = "passed", "failed", "refused"


@dataclass(frozen=True)
class Outcome:
    case: Case
    status: str                  # passed | failed | refused
    detail: str = ""             # why it failed (expected vs actual) or what was refused
    crashed: bool = False        # failed by breaking the protocol, not by a wrong answer (JUnit <error>)
    refused: str | None = None   # the construct the engine named
    seconds: float = 0.0
    constructs: tuple[str, ...] = ()
    rows_text: str = ""          # an outside engine's rows as it wrote them


def judge(case: Case, answer: Answer, outside: bool) -> tuple[str, str, bool, str | None]:
    """(status, detail, crashed, refused construct) of an answer. A cepkit engine's error is judged by the
    vector's own error check; an outside engine passes an expected-error vector by reporting an error of
    the vector's kind (query or event), whatever its message."""
    if isinstance(answer, Refusal):
        return REFUSED, answer.message, False, answer.construct
    if isinstance(answer, Crash):
        return FAILED, answer.message, True, None
    if isinstance(answer, Raised):
        if case.error is None:
            return FAILED, f"unexpected {answer.kind} error: {answer.message}", False, None
        if outside or answer.error is None:
            if answer.kind == case.error_kind:
                return PASSED, "", False, None
            return FAILED, f"expected a {case.error_kind} error, got a {answer.kind} error: {answer.message}", False, None
        try:
            case.error(answer.error)
        except AssertionError as exc:
            return FAILED, f"the error is not the expected one: {exc}", False, None
        return PASSED, "", False, None
    table = answer.table
    if case.error is not None:
        what = f"a {case.error_kind} error" if case.error_kind else "an error"
        return FAILED, f"expected {what}, got {len(table)} match rows", False, None
    try:
        case.check(table)
    except AssertionError as exc:
        return FAILED, str(exc), False, None
    except Exception as exc:  # noqa: BLE001 - rows the check cannot even read (a missing column)
        return FAILED, f"the rows do not have the vector's columns ({type(exc).__name__}: {exc})", True, None
    return PASSED, "", False, None


def describe(outcome: Outcome, max_events: int = 40) -> str:
    """A failure in full: the vector (title, source, file, query, options, events) and why it failed."""
    case = outcome.case
    v = vector_of(case)
    lines = [f"{case.language}:{case.id}" + (f" - {case.title}" if case.title else ""),
             f"  source: {case.source or '(not given)'}"]
    if case.path:
        lines.append(f"  file: {case.path}")
    lines.append("  query:\n" + textwrap.indent(case.query.rstrip(), "    "))
    if case.options:
        lines.append(f"  options: {json.dumps(case.options, default=str)}")
    if v.read_options:
        lines.append(f"  read options: {json.dumps(v.read_options, default=str)}")
    for name, rows in (("events", v.events), ("right events", v.right_events)):
        if rows is None:
            continue
        lines.append(f"  {name} ({len(rows)}):")
        lines += [f"    {json.dumps(r, default=str)}" for r in rows[:max_events]]
        if len(rows) > max_events:
            lines.append(f"    ... {len(rows) - max_events} more")
    lines.append("  why:\n" + textwrap.indent(outcome.detail.rstrip(), "    "))
    if outcome.rows_text:
        lines.append("  the engine's rows:\n" + textwrap.indent(outcome.rows_text.rstrip(), "    "))
    return "\n".join(lines)
