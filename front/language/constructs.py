"""The constructs a SASE+ / SASE RFID query uses, by the names engines declare in core/registry.py."""
from __future__ import annotations

import dataclasses

from cepkit.front.language import ast as A

SASE1_DIALECT = "SASE 1.0 dialect"  # the construct name of a query read with SASE 1.0's behaviour


def constructs(q: A.Query, selection: str = "all", **_options) -> dict[str, A.Pos]:
    """Construct names, each with where it first occurs: SEQ, Kleene closure, negation, AND(...), OR(...),
    ANY(...), nested pattern, partition, window, aggregate, RETURN, RFID dialect, SASE 1.0 dialect, the strategy as spelled in
    the language (e.g. skip_till_next_match), non-overlap output."""
    out: dict[str, A.Pos] = {}

    def add(name: str, pos: A.Pos | None) -> None:
        out.setdefault(name, pos or q.pos)

    if q.dialect == "sase1":
        add(SASE1_DIALECT, q.pos)  # first: an engine that does not run the dialect names it
    add("SEQ", q.pattern.pos)
    add(q.strategy.value, q.pos)
    for c in A.leaves(q.pattern):
        if c.kleene:
            add("Kleene closure", c.pos)
        if c.negated:
            add("negation", c.pos)
        if c.any_of:
            add("ANY(...)", c.pos)
    for node in _pattern_nodes(q.pattern):
        if isinstance(node, A.Conj):
            add("AND(...)", node.pos)
        elif isinstance(node, A.Disj):
            add("OR(...)", node.pos)
        elif node is not q.pattern and isinstance(node, A.Seq):
            add("nested pattern", node.pos)
    if not isinstance(q.pattern, A.Seq):
        add("nested pattern", q.pattern.pos)
    exprs = [q.where] if q.where is not None else []
    exprs += [r.expr for r in q.returns]
    for e in _expr_nodes(exprs):
        if isinstance(e, A.EquivTest):
            add("partition", e.pos)
        elif isinstance(e, A.Agg):
            add("aggregate", e.pos)
    if q.window is not None:
        add("window", q.window.pos)
    if q.returns:
        add("RETURN", q.returns[0].pos)
    if q.dialect == "rfid":
        add("RFID dialect", q.pos)
    if selection == "non_overlap":
        add("non-overlap output (--selection non-overlap)", q.pos)
    return out


def _pattern_nodes(node):
    yield node
    for child in node.children():
        yield from _pattern_nodes(child)


def _expr_nodes(exprs):
    stack = list(exprs)
    while stack:
        e = stack.pop()
        yield e
        if dataclasses.is_dataclass(e):
            for f in dataclasses.fields(e):
                v = getattr(e, f.name)
                if isinstance(v, tuple):
                    stack.extend(x for x in v if dataclasses.is_dataclass(x))
                elif dataclasses.is_dataclass(v) and not isinstance(v, A.Pos):
                    stack.append(v)
