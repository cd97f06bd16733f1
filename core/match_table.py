"""The match table: how every engine hands matches over, for every language.

One Arrow-backed table. Its columns, in order:
- one list column per pattern variable (the ids of the events bound to it, in stream order);
- `ts`, the match timestamp;
- `detected`, the detection time, where the language has one (TPStream's early output);
- `sign` (+1 insertion, -1 retraction), `lifetime_start`, `lifetime_end`, for speculative output (AFA);
- one column per RETURN / MEASURES item, in the query's order.

A payload item whose name is taken by a variable or one of the columns above is named `payload.NAME`.
Every column carries `cepkit.role` (and, for values, `cepkit.kind`) in its Arrow field metadata.

Values stay exact (semantics.md MT-1): ints are int64 (decimal128(38, 0) past int64, text past that);
a column holding non-integral rationals (and integers) is a struct<numerator, denominator> of int64
(text 'n/d' past int64); floats are float64, text is string, truth values are bool; a column mixing
other kinds (text and numbers, truth values and numbers, floats and exact numbers, +-infinity) holds
JSON text that keeps each value's type. `iter(table)` decodes them back to the exact Python
values of canonical `Match` rows.

A table made by an engine from its own arrays (`from_columns`) is Arrow from the start and builds no
Python object per match until it is iterated; one made from `Match` rows (`from_matches`, the reference
engines) converts to Arrow on the first `to_arrow()` / `to_pandas()`.
"""
from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np
import pyarrow as pa

from cepkit.core import match_display
from cepkit.core.match import Match
from cepkit.core.errors import CepkitError

ROLE = b"cepkit.role"
KIND = b"cepkit.kind"
RESERVED = ("ts", "detected", "sign", "lifetime_start", "lifetime_end")
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
DECIMAL_MAX = 10 ** 38 - 1
FRACTION = pa.struct([("numerator", pa.int64()), ("denominator", pa.int64())])


@dataclass(frozen=True)
class Layout:
    """The shape of a program's match table: what its columns are, known at compile time."""

    variables: tuple[str, ...] = ()
    payload: tuple[str, ...] = ()
    detection: bool = False      # the language reports a detection time (TPStream early output)
    speculative: bool = False    # rows carry a sign and a lifetime (AFA)

    def payload_columns(self) -> tuple[str, ...]:
        """The column name of each payload item (prefixed where the name is taken)."""
        taken = set(self.variables) | set(RESERVED)
        return tuple(f"payload.{p}" if p in taken else p for p in self.payload)

    def column_names(self) -> list[str]:
        names = list(self.variables) + ["ts"]
        if self.detection:
            names.append("detected")
        if self.speculative:
            names += ["sign", "lifetime_start", "lifetime_end"]
        return names + list(self.payload_columns())


