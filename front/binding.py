"""Bind a query to a stream: event-type names, attribute columns, value checks and the window in ts units."""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from cepkit.core.errors import EventError, QueryError, option_usage
from cepkit.core.events import EventBatch
from cepkit.front.evaluate import as_number
from cepkit.front.kinds import NUMBER, column_kind, value_kind
from cepkit.front.language import ast as A
from cepkit.front.language.printer import expr_to_text
from cepkit.core.units import NANOS

_ORDERING = {"<", "<=", ">", ">="}


@dataclass(frozen=True)
class WindowBound:
    """A window in the stream's own terms: `by` is 'ts' or 'pos'; `strict` means span < size."""

    size: int | Fraction
    by: str
    strict: bool = True

    def inside(self, first_ts: int, first_pos: int, ts: int, pos: int) -> bool:
        span = (ts - first_ts) if self.by == "ts" else (pos - first_pos)
        return span < self.size if self.strict else span <= self.size

    def inside_back(self, last_ts: int, last_pos: int, ts: int, pos: int) -> bool:
        """Whether an earlier event (ts, pos) lies inside the window that ends at the last event."""
        span = (last_ts - ts) if self.by == "ts" else (last_pos - pos)
        return span < self.size if self.strict else span <= self.size


def resolve_type(name: str, present: tuple[str, ...], pos: A.Pos) -> str:
    """The event type in the data that a pattern's type name means: exact match first, then a unique
    case-insensitive one. A name that is absent but close to a present one is a QueryError (a typo);
    an absent name with no close match simply matches nothing."""
    if name in present:
        return name
    folded = [t for t in present if t.lower() == name.lower()]
    if len(folded) == 1:
        return folded[0]
    close = difflib.get_close_matches(name, list(present), n=1, cutoff=0.75)
    if close:
        raise QueryError(f"unknown event type '{name}'; did you mean '{close[0]}'?",
                         pos.line or None, pos.column or None, expected=list(present))
    return name


def window_bound(w: A.Window | None, ts_unit: str | None, bound: str | None = None) -> WindowBound | None:
    """The window converted to the stream's timestamp unit (or positions for EVENTS windows).

    `bound` is the query's `conventions.window_bound` ("strict": span < W, "inclusive": span <= W);
    None reads the window's own flag (which the query's conventions agree with)."""
    if w is None:
        return None
    strict = (not w.inclusive) if bound is None else bound == "strict"
    if w.kind == "events":
        return WindowBound(w.amount, "pos", strict)
    if w.unit is None:
        if ts_unit is not None:
            raise QueryError(f"WITHIN {w.amount} has no time unit, but the timestamps are in {ts_unit}; "
                             f"write the unit, e.g. WITHIN {w.amount} seconds",
                             w.pos.line or None, w.pos.column or None)
        return WindowBound(w.amount, "ts", strict)
    if ts_unit is None:
        raise QueryError(f"WITHIN {w.amount} {w.unit} is a duration, but the event timestamps are plain "
                         f"numbers with no unit; give their unit ({option_usage('ts_unit', 's|ms|us|ns|min|h|d')}) "
                         f"or write WITHIN {w.amount} without a unit to mean timestamp ticks",
                         w.pos.line or None, w.pos.column or None)
    size = Fraction(w.amount) * NANOS[w.unit] / NANOS[ts_unit]
    return WindowBound(int(size) if size.denominator == 1 else size, "ts", strict)


PSEUDO_ATTRIBUTES = frozenset({"ts", "time", "id"})  # readable as x.ts / x.time / x.id without a column


@dataclass
class AttributeUse:
    """How a query reads one attribute: which variables read it, whether as a number, and one reference
    (the numeric one if any) to name in error messages."""

    readers: set[str]
    numeric: bool
    node: A.Expr


def attribute_uses(q: A.Query) -> dict[str, AttributeUse]:
    """Each attribute the query reads, with its readers and whether it is used numerically."""
    uses: dict[str, AttributeUse] = {}
    every_var = {c.var for c in A.leaves(q.pattern)}

    def note(readers: set[str], attr: str, numeric: bool, node: A.Expr) -> None:
        use = uses.get(attr)
        if use is None:
            uses[attr] = AttributeUse(set(readers), numeric, node)
            return
        use.readers |= readers
        if numeric and not use.numeric:
            use.numeric, use.node = True, node

    exprs = ([q.where] if q.where is not None else []) + [r.expr for r in q.returns]
    for root in exprs:
        for node in root.walk():
            if isinstance(node, A.EquivTest):
                note(every_var, node.attr, False, node)
            elif isinstance(node, A.Agg):
                note({node.var}, node.attr, node.func != "count", node)
            elif isinstance(node, (A.BinOp, A.Neg)) or (isinstance(node, A.Compare) and node.op in _ORDERING):
                operands = [node.operand] if isinstance(node, A.Neg) else [node.left, node.right]
                for x in operands:
                    if isinstance(x, A.AttrRef):
                        note({x.var}, x.attr, True, x)
            elif isinstance(node, A.AttrRef):
                note({node.var}, node.attr, False, node)
    return uses


