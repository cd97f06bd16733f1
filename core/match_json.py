"""JSON text of match-table columns, column by column: each value as `json.dumps(json_safe(value))` writes it
(`cepkit.core.match.json_safe`, Python's default separators, ASCII only), and each row as the JSON object of
`Match.to_json()`, byte for byte, built with Arrow's string kernels instead of a Python call per bound id.

Integers, truth values, floats, exact fractions that fit in 2^53, text and id lists go column-wise; rare
columns (mixed JSON values, integers past int64, fractions past 2^53) go value by value.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cepkit.core.match import json_safe
from cepkit.core.match_table import FRACTION, KIND, MatchTable, decode

_FLOAT_LOW, _FLOAT_HIGH = 1e-4, 1e16  # where repr(float) writes positional digits, as Arrow may
_ESCAPED = r'[^\x20-\x7e]|["\\]'  # what json.dumps escapes (ensure_ascii): all but printable ASCII (DEL too), quote, backslash
_STR = pa.string()


def python_json(values: Sequence[Any]) -> pa.Array:
    """json.dumps(json_safe(v)) of each value, one by one (the exact form for the rare kinds)."""
    return pa.array([json.dumps(json_safe(v), default=str, allow_nan=False) for v in values], _STR)


def string_json(col: pa.Array) -> pa.Array:
    """json.dumps(s) of each text ("null" for null): quoted as is where nothing needs escaping, else each
    distinct text once through json.dumps."""
    col = pc.cast(col, _STR)
    text = pc.binary_join_element_wise('"', col, '"', "")
    needs = pc.fill_null(pc.match_substring_regex(col, _ESCAPED), False)
    if pc.any(needs).as_py():
        sub = col.filter(needs)
        distinct = pc.unique(sub)
        texts = pa.array([json.dumps(s) for s in distinct.to_pylist()], _STR)
        text = pc.replace_with_mask(text, needs, texts.take(pc.index_in(sub, distinct)))
    return pc.fill_null(text, "null") if text.null_count else text


def float_json(values: np.ndarray) -> pa.Array:
    """json.dumps(json_safe(x)) for each float64 x: Arrow's shortest digits where they are repr's (a
    positional number; '.0' added to an integral one), repr / the quoted non-finite name elsewhere."""
    values = np.asarray(values, np.float64)
    text = pc.cast(pa.array(values), _STR)
    size = np.abs(values)
    plain = np.isfinite(values) & ((values == 0) | ((size >= _FLOAT_LOW) & (size < _FLOAT_HIGH)))
    plain &= ~pc.match_substring(text, "e").to_numpy(zero_copy_only=False)
    integral = plain & (values == np.floor(np.where(plain, values, 0.0)))
    text = pc.if_else(pa.array(integral), pc.binary_join_element_wise(text, ".0", ""), text)
    if plain.all():
        return text
    rest = np.flatnonzero(~plain)
    return pc.replace_with_mask(text, pa.array(~plain), python_json([float(values[i]) for i in rest]))


def value_json(col: pa.ChunkedArray | pa.Array, kind: bytes | None) -> pa.Array:
    """json.dumps(json_safe(value)) for each value of an encoded match-table column ("null" for null)."""
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    t = col.type
    valid = None if not col.null_count else pc.is_valid(col)
    if pa.types.is_null(t):
        return pa.array(["null"] * len(col), _STR)
    if kind is None and pa.types.is_boolean(t):
        text = pc.if_else(col, "true", "false")
    elif kind in (None, b"bigint") and (pa.types.is_integer(t) or pa.types.is_decimal(t) or pa.types.is_string(t)):
        text = string_json(col) if kind is None and pa.types.is_string(t) else pc.cast(col, _STR)
    elif kind is None and pa.types.is_floating(t):
        text = float_json(pc.fill_null(col, 0.0).to_numpy(zero_copy_only=False))
    elif kind == b"fraction" and t == FRACTION:
        ok = pc.is_valid(col).to_numpy(zero_copy_only=False)
        num = np.where(ok, pc.fill_null(col.field("numerator"), 0).to_numpy(zero_copy_only=False), 0)
        den = np.where(ok, pc.fill_null(col.field("denominator"), 1).to_numpy(zero_copy_only=False), 1)
        if np.abs(num).max(initial=0) > 2**53 or den.max(initial=1) > 2**53:
            return python_json(decode(col, kind))   # float(Fraction) is not one division of two exact doubles
        text = pc.if_else(pa.array(den == 1), pc.cast(pa.array(num), _STR), float_json(num / den))
    else:
        return python_json(decode(col, kind))
    if valid is not None:
        text = pc.if_else(valid, text, pa.scalar("null", _STR))
    return text


def ids_json(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    """The JSON array text of each binding's ids, "[1, 2, 3]"; null where the variable is unbound."""
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    values = col.values
    if pa.types.is_integer(values.type):
        texts = pc.cast(values, _STR)
    elif pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        texts = string_json(values)
    else:
        texts = python_json(values.to_pylist())
    mask = col.is_null() if col.null_count else None
    lists = pa.LargeListArray.from_arrays(pa.array(col.offsets, pa.int64()), texts, mask=mask)
    return pc.binary_join_element_wise("[", pc.binary_join(lists, ", "), "]", "")