class MatchTable:
    """The matches a program returns from `feed` / `close` / `run`: Arrow columns, canonical rows."""

    __slots__ = ("layout", "_rows", "_arrow")

    def __init__(self, layout: Layout, rows: Sequence[Match] | None = None, arrow: pa.Table | None = None):
        if (rows is None) == (arrow is None):
            raise ValueError("a MatchTable holds either Match rows or an Arrow table")
        self.layout = layout
        self._rows = list(rows) if rows is not None else None
        self._arrow = arrow

    # ------------------------------------------------------------------ construction
    @classmethod
    def empty(cls, layout: Layout) -> "MatchTable":
        return cls(layout, rows=[])

    @classmethod
    def from_matches(cls, layout: Layout, matches: Iterable[Match]) -> "MatchTable":
        return cls(layout, rows=list(matches))

    @classmethod
    def from_columns(cls, layout: Layout, bindings: Mapping[str, tuple[np.ndarray, np.ndarray]],
                     ts: np.ndarray, payload: Mapping[str, Any] | None = None,
                     detected: np.ndarray | None = None, sign: np.ndarray | None = None,
                     lifetime: tuple[Any, Any] | None = None) -> "MatchTable":
        """A table straight from arrays: per variable (offsets int32/int64 of length n+1, id values, and
        optionally a boolean array: False where the row leaves the variable unbound),
        the ts array, and per payload item an Arrow array or a sequence of exact values."""
        n = len(ts)
        cols: list[pa.Array] = []
        fields: list[pa.Field] = []
        for var in layout.variables:
            offsets, values, *bound = bindings[var]   # (offsets, ids[, bound]): bound False = unbound (null)
            mask = pa.array(~np.asarray(bound[0], np.bool_)) if bound else None
            arr = pa.LargeListArray.from_arrays(pa.array(np.asarray(offsets, np.int64)), _ids_array(values), mask=mask)
            cols.append(arr)
            fields.append(pa.field(var, arr.type, metadata={ROLE: b"binding"}))
        arr, kind = encode(ts)
        cols.append(arr)
        fields.append(_field("ts", arr, "ts", kind))
        if layout.detection:
            arr, kind = encode(detected if detected is not None else [None] * n)
            cols.append(arr)
            fields.append(_field("detected", arr, "detected", kind))
        if layout.speculative:
            s = pa.array(np.asarray(sign if sign is not None else np.ones(n), np.int8))
            cols.append(s)
            fields.append(pa.field("sign", s.type, metadata={ROLE: b"sign"}))
            for name, values in zip(("lifetime_start", "lifetime_end"), lifetime or ([None] * n, [None] * n)):
                arr, kind = encode(values)
                cols.append(arr)
                fields.append(_field(name, arr, name, kind))
        payload = payload or {}
        for item, column in zip(layout.payload, layout.payload_columns()):
            arr, kind = encode(payload[item])
            cols.append(arr)
            fields.append(_field(column, arr, "payload", kind))
        return cls(layout, arrow=pa.Table.from_arrays(cols, schema=pa.schema(fields)))

    @classmethod
    def concat(cls, layout: Layout, tables: Iterable["MatchTable"]) -> "MatchTable":
        tables = [t for t in tables if len(t)]
        if not tables:
            return cls.empty(layout)
        if len(tables) == 1:
            return tables[0]
        if all(t._rows is not None for t in tables):
            return cls(layout, rows=[m for t in tables for m in t._rows])
        arrows = [t.to_arrow() for t in tables]
        if all(a.schema.equals(arrows[0].schema, check_metadata=True) for a in arrows[1:]):
            return cls(layout, arrow=pa.concat_tables(arrows))
        # a column's type differs between the tables (int64 here, rationals or all nulls there): the rows
        return cls(layout, rows=[m for t in tables for m in t.rows()])

    # ------------------------------------------------------------------ sequence of Match rows
    def __len__(self) -> int:
        return len(self._rows) if self._rows is not None else self._arrow.num_rows

    def __iter__(self) -> Iterator[Match]:
        return iter(self.rows())

    def __getitem__(self, index):
        return self.rows()[index]

    def __bool__(self) -> bool:
        return len(self) > 0

    def __add__(self, other: "MatchTable | list") -> "MatchTable":
        if isinstance(other, list):
            other = MatchTable.from_matches(self.layout, other)
        return MatchTable.concat(self.layout, [self, other])

    def __radd__(self, other: list) -> "MatchTable":
        return MatchTable.from_matches(self.layout, list(other)) + self

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MatchTable):
            return self.rows() == other.rows()
        if isinstance(other, list):
            return self.rows() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def head_columns(self, n: int) -> tuple[list[str], list[list]]:
        """(column names, the first n rows' values column by column), decoded exactly."""
        arrow = self.to_arrow().slice(0, n)
        return arrow.column_names, [decode(arrow.column(k).combine_chunks(), (f.metadata or {}).get(KIND))
                                    for k, f in enumerate(arrow.schema)]

    def __repr__(self) -> str:
        """The first rows as a small text table, with the row count (core/match_display.py)."""
        return match_display.text(self)

    def _repr_html_(self) -> str:
        """The first rows as an HTML table, for notebooks."""
        return match_display.to_html(self)

    def rows(self) -> list[Match]:
        """The canonical Match rows (decoded once from Arrow, then kept)."""
        if self._rows is None:
            self._rows = _decode(self.layout, self._arrow)
        return self._rows

    def canonical(self) -> Counter:
        """The multiset of canonical rows: what conformance compares, whatever the engine's order."""
        return Counter(m.canonical() for m in self.rows())

    # ------------------------------------------------------------------ Arrow and pandas
    def to_arrow(self) -> pa.Table:
        if self._arrow is None:
            self._arrow = _encode_rows(self.layout, self._rows)
        return self._arrow

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """The Arrow PyCapsule stream of `to_arrow()`: polars, DuckDB and pyarrow read the table directly."""
        return self.to_arrow().__arrow_c_stream__(requested_schema)

    def to_polars(self):
        """A polars DataFrame of `to_arrow()` (CepkitError naming `pip install polars` without polars)."""
        try:
            import polars as pl
        except ImportError:

            raise CepkitError("MatchTable.to_polars needs polars: pip install polars") from None
        return pl.from_arrow(self.to_arrow())

    def to_pandas(self):
        """A DataFrame: list columns of ids, exact values as Python objects where Arrow has no type."""
        table = self.to_arrow()
        df = table.to_pandas()
        for f in table.schema:
            kind = (f.metadata or {}).get(KIND)
            if kind in (b"fraction", b"bigint", b"json"):
                df[f.name] = decode(table.column(f.name).combine_chunks(), kind)
        return df