def check_columns(q: A.Query, batch: EventBatch, types: dict[str, str | tuple[str, ...]]) -> None:
    """EventError for a missing attribute column or a non-numeric value where a number is needed.
    `types` maps each variable to its event type (or the tuple of types of an ANY component)."""
    uses = {attr: use for attr, use in attribute_uses(q).items()
            if attr in batch.columns or attr not in PSEUDO_ATTRIBUTES}
    context = {attr: f"{expr_to_text(u.node)} at line {u.node.pos.line}, column {u.node.pos.column} of the query"
               for attr, u in uses.items()}
    batch.require_columns(list(uses), context)
    check_text_literals(q, batch)
    for attr, use in uses.items():
        names = {t for v in use.readers for t in (types[v] if isinstance(types[v], tuple) else (types[v],))}
        codes = [batch.type_code(t) for t in names]
        mask = np.isin(batch.type_codes, [c for c in codes if c is not None])
        if use.numeric:
            batch.require_numeric(attr, mask, f" (compared as a number by {context[attr]})", names)
        elif batch.columns[attr].dtype == object:
            try:  # text that is numbers on every row the query reads is numbers ('5' = 5)
                batch.require_numeric(attr, mask, types=names)
            except EventError:
                pass  # a text attribute: compared as text



def check_text_literals(q: A.Query, batch: EventBatch) -> None:
    """QueryError at the comparison for a number compared with text that is not a number (`a.price < 'abc'`,
    `a.x = 'one'`): it would be false (true for !=) on every event. A quoted number compares as that number
    (`a.id = '1'`, R12); a text attribute compares with text (docs/semantics.md SQ-N1)."""
    exprs = ([q.where] if q.where is not None else []) + [r.expr for r in q.returns]
    for root in exprs:
        for node in root.walk():
            if not isinstance(node, A.Compare):
                continue
            for text, other in ((node.right, node.left), (node.left, node.right)):
                if not (isinstance(text, A.Const) and isinstance(text.value, str)):
                    continue
                if not isinstance(as_number(text.value), str):
                    continue   # a quoted number
                if _kind(other, batch) == NUMBER:
                    raise QueryError(f"'{node.op}' compares a number ({expr_to_text(other)}) with the text "
                                     f"'{text.value}', which is not a number: it would be "
                                     f"{'true' if node.op == '!=' else 'false'} on every event; write a number, or "
                                     "compare a text attribute", node.pos.line or None, node.pos.column or None)


def _kind(e: A.Expr, batch: EventBatch) -> str | None:
    """The kind of an expression's values over the batch (None: unknown)."""
    if isinstance(e, A.Const):
        return value_kind(e.value)
    if isinstance(e, A.AttrRef):
        if e.attr in batch.columns:
            return column_kind(batch.columns[e.attr])
        if e.attr == "id":
            return column_kind(batch.ids)
        return NUMBER if e.attr in PSEUDO_ATTRIBUTES else None
    if isinstance(e, A.Agg):
        if e.func in ("count", "sum", "avg"):
            return NUMBER
        return column_kind(batch.columns[e.attr]) if e.attr in batch.columns else None
    if isinstance(e, (A.LenRef, A.BinOp, A.Neg)):
        return NUMBER
    return None


def bind_batch(state, q: A.Query, batch: EventBatch, types: dict, last_ts: int | None) -> bool:
    """The checks every engine makes when a batch arrives, and the binding of types, window and ts unit.

    `state` carries `types`, `window` and `ts_unit`; `last_ts` is the last timestamp already fed (None
    before the first event). The first batch with events binds the type names and the window; later
    batches must keep timestamps in order and in the same unit. Returns True when this batch bound them.
    """
    if len(batch) and last_ts is not None and int(batch.ts[0]) < last_ts:
        raise EventError(f"timestamps are not in order: {int(batch.ts[0])} comes after {last_ts} from an "
                         f"earlier batch", int(batch.source_rows[0]), "ts")
    first = state.types is None or last_ts is None
    if first:
        state.types = types
        try:
            state.window = window_bound(q.window, batch.ts_unit, q.conventions.window_bound)
        except QueryError:
            if len(batch) or batch.ts_unit is not None:
                raise
            state.window = None  # no events (a header-only file): nothing to bind a duration to (issue 14)
    elif batch.ts_unit != state.ts_unit:
        raise EventError(f"timestamps in {batch.ts_unit or 'plain ticks'} after earlier batches in "
                         f"{state.ts_unit or 'plain ticks'}; feed one unit per stream", None, "ts")
    state.ts_unit = batch.ts_unit
    check_columns(q, batch, state.types)
    return first
