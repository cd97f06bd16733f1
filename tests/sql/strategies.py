"""Hypothesis strategies for row patterns, and independent translations used by the differential tests."""
from __future__ import annotations

from itertools import permutations

from hypothesis import strategies as st

from reference.sql import ast as S

VARS = ("A", "B", "C")


def patterns(vars=VARS, anchors=True, extras=True, max_leaves=6):
    leaf = st.sampled_from(vars).map(S.PVar)
    if anchors:
        leaf = leaf | st.sampled_from(["^", "$"]).map(S.PAnchor)
    if extras:
        leaf = leaf | st.just(S.PEmpty())

    def grow(children):
        quant = st.tuples(children, st.sampled_from([(0, None), (1, None), (0, 1), (2, 2), (1, 2), (0, 2), (2, None)]),
                          st.booleans()).map(lambda t: S.PQuant(t[0], t[1][0], t[1][1], t[2]))
        opts = [st.lists(children, min_size=2, max_size=3).map(lambda xs: S.PConcat(tuple(xs))),
                st.lists(children, min_size=2, max_size=3).map(lambda xs: S.PAlt(tuple(xs))),
                quant]
        if extras:
            opts.append(st.lists(children, min_size=2, max_size=3).map(lambda xs: S.PPermute(tuple(xs))))
            opts.append(children.map(S.PExclude))
        return st.one_of(*opts)

    return st.recursive(leaf, grow, max_leaves=max_leaves)


def to_python_re(p: S.Pattern, atom) -> str:
    """The pattern as a Python `re` regex, given how one variable is written (`atom(var)`)."""
    if isinstance(p, S.PVar):
        return atom(p.name)
    if isinstance(p, S.PEmpty):
        return ""
    if isinstance(p, S.PAnchor):
        return r"\A" if p.kind == "^" else r"\Z"
    if isinstance(p, S.PConcat):
        return "".join(f"(?:{to_python_re(i, atom)})" for i in p.items)
    if isinstance(p, S.PAlt):
        return "|".join(f"(?:{to_python_re(i, atom)})" for i in p.items)
    if isinstance(p, S.PPermute):
        return "|".join("".join(f"(?:{to_python_re(p.items[i], atom)})" for i in order)
                        for order in permutations(range(len(p.items))))
    if isinstance(p, S.PExclude):
        return f"(?:{to_python_re(p.item, atom)})"
    if isinstance(p, S.PQuant):
        lo, hi = p.low, p.high
        q = "{%d,%s}" % (lo, "" if hi is None else hi)
        return f"(?:{to_python_re(p.item, atom)}){q}{'?' if p.reluctant else ''}"
    raise TypeError(p)