# ---------------------------------------------------------------------- value columns
def _field(name: str, arr: pa.Array, role: str, kind: str | None) -> pa.Field:
    meta = {ROLE: role.encode()}
    if kind:
        meta[KIND] = kind.encode()
    return pa.field(name, arr.type, metadata=meta)


def _ids_array(values: Any) -> pa.Array:
    if isinstance(values, pa.Array):
        return values
    arr = np.asarray(values)
    if arr.dtype.kind in "iu":
        return pa.array(arr.astype(np.int64, copy=False))
    return pa.array([v if isinstance(v, (int, str)) else _plain_id(v) for v in arr.tolist()])


def _plain_id(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


def _ids_list(ids: Sequence[Sequence[Any] | None]) -> pa.Array:
    """A list column of ids; None (a variable an OR alternative does not bind) is a null entry."""
    flat = [_plain_id(i) for group in ids if group is not None for i in group]
    offsets = np.zeros(len(ids) + 1, np.int64)
    np.cumsum([0 if g is None else len(g) for g in ids], out=offsets[1:])
    if all(isinstance(i, int) and not isinstance(i, bool) and INT64_MIN <= i <= INT64_MAX for i in flat):
        values = pa.array(flat, pa.int64())
    else:
        values = pa.array([str(i) for i in flat], pa.string())
    mask = pa.array([g is None for g in ids]) if any(g is None for g in ids) else None
    return pa.LargeListArray.from_arrays(pa.array(offsets), values, mask=mask)


def encode(values: Any) -> tuple[pa.Array, str | None]:
    """An Arrow array for a column of exact values, and its kind (None when Arrow's type says it)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values, ("fraction" if values.type == FRACTION else None)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iufb":
        return pa.array(values), None
    vals = [_plain_id(v) for v in values]
    present = [v for v in vals if v is not None]
    if not present:
        return pa.array(vals, pa.null()), None
    kinds = {kind_of(v) for v in present}
    if kinds == {"bool"}:
        return pa.array(vals, pa.bool_()), None
    if kinds == {"str"}:
        return pa.array(vals, pa.string()), None
    if kinds == {"float"}:
        return pa.array(vals, pa.float64()), None
    if kinds == {"int"}:
        ints = [None if v is None else int(v) for v in vals]
        if all(INT64_MIN <= v <= INT64_MAX for v in ints if v is not None):
            return pa.array(ints, pa.int64()), None
        if all(abs(v) <= DECIMAL_MAX for v in ints if v is not None):
            from decimal import Decimal
            return pa.array([None if v is None else Decimal(v) for v in ints], pa.decimal128(38, 0)), None
        return pa.array([None if v is None else str(v) for v in ints], pa.string()), "bigint"
    if kinds <= {"int", "fraction"}:
        fracs = [None if v is None else _rational(v) for v in vals]
        if all(f is None or (INT64_MIN <= f[0] <= INT64_MAX and f[1] <= INT64_MAX) for f in fracs):
            return pa.array([None if f is None else {"numerator": f[0], "denominator": f[1]} for f in fracs],
                            FRACTION), "fraction"
        return pa.array([None if f is None else f"{f[0]}/{f[1]}" for f in fracs], pa.string()), "fraction"
    return pa.array([None if v is None else json.dumps(jsonable(v)) for v in vals], pa.string()), "json"


def kind_of(v: Any) -> str:
    """The kind of a non-null value that decides a column's encoding: bool, int (a whole rational too),
    fraction, float, str or other."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, Fraction):
        return "int" if v.denominator == 1 else "fraction"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    return "other"


def _rational(v: Any) -> tuple[int, int]:
    f = Fraction(v)
    return f.numerator, f.denominator


def jsonable(v: Any) -> Any:
    """A value as plain JSON data that `unjson` reads back to the same value and type (a rational as
    {"fraction": [n, d]}, a non-finite float as {"float": ...})."""
    if isinstance(v, Fraction):
        return {"fraction": [v.numerator, v.denominator]}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, float) and not math.isfinite(v):
        return {"float": repr(v)}
    return v


