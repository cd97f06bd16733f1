"""The summary of a run: passed / failed / refused / errors per language, per origin (conformance/origin.py) and
per construct (a vector counts under every construct its query uses), and the refusals by the construct the
engine named."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from cepkit.conformance.kit.outcome import ERROR, FAILED, PASSED, REFUSED

STATUSES = (PASSED, FAILED, REFUSED, ERROR)
HEADINGS = ("passed", "failed", "refused", "errors")


@dataclass(frozen=True)
class Tally:
    """One vector's result as the summary counts it."""

    language: str
    status: str                        # passed | failed | refused | error | skipped (the engine is missing)
    constructs: tuple[str, ...] = ()
    refused: str | None = None         # the construct the engine named
    origin: str = "?"                  # the kind of the vector's origin (trino, paper, ...)


def _table(title: str, rows: list[tuple[str, Counter]]) -> list[str]:
    width = max([len(title)] + [len(name) for name, _ in rows])
    out = [f"{title:<{width}}  " + "  ".join(f"{h:>7}" for h in HEADINGS)]
    for name, c in rows:
        out.append(f"{name:<{width}}  " + "  ".join(f"{c[s]:>7}" for s in STATUSES))
    return out


def summary(tallies: list[Tally], engine_label: str, seconds: float) -> str:
    by_language: dict[str, Counter] = {}
    by_origin: dict[str, Counter] = {}
    by_construct: dict[tuple[str, str], Counter] = {}
    refused: Counter = Counter()
    for t in tallies:
        by_language.setdefault(t.language, Counter())[t.status] += 1
        by_origin.setdefault(t.origin, Counter())[t.status] += 1
        for c in t.constructs:
            by_construct.setdefault((t.language, c), Counter())[t.status] += 1
        if t.status == REFUSED:
            refused[(t.language, t.refused or "?")] += 1
    total = Counter(t.status for t in tallies)
    lines = [f"cepkit conformance: {engine_label}: {len(tallies)} vectors in {seconds:.1f} s", ""]
    lines += _table("language", sorted(by_language.items())) + [""]
    lines += _table("origin", sorted(by_origin.items())) + [""]
    lines += _table("construct", [(f"{lang}: {name}", c) for (lang, name), c in sorted(by_construct.items())])
    if refused:
        lines += ["", "refused, by the construct the engine named:"]
        lines += [f"  {lang}: {name}: {n}" for (lang, name), n in sorted(refused.items())]
    skipped = f", {total['skipped']} skipped" if total["skipped"] else ""
    lines += ["", f"{total[PASSED]} passed, {total[FAILED]} failed, {total[REFUSED]} refused, {total[ERROR]} errors"
              f"{skipped}"]
    return "\n".join(lines)
