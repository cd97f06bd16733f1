"""The SASE dialects a SASE text can be read in, and how a query is put in one.

"sase+" (the default for `.sase` files): the SIGMOD'08 paper's semantics. "sase1" (`.query` files, or
`--dialect sase1`): the SASE 1.0 engine's behaviour (docs/semantics.md S1): a Kleene closure ends at the
first event that satisfies the next component, its three strategy names, and its window `last - first <= W`.
"rfid" is not chosen here: the `EVENT ...` form sets it.
"""
from __future__ import annotations

import dataclasses

from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A

DIALECTS = ("sase+", "sase1")
SASE1_SUFFIX = ".query"  # SASE 1.0's query files
SASE1_STRATEGIES = {A.Strategy.PARTITION_CONTIGUITY: "partition-contiguity",
                    A.Strategy.SKIP_TILL_NEXT_MATCH: "skip-till-next-match",
                    A.Strategy.SKIP_TILL_ANY_MATCH: "skip-till-any-match"}


def dialect_of_path(path: str | None) -> str | None:
    """"sase1" for a SASE 1.0 query file (`.query`), else None (the text's own dialect)."""
    return "sase1" if path is not None and str(path).lower().endswith(SASE1_SUFFIX) else None


def with_dialect(q: A.Query, dialect: str | None) -> A.Query:
    """The query read in the dialect (None: as parsed); QueryError for a query the dialect cannot express."""
    if dialect is None or dialect == q.dialect:
        return check_sase1(q) if q.dialect == "sase1" else q
    if dialect not in DIALECTS:
        raise QueryError(f"unknown SASE dialect '{dialect}'", expected=list(DIALECTS))
    if q.dialect == "rfid":
        raise QueryError("a SASE RFID query (EVENT ...) has its own dialect; write PATTERN ... to read it as "
                         f"{dialect}", q.pos.line or None, q.pos.column or None)
    inclusive = dialect == "sase1"
    window = dataclasses.replace(q.window, inclusive=inclusive) if q.window is not None else None
    conventions = A.SASE1_CONVENTIONS if inclusive else A.SASE_CONVENTIONS
    out = dataclasses.replace(q, dialect=dialect, window=window, conventions=conventions)
    return check_sase1(out) if inclusive else out


def check_sase1(q: A.Query) -> A.Query:
    """QueryError for what SASE 1.0 cannot run: a pattern other than SEQ of two components or more, no strategy or
    strict contiguity, partition-contiguity without [attr], a second [attr] after a Kleene closure first under
    skip-till-any-match (docs/semantics.md S1.6), no WITHIN or a count window, two Kleene closures, a trailing one."""
    def fail(msg: str, pos: A.Pos) -> QueryError:
        return QueryError(f"SASE 1.0 dialect: {msg}", pos.line or None, pos.column or None)

    if not A.is_flat_seq(q.pattern):
        raise fail("the pattern must be SEQ(...) of single event types", q.pattern.pos)
    if len(q.pattern.components) < 2:
        raise fail("the pattern needs at least two components (SASE 1.0 never completes a run of one)",
                   q.pattern.pos)
    if q.strategy_defaulted or q.strategy not in SASE1_STRATEGIES:
        what = "no event selection strategy" if q.strategy_defaulted else q.strategy.value.replace("_", "-")
        raise QueryError(f"SASE 1.0 dialect: {what}: SASE 1.0 runs "
                         + ", ".join(SASE1_STRATEGIES.values()), q.pos.line or None, q.pos.column or None,
                         expected=list(SASE1_STRATEGIES.values()))
    keys = partition_attrs(q)
    positive = q.pattern.positive
    if (len(keys) > 1 and q.strategy is A.Strategy.SKIP_TILL_ANY_MATCH and positive[0].kleene
            and len(positive) > 2):
        raise fail(f"a second partition attribute ([{keys[1]}]) after a Kleene closure first "
                   f"({positive[0].var}) under skip-till-any-match: SASE 1.0 compares it with the last event "
                   f"taken into {positive[0].var} by any of the runs skip-till-any-match split from one "
                   "another (they share one value vector, Run.clone being shallow), not by the run itself",
                   q.pos)
    if q.strategy is A.Strategy.PARTITION_CONTIGUITY and not keys:
        raise fail("partition-contiguity needs a partition attribute ([attr])", q.pos)
    if q.window is None or q.window.kind != "time":
        raise fail("SASE 1.0 needs WITHIN <time>" + (" (not a count of events)" if q.window else ""),
                   q.window.pos if q.window else q.pos)
    closures = [c for c in q.pattern.positive if c.kleene]
    if len(closures) > 1:
        raise fail(f"one Kleene closure at most ({closures[1].var} is a second): SASE 1.0 keeps one 'closure "
                   "started' flag per run", closures[1].pos)
    last = q.pattern.positive[-1]
    if last.kleene:
        raise fail(f"a Kleene closure cannot end the pattern ({last.var}): SASE 1.0 closes it at the next "
                   "component", last.pos)
    return q


def partition_attrs(q: A.Query) -> list[str]:
    """The [attr] tests among WHERE's top-level conjuncts, in order."""
    out: list[str] = []
    stack = [q.where] if q.where is not None else []
    while stack:
        e = stack.pop(0)
        if isinstance(e, A.And):
            stack[:0] = list(e.items)
        elif isinstance(e, A.EquivTest) and e.value is None and e.attr not in out:
            out.append(e.attr)
    return out


def sase1_where(q: A.Query) -> A.Expr | None:
    """WHERE as SASE 1.0 reads it (docs/semantics.md S1.6): the first top-level [attr] partitions the runs; each
    later one is a predicate on every component after the first, `x.attr = <first component>.attr`. After a
    Kleene closure first it holds vacuously on the event that closes the closure (the second component) and
    compares every later component with the closure's last event."""
    extra = set(partition_attrs(q)[1:])
    if not extra:
        return q.where
    comps = q.pattern.positive
    first = comps[0]

    def predicate(e: A.EquivTest) -> list[A.Expr]:
        def ref(c: A.Component, index: A.Index | None) -> A.AttrRef:
            return A.AttrRef(c.var, e.attr, index, e.pos)
        if first.kleene:  # the one closure: every later component is a singleton
            return [A.Compare("=", ref(c, None), ref(first, A.Index.LAST), e.pos) for c in comps[2:]]
        return [A.Compare("=", ref(c, i), ref(first, None), e.pos) for c in comps[1:]
                for i in ((A.Index.FIRST, A.Index.CURRENT) if c.kleene else (None,))]

    items: list[A.Expr] = []
    stack = [q.where]
    while stack:  # the top-level conjuncts, in order (as partition_attrs reads them)
        e = stack.pop(0)
        if isinstance(e, A.And):
            stack[:0] = list(e.items)
        elif isinstance(e, A.EquivTest) and e.value is None and e.attr in extra:
            items += predicate(e)
        else:
            items.append(e)
    return A.And(tuple(items), q.where.pos)