def unjson(v: Any) -> Any:
    """The value `jsonable` wrote."""
    if isinstance(v, dict):
        if set(v) == {"fraction"}:
            return Fraction(*v["fraction"])
        if set(v) == {"float"}:
            return float(v["float"])
        return {k: unjson(x) for k, x in v.items()}
    if isinstance(v, list):
        return tuple(unjson(x) for x in v)
    return v


def decode(arr: pa.Array, kind: bytes | None) -> list[Any]:
    """The exact Python values of an encoded column."""
    if kind == b"fraction":
        if pa.types.is_struct(arr.type):
            return [None if d is None else _from_rational(d["numerator"], d["denominator"]) for d in arr.to_pylist()]
        return [None if s is None else _from_rational(*map(int, s.split("/"))) for s in arr.to_pylist()]
    if kind == b"bigint":
        return [None if s is None else int(s) for s in arr.to_pylist()]
    if kind == b"json":
        return [None if s is None else unjson(json.loads(s)) for s in arr.to_pylist()]
    if pa.types.is_decimal(arr.type):
        return [None if d is None else int(d) for d in arr.to_pylist()]
    return arr.to_pylist()


def _from_rational(num: int, den: int) -> Any:
    f = Fraction(num, den)
    return f.numerator if f.denominator == 1 else f


# ---------------------------------------------------------------------- rows <-> Arrow
def _encode_rows(layout: Layout, rows: list[Match]) -> pa.Table:
    cols: list[pa.Array] = []
    fields: list[pa.Field] = []
    for var in layout.variables:
        arr = _ids_list([dict(m.bindings).get(var) for m in rows])
        cols.append(arr)
        fields.append(pa.field(var, arr.type, metadata={ROLE: b"binding"}))

    def add(name: str, role: str, values: list) -> None:
        arr, kind = encode(values)
        cols.append(arr)
        fields.append(_field(name, arr, role, kind))

    add("ts", "ts", [m.ts for m in rows])
    if layout.detection:
        add("detected", "detected", [m.detected for m in rows])
    if layout.speculative:
        s = pa.array([m.sign for m in rows], pa.int8())
        cols.append(s)
        fields.append(pa.field("sign", s.type, metadata={ROLE: b"sign"}))
        add("lifetime_start", "lifetime_start", [m.lifetime[0] if m.lifetime else None for m in rows])
        add("lifetime_end", "lifetime_end", [m.lifetime[1] if m.lifetime else None for m in rows])
    for item, column in zip(layout.payload, layout.payload_columns()):
        add(column, "payload", [dict(m.payload).get(item) for m in rows])
    return pa.Table.from_arrays(cols, schema=pa.schema(fields))


def _decode(layout: Layout, table: pa.Table) -> list[Match]:
    n = table.num_rows
    if n == 0:
        return []

    def column(name: str) -> list:
        col = table.column(name).combine_chunks()
        kind = (table.schema.field(name).metadata or {}).get(KIND)
        return decode(col, kind)

    ids = {var: [None if x is None else tuple(x) for x in table.column(var).to_pylist()] for var in layout.variables}
    ts = column("ts")
    detected = column("detected") if layout.detection else [None] * n
    if layout.speculative:
        sign = table.column("sign").to_pylist()
        lifetimes = list(zip(column("lifetime_start"), column("lifetime_end")))
    else:
        sign, lifetimes = [1] * n, [None] * n
    payload = [column(c) for c in layout.payload_columns()]
    out = []
    for i in range(n):
        out.append(Match(tuple((v, ids[v][i]) for v in layout.variables if ids[v][i] is not None), ts[i],
                         tuple((p, payload[j][i]) for j, p in enumerate(layout.payload)),
                         sign=sign[i], lifetime=lifetimes[i], detected=detected[i]))
    return out
