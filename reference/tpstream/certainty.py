"""Knowledge about situations at an event time t (§5.8): started ones have ts <= t; te is known once
te <= t, otherwise it is only known to be > t. A constraint is certain when it holds for every
completion of the unknown end times."""
from __future__ import annotations

from typing import Iterable

from cepkit.front.tpstream import allen
from cepkit.reference.tpstream.bind import Stream
from cepkit.reference.tpstream.situations import Situation


def known_te(s: Situation, t: int) -> int | None:
    """s.te if it is known at t, else None."""
    return s.te if s.te is not None and s.te <= t else None


def visible(s: Situation, stream: Stream, t: int) -> bool:
    """Whether s may take part in a match at t: started, and its duration constraint certain (a
    maximum waits for the end; a minimum alone needs t - ts >= minimum, spec/004 A9)."""
    if s.ts > t:
        return False
    te = known_te(s, t)
    if te is not None:
        return stream.duration_ok(te - s.ts)
    return stream.dmax is None and t - s.ts >= stream.dmin


def certain(relations: Iterable[str], a: Situation, b: Situation, t: int) -> bool:
    """For every completion of unknown end times (> t, so above every known endpoint), `a R b` for some R.

    With one end unknown the order of endpoints is fixed (t + 1 stands for it); with two unknown, the
    ends may come in either order or together.
    """
    rels = tuple(relations)
    ae, be = known_te(a, t), known_te(b, t)
    if ae is None and be is None:
        cases = [(t + 1, t + 1), (t + 1, t + 2), (t + 2, t + 1)]
    else:
        cases = [(t + 1 if ae is None else ae, t + 1 if be is None else be)]
    return all(any(allen.holds(r, (a.ts, x), (b.ts, y)) for r in rels) for x, y in cases)
