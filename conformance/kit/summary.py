"""The terminal summary of a run: the failures in full, then passed / failed / refused per language and per
construct (a vector counts under every construct its query uses), and the refusals by construct named."""
from __future__ import annotations

from collections import Counter

from cepkit.conformance.kit.outcome import FAILED, PASSED, REFUSED, Outcome, describe

STATUSES = (PASSED, FAILED, REFUSED)


def _table(title: str, rows: list[tuple[str, Counter]]) -> list[str]:
    width = max([len(title)] + [len(name) for name, _ in rows])
    out = [f"{title:<{width}}  {'passed':>6}  {'failed':>6}  {'refused':>7}"]
    for name, c in rows:
        out.append(f"{name:<{width}}  {c[PASSED]:>6}  {c[FAILED]:>6}  {c[REFUSED]:>7}")
    return out


def counts(outcomes: list[Outcome]) -> Counter:
    return Counter(o.status for o in outcomes)


def failures(outcomes: list[Outcome]) -> str:
    """Every failed vector in full."""
    return "\n\n".join(f"FAILED {describe(o)}" for o in outcomes if o.status == FAILED)


def summary(outcomes: list[Outcome], engine_label: str, seconds: float) -> str:
    by_language: dict[str, Counter] = {}
    by_construct: dict[tuple[str, str], Counter] = {}
    refused: Counter = Counter()
    for o in outcomes:
        by_language.setdefault(o.case.language, Counter())[o.status] += 1
        for c in o.constructs:
            by_construct.setdefault((o.case.language, c), Counter())[o.status] += 1
        if o.status == REFUSED:
            refused[(o.case.language, o.refused or "?")] += 1
    total = counts(outcomes)
    lines = [f"cepkit conformance: {engine_label}: {len(outcomes)} vectors in {seconds:.1f} s", ""]
    lines += _table("language", sorted(by_language.items())) + [""]
    lines += _table("construct", [(f"{lang}: {name}", c) for (lang, name), c in sorted(by_construct.items())])
    if refused:
        lines += ["", "refused, by the construct the engine named:"]
        lines += [f"  {lang}: {name}: {n}" for (lang, name), n in sorted(refused.items())]
    lines += ["", f"{total[PASSED]} passed, {total[FAILED]} failed, {total[REFUSED]} refused"]
    return "\n".join(lines)
