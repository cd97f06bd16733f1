"""The verdict on one vector: passed, failed, refused or an error, with what a reader needs to see why."""
from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass

from cepkit.conformance.harness import Case
from cepkit.conformance.kit.answers import Answer, Crash, Missing, Raised, Refusal
from cepkit.conformance.kit.protocol import vector_of

PASSED, FAILED, REFUSED, ERROR, SKIPPED = "passed", "failed", "refused", "error", "skipped"


@dataclass(frozen=True)
class Verdict:
    """What the kit found on one vector (plain data: it crosses from the process that ran the engine)."""

    status: str                  # passed | failed (a wrong answer) | refused | error (the protocol broken) |
                                 # skipped (the engine cannot run here)
    detail: str = ""             # why it failed (expected vs actual), what was refused, what broke
    refused: str | None = None   # the construct the engine named
    rows_text: str = ""          # an outside engine's rows as it wrote them (the first lines)


def judge(case: Case, answer: Answer, outside: bool, strict_types: bool = False) -> Verdict:
    """The verdict on an answer. A cepkit engine's error is judged by the vector's own error check; an outside
    engine passes an expected-error vector by reporting an error of the vector's kind (query or event),
    whatever its message. Rows are judged by the vector's check, numbers by value unless `strict_types`."""
    if isinstance(answer, Refusal):
        return Verdict(REFUSED, answer.message, answer.construct)
    if isinstance(answer, Crash):
        return Verdict(ERROR, answer.message)
    if isinstance(answer, Missing):
        return Verdict(SKIPPED, answer.reason)
    if isinstance(answer, Raised):
        if case.error is None:
            return Verdict(FAILED, f"unexpected {answer.kind} error: {answer.message}")
        if outside or answer.error is None:
            if answer.kind == case.error_kind:
                return Verdict(PASSED)
            return Verdict(FAILED, f"expected a {case.error_kind} error, got a {answer.kind} error: {answer.message}")
        try:
            case.error(answer.error)
        except AssertionError as exc:
            return Verdict(FAILED, f"the error is not the expected one: {exc}")
        return Verdict(PASSED)
    table = answer.table
    if case.error is not None:
        what = f"a {case.error_kind} error" if case.error_kind else "an error"
        return Verdict(FAILED, f"expected {what}, got {len(table)} match rows")
    check = case.check if strict_types or case.values_check is None else case.values_check
    try:
        check(table)
    except AssertionError as exc:
        return Verdict(FAILED, str(exc))
    except Exception as exc:  # noqa: BLE001 - rows the check cannot even read (a missing column)
        return Verdict(ERROR, f"the rows do not have the vector's shape ({type(exc).__name__}: {exc})")
    return Verdict(PASSED)


def describe(case: Case, verdict: Verdict, max_events: int = 40) -> str:
    """A failure in full: the vector (title, source, file, query, options, events) and why it failed."""
    v = vector_of(case)
    lines = [f"{case.kit_language}:{case.id}" + (f" - {case.title}" if case.title else ""),
             f"  source: {case.source or '(not given)'}"]
    if v.origin:
        lines.append(f"  origin: {v.origin}")
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
    lines.append("  why:\n" + textwrap.indent(verdict.detail.rstrip(), "    "))
    if verdict.rows_text:
        lines.append("  the engine's rows:\n" + textwrap.indent(verdict.rows_text.rstrip(), "    "))
    return "\n".join(lines)