def _joined(pieces: list[pa.Array], n: int) -> pa.Array:
    """Pieces that each start with ', ' (null: left out) joined, the first ', ' dropped."""
    if not pieces:
        return pa.array([""] * n, _STR)
    filled = [pc.fill_null(p, "") if p.null_count else p for p in pieces]
    text = filled[0] if len(filled) == 1 else pc.binary_join_element_wise(*filled, "")
    return pc.utf8_slice_codeunits(text, 2)


def _piece(key: str, value: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise(f", {json.dumps(key)}: ", value, "")


def object_lines(fields: list[tuple[str, pa.Array]], n: int) -> pa.Array:
    """The JSON object text of each row of `fields` (key, JSON text of each row's value; null: the row has
    no such key), as a Python dict filled in that order writes it: a key set again keeps its first place
    where the row has it already, else comes last."""
    pieces: dict[str, pa.Array] = {}
    order: list[str] = []
    for key, text in fields:
        new = _piece(key, text)
        if key in pieces:
            old = pieces[key]
            present = pc.is_valid(old)
            pieces[key] = pc.if_else(present, pc.if_else(pc.is_valid(new), new, old), old)
            slot = f"{key}\0{len(order)}"
            pieces[slot] = pc.if_else(present, pa.scalar(None, _STR), new)
            order.append(slot)
        else:
            pieces[key] = new
            order.append(key)
    return pc.binary_join_element_wise("{", _joined([pieces[k] for k in order], n), "}", "")


def column_json(arrow: pa.Table, name: str) -> pa.Array:
    """value_json of a match-table column, by its kind."""
    return value_json(arrow.column(name), (arrow.schema.field(name).metadata or {}).get(KIND))


def match_lines(table: MatchTable, ts_text: pa.Array | None = None) -> pa.Array:
    """json.dumps(json_safe(m.to_json())) for each match of `table` (its rows decoded from Arrow), without
    the newline; `ts_text` the JSON text of each ts where the run writes timestamps as times."""
    arrow = table.to_arrow()
    layout, n = table.layout, arrow.num_rows
    bindings = _joined([_piece(v, ids_json(arrow.column(v))) for v in layout.variables], n)
    fields = [("bindings", pc.binary_join_element_wise("{", bindings, "}", "")),
              ("ts", ts_text if ts_text is not None else column_json(arrow, "ts"))]
    if layout.detection:
        detected = arrow.column("detected").combine_chunks()
        fields.append(("detected", pc.if_else(pc.is_valid(detected), column_json(arrow, "detected"),
                                              pa.scalar(None, _STR))))
    if layout.speculative:
        fields.append(("sign", pc.cast(arrow.column("sign").combine_chunks(), _STR)))
        fields.append(("lifetime", pc.binary_join_element_wise(
            "[", column_json(arrow, "lifetime_start"), ", ", column_json(arrow, "lifetime_end"), "]", "")))
    fields += [(item, column_json(arrow, column)) for item, column in zip(layout.payload, layout.payload_columns())]
    return object_lines(fields, n)


def payload_lines(table: MatchTable, texts: dict[str, pa.Array] | None = None) -> pa.Array:
    """The JSON object of each row's RETURN items alone ({item: json_safe(value)}, the window queries'
    rows); `texts` replaces an item's JSON text (timestamps written as times)."""
    arrow = table.to_arrow()
    texts = texts or {}
    return object_lines([(item, texts[item] if item in texts else column_json(arrow, column))
                         for item, column in zip(table.layout.payload, table.layout.payload_columns())],
                        arrow.num_rows)


def text_bytes(lines: pa.Array, end: str = "\n") -> pa.Buffer:
    """The UTF-8 text of `lines`, each ended by `end`, as one buffer (no Python object per line)."""
    if not len(lines):
        return pa.py_buffer(b"")
    text = pc.binary_join_element_wise(lines, end, "") if end else lines
    offsets = np.frombuffer(text.buffers()[1], np.int32, len(text) + 1, text.offset * 4)
    return text.buffers()[2].slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
