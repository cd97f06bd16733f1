"""The frequency order of a Chain NFA (spec/001 §4.8): given by the user, or estimated from a stream prefix.

The order lists positive variables from the rarest to the most frequent. Kleene variables always go last
(their pseudo-type "B+" is the most frequent, §4.6). A name in a user order is a variable or an event
type (a type stands for every variable of that type, in text order).
"""
from __future__ import annotations

import difflib
from typing import Callable, Sequence

from cepkit.core.errors import QueryError
from cepkit.front.pattern.model import Branch, Pattern

DEFAULT_PREFIX = 1000  # events counted to estimate rates when no order is given


def parse_order(order: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """`'C,B,A'` or `['C', 'B', 'A']` as a tuple of names (None: estimate)."""
    if order is None:
        return None
    names = [n.strip() for n in order.split(",")] if isinstance(order, str) else [str(n).strip() for n in order]
    if not names or any(not n for n in names):
        raise QueryError(f"a frequency order is a comma-separated list of event types or variables, got {order!r}")
    return tuple(names)


def resolve_names(pattern: Pattern, names: tuple[str, ...]) -> list[str]:
    """The variables a user order names, in its order; an unknown name is a QueryError."""
    variables = pattern.variables
    types_of = {}
    for b in pattern.branches:
        for v in b.positives:
            for t in v.types:
                types_of.setdefault(t.lower(), []).append(v.name)
    out: list[str] = []
    for name in names:
        if name in variables:
            hits = [name]
        else:
            hits = types_of.get(name.lower())
        if not hits:
            known = list(variables) + sorted({t for b in pattern.branches for v in b.positives for t in v.types})
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise QueryError(f"the frequency order names '{name}', which is neither an event type nor a "
                             f"variable of the pattern{hint}", expected=known)
        out.extend(h for h in dict.fromkeys(hits) if h not in out)
    return out


def chain_order(branch: Branch, preferred: list[str], rate: Callable[[str], int] | None = None) -> tuple[str, ...]:
    """The branch's positive variables: those named in `preferred` in that order, the rest by ascending
    estimated rate (ties by text order); Kleene variables moved to the end, keeping their relative order."""
    names = [v.name for v in branch.positives]
    listed = [n for n in preferred if n in names]
    rest = [n for n in names if n not in listed]
    if rate is not None:
        rest.sort(key=lambda n: (rate(n), names.index(n)))
    seq = listed + rest
    kleene = {v.name for v in branch.positives if v.kleene}
    return tuple([n for n in seq if n not in kleene] + [n for n in seq if n in kleene])
