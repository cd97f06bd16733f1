"""Hypothesis strategies for AFA tests: small random AFAs (Python API) and disordered streams."""
from __future__ import annotations

from hypothesis import strategies as st

from cepkit.front.afa.model import INF, Afa, Arc, Lifetime
from cepkit.front.afa.stream import ArcDelete, ArcInsert, Event, Insert, Punctuate, Retract

TYPES = "ABCX"


def _fence(etype, cond):
    op, k = cond if cond else (None, None)

    def f(e, r):
        if etype is not None and (e is None or e.get("type") != etype):
            return False
        if op == "<":
            return r < k
        if op == ">":
            return r > k
        if op == "=":
            return r == k
        return True

    return f


def _transfer(kind):
    if kind is None:
        return None
    if kind == "+v":
        return lambda e, r: r + (e.get("v") or 0)
    if kind == "+1":
        return lambda e, r: r + 1
    if kind == "-1":
        return lambda e, r: r - 1
    return lambda e, r: e.get("v") or 0  # "set v"


_cond = st.one_of(st.none(), st.tuples(st.sampled_from("<>="), st.integers(0, 3)))


@st.composite
def arcs_st(draw, n_states: int, prefix: str, allow_eps: bool = True, count=(1, 6)):
    arcs = []
    for i in range(draw(st.integers(*count))):
        eps = allow_eps and draw(st.integers(0, 5)) == 0
        if eps:
            src = draw(st.integers(0, n_states - 2))
            dst = draw(st.integers(src + 1, n_states - 1))  # forward only: no ε-cycle
            arcs.append(Arc(f"{prefix}{i}", src, dst, _fence(None, draw(_cond)),
                            _transfer(draw(st.sampled_from([None, "+1"]))), epsilon=True))
        else:
            src = draw(st.integers(0, n_states - 1))
            dst = draw(st.integers(0, n_states - 1))
            etype = draw(st.one_of(st.none(), st.sampled_from(TYPES)))
            arcs.append(Arc(f"{prefix}{i}", src, dst, _fence(etype, draw(_cond)),
                            _transfer(draw(st.sampled_from([None, "+v", "+1", "-1", "set v"])))))
    return arcs


@st.composite
def afas(draw, standby: bool = False):
    n = draw(st.integers(2, 4))
    arcs = draw(arcs_st(n, "a"))
    finals = draw(st.sets(st.integers(1, n - 1), min_size=1))
    spare = draw(arcs_st(n, "s", allow_eps=False, count=(1, 3))) if standby else []
    return Afa(states=tuple(range(n)), start=0, finals=frozenset(finals), arcs=tuple(arcs), initial=0,
               standby=tuple(spare), name="random")


@st.composite
def event_pools(draw, max_events: int = 8):
    les = draw(st.lists(st.integers(0, 20), min_size=1, max_size=max_events, unique=True))
    uniform = draw(st.sampled_from([3, 5, 100, None]))
    pool = []
    for le in les:
        re_ = le + uniform if uniform is not None else le + draw(st.integers(1, 10))
        pool.append(Event.make(le, re_, {"type": draw(st.sampled_from(TYPES)), "v": draw(st.integers(0, 3))}))
    return pool


@st.composite
def disordered_streams(draw, max_events: int = 8, retractions: bool = True, punctuations: bool = True):
    """Insertions in random order, retractions (and re-insertions) of live events, valid punctuations."""
    pool = draw(event_pools(max_events))
    live: set = set()
    elements = []
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=len(pool), max_size=2 * len(pool) + 2))
    picks = picks + [i for i in range(len(pool)) if i not in picks]
    for i in picks:
        e = pool[i]
        if e in live:
            if retractions:
                elements.append(Retract(e))
                live.discard(e)
        else:
            elements.append(Insert(e))
            live.add(e)
    if punctuations:
        for _ in range(draw(st.integers(0, 3))):
            pos = draw(st.integers(0, len(elements)))
            later = [x.event.le for x in elements[pos:] if isinstance(x, (Insert, Retract))]
            t = min(later) if later else max(e.le for e in pool) + 1
            t -= draw(st.integers(0, 2))
            elements.insert(pos, Punctuate(t))
    return elements


@st.composite
def dynamic_streams(draw, afa: Afa, max_events: int = 7):
    """A disordered stream with arc insertions and deletions (default mode and explicit lifetimes)."""
    elements = draw(disordered_streams(max_events, punctuations=draw(st.booleans())))
    names = [a.name for a in afa.standby + afa.arcs]
    by_name = {a.name: a for a in afa.standby + afa.arcs}
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(elements)))
        name = draw(st.sampled_from(names))
        if draw(st.booleans()):
            if draw(st.booleans()):
                lifetime = None
            else:
                lo = draw(st.integers(-1, 21))
                hi = draw(st.one_of(st.just(INF), st.integers(lo + 1, 25)))
                lifetime = Lifetime(lo, hi)
            elements.insert(pos, ArcInsert(by_name[name], lifetime))
        else:
            elements.insert(pos, ArcDelete(name, explicit=draw(st.booleans())))
    return elements


@st.composite
def ignorable_afas(draw):
    """Random AFAs with one or two ignorable self-loops (identity transfer) and parallel copies."""
    afa = draw(afas())
    extra = []
    for i in range(draw(st.integers(1, 2))):
        q = draw(st.integers(0, len(afa.states) - 1))
        f = _fence(draw(st.one_of(st.none(), st.sampled_from(TYPES))), draw(_cond))
        extra.append(Arc(f"i{i}", q, q, f, None))
        if draw(st.integers(0, 3)) == 0:
            extra.append(Arc(f"i{i}twin", q, q, f, None))
    return Afa(states=afa.states, start=afa.start, finals=afa.finals, arcs=afa.arcs + tuple(extra),
               initial=afa.initial, name="random-ignorable")
