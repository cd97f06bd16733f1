"""Row patterns back to text (the parser reads the text back to an equal pattern)."""
from __future__ import annotations

from cepkit.front.sql import ast as S


def pattern_text(p: S.Pattern) -> str:
    if isinstance(p, S.PVar):
        return p.name
    if isinstance(p, S.PEmpty):
        return "()"
    if isinstance(p, S.PAnchor):
        return p.kind
    if isinstance(p, S.PConcat):
        return " ".join(_atom(i, concat=True) for i in p.items)
    if isinstance(p, S.PAlt):
        return " | ".join(_atom(i, concat=False) for i in p.items)
    if isinstance(p, S.PPermute):
        return "PERMUTE(" + ", ".join(pattern_text(i) for i in p.items) + ")"
    if isinstance(p, S.PExclude):
        return "{- " + pattern_text(p.item) + " -}"
    if isinstance(p, S.PQuant):
        return _atom(p.item, quant=True) + quantifier_text(p)
    raise TypeError(p)


def quantifier_text(p: S.PQuant) -> str:
    lo, hi = p.low, p.high
    if (lo, hi) == (0, None):
        q = "*"
    elif (lo, hi) == (1, None):
        q = "+"
    elif (lo, hi) == (0, 1):
        q = "?"
    elif hi is None:
        q = f"{{{lo},}}"
    elif lo == hi:
        q = f"{{{lo}}}"
    else:
        q = f"{{{lo if lo else ''},{hi}}}"
    return q + ("?" if p.reluctant else "")


def _atom(p: S.Pattern, concat: bool = False, quant: bool = False) -> str:
    text = pattern_text(p)
    if isinstance(p, S.PAlt) or (isinstance(p, S.PConcat) and (quant or concat)) \
            or (isinstance(p, S.PQuant) and quant):
        return f"({text})"
    return text
