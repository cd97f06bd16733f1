"""Attribute columns from untyped input (CSV cells, JSON values), typed by what the whole column holds.

The form is `cepkit.core.events.attribute_column`'s: int64 (whole numbers, no null), float64 (numbers that
float64 holds exactly in the sense of `cepkit.core.events.exact`, NaN for null), bool, or object (exact
ints / Fractions, text, None for null). A CSV cell is a number only by `cepkit.core.numbers_text.parse_number`;
pyarrow's vectorized casts are used only where they agree with it. A column with any cell that is not a
number keeps its text; a query that compares or computes with it checks its cells then
(`EventBatch.require_numeric`).
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any, Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cepkit.core.numbers_text import NULL_WORDS, NotANumber, exact, parse_number

__all__ = ["text_column", "text_cells", "values_column", "json_float", "float_holds", "form_of", "combine_forms",
           "conform", "JsonForms"]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_SAFE = 2**53                  # integers float64 holds exactly
_SHORT = 15                    # a plain decimal of at most 15 characters survives float64 (DBL_DIG)
@functools.cache
def null_words() -> pa.Array:
    """NULL_WORDS as an Arrow array, built on first use: pyarrow imports pandas on its first conversion of
    Python values, and a run whose columns need no null words must not pay for it (start-up)."""
    return pa.array(sorted(NULL_WORDS), type=pa.string())


def float_holds(value: int | Fraction) -> bool:
    """True when float64 stores `value` so that reading it back (`exact`) gives `value` again."""
    if isinstance(value, int):
        return -_SAFE <= value <= _SAFE
    try:
        f = float(value)
    except OverflowError:
        return False
    if not math.isfinite(f):
        return False
    return _float_value(f) == value


def json_float(text: str) -> Any:
    """A JSON number with a fraction or exponent: a float where float64 holds it exactly, else exact."""
    if len(text) <= _SHORT and "e" not in text and "E" not in text:
        return float(text)
    value = parse_number(text)
    return float(value) if float_holds(value) else value


def text_column(cells: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """One CSV column (strings) in attribute form; null words and blank cells are null."""
    if isinstance(cells, pa.ChunkedArray):
        cells = cells.combine_chunks() if cells.num_chunks != 1 else cells.chunk(0)
    n = len(cells)
    trimmed = pc.utf8_trim_whitespace(cells)
    null = pc.is_in(trimmed, value_set=null_words()).to_numpy(zero_copy_only=False)
    nulls = int(null.sum())
    if nulls == n:
        return np.full(n, np.nan)
    values = pc.if_else(pa.array(null), pa.scalar(None, pa.string()), trimmed)
    first = values.drop_null()[0].as_py()
    if first.lower() not in ("true", "false") and not _is_number(first):
        return _text(cells, null)  # a column is numbers only if its every cell is one
    ints = _ints(values)
    if ints is not None:
        if not nulls:
            return ints
        if np.abs(ints[~null]).max() <= _SAFE:
            out = ints.astype(np.float64)
            out[null] = np.nan
            return out
        obj = ints.astype(object)
        obj[null] = None
        return obj
    numbers = _numbers(values, null)
    if numbers is not None:
        return numbers
    lower = pc.utf8_lower(values)
    if pc.all(pc.is_in(lower, value_set=pa.array(["true", "false"]))).as_py():
        flags = pc.equal(lower, "true").to_numpy(zero_copy_only=False)
        if not nulls:
            return flags.astype(bool)
        out = flags.astype(object)
        out[null] = None
        return out
    return _text(cells, null)


def text_cells(cells: pa.Array) -> np.ndarray:
    """The cells as a text column (text_column's form for a column that is not numbers)."""
    return _text(cells, pc.is_in(pc.utf8_trim_whitespace(cells), value_set=null_words()).to_numpy(zero_copy_only=False))


def _text(cells: pa.Array, null: np.ndarray) -> np.ndarray:
    """A text column: each cell without its leading spaces (as CSV's skipinitialspace), None for null."""
    if pc.any(pc.starts_with(cells, " ")).as_py():
        cells = pc.utf8_ltrim(cells, characters=" ")
    if null.any():
        cells = pc.if_else(pa.array(null), pa.scalar(None, pa.string()), cells)
    return cells.to_numpy(zero_copy_only=False).astype(object, copy=False)


def _is_number(text: str) -> bool:
    try:
        parse_number(text)
    except NotANumber:
        return False
    return True


def _ints(values: pa.Array) -> np.ndarray | None:
    """The column as int64 when every non-null cell is a plain integer literal within int64."""
    if not pc.all(pc.ascii_is_decimal(pc.utf8_ltrim(values, characters="+-"))).as_py():
        return None  # checked first: a failing cast is slow, and pyarrow also takes '0x10'
    try:
        ints = pc.cast(values, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # beyond int64 (or '+-5'): the exact path reads it
    return ints.fill_null(0).to_numpy(zero_copy_only=False)


def _numbers(values: pa.Array, null: np.ndarray) -> np.ndarray | None:
    """float64 when every non-null cell is a number float64 holds exactly; object with exact values when
    some is not; None when some cell is not a number (the column is text)."""
    n = len(values)
    try:  # a sample first: a failing cast of a whole text column is slow
        pc.cast(values.drop_null().slice(0, 64), pa.float64())
        floats = pc.cast(values, pa.float64()).fill_null(np.nan).to_numpy(zero_copy_only=False).copy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        floats, slow = np.full(n, np.nan), ~null
    else:  # pyarrow's reading is kept only for short plain decimals (no exponent, no inf / nan words)
        long = pc.greater(pc.utf8_length(values), _SHORT).fill_null(False).to_numpy(zero_copy_only=False)
        exponent = pc.match_substring(values, "e", ignore_case=True).fill_null(False).to_numpy(zero_copy_only=False)
        slow = ~null & (long | exponent | ~np.isfinite(floats))
    exact: dict[int, int | Fraction] = {}
    if slow.any():
        texts = _Texts(values)
        for i in np.flatnonzero(slow):
            try:
                value = parse_number(texts[int(i)])
            except NotANumber:
                return None
            if float_holds(value):
                floats[i] = float(value)
            else:
                exact[int(i)] = value
    if not exact:
        return floats
    out = np.empty(n, dtype=object)
    for i, f in enumerate(floats):
        out[i] = exact[i] if i in exact else (None if null[i] else _float_value(float(f)))
    return out


def _float_value(f: float) -> int | Fraction:
    """The exact value a finite float64 stands for (its shortest decimal, as `cepkit.core.events.exact`)."""
    if f.is_integer():
        return int(f)
    return Fraction(repr(f))


class _Texts:
    """Cells of a string array as Python text, converted a block at a time (a text column stops early)."""

    BLOCK = 4096

    def __init__(self, values: pa.Array):
        self.values, self.start, self.block = values, -1, []

    def __getitem__(self, i: int) -> str:
        start = i - i % self.BLOCK
        if start != self.start:
            self.start, self.block = start, self.values.slice(start, self.BLOCK).to_pylist()
        return self.block[i - start]


def values_column(values: Sequence[Any]) -> np.ndarray:
    """A column of Python values (JSON: None, bool, int, float, Fraction, str, list, dict) in attribute form."""
    n = len(values)
    kinds = {type(v) for v in values}
    has_null = type(None) in kinds
    kinds.discard(type(None))
    if not kinds:
        return np.full(n, np.nan)
    if kinds == {bool}:
        return np.array(values, dtype=bool if not has_null else object)
    if kinds <= {int, float, Fraction}:
        if kinds == {int} and not has_null and _INT64_MIN <= min(values) and max(values) <= _INT64_MAX:
            return np.array(values, dtype=np.int64)
        if all(v is None or isinstance(v, float) or float_holds(v) for v in values):
            return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    out = np.empty(n, dtype=object)
    out[:] = list(values)
    return out


# ---------------------------------------------------------------------------------------------
# A text column's form over the whole file. `text_column` chooses a column's form (int64, float64, exact
# objects, bool or text) from all its cells; a reader that sees only some (a chunk of the chunked reader, a
# Spark task) first collects each chunk's form (`form_of`), combines them as `text_column` would have
# (`combine_forms`), and brings every chunk to that form (`conform`): docs/semantics.md SD2, SR-3.

def form_of(values: np.ndarray) -> tuple[str, bool, bool]:
    """(form, has nulls, holds an integer float64 cannot) of a `text_column` result."""
    if values.dtype == np.int64:
        return "int64", False, bool(len(values)) and int(np.abs(values).max()) > _SAFE
    if values.dtype == np.float64:
        nulls = bool(np.isnan(values).any())
        return ("null" if nulls and np.isnan(values).all() else "float64"), nulls, False
    if values.dtype == bool:
        return "bool", False, False
    first = next((v for v in values if v is not None), None)
    kind = "text" if isinstance(first, str) else "bool" if isinstance(first, bool) else "object"
    return kind, any(v is None for v in values), False


def combine_forms(rows: Iterable[tuple[str, bool, bool]]) -> str:
    """The form `text_column` gives a whole column from its chunks' (form, nulls, big)."""
    rows = list(rows)
    forms = {f for f, _, _ in rows} - {"null"}
    nulls = any(n for _, n, _ in rows) or any(f == "null" for f, _, _ in rows)
    if not forms:
        return "null"
    if "text" in forms or ("bool" in forms and len(forms) > 1):
        return "text"
    if forms == {"bool"}:
        return "text" if nulls else "bool"  # text_column reads true/false with a null cell as text
    if forms == {"int64"} and not nulls:
        return "int64"
    return "object" if "object" in forms or any(b for _, _, b in rows) else "float64"


def conform(values: np.ndarray, cells: pa.Array, form: str | None) -> np.ndarray:
    """A chunk's `text_column` result in the whole column's form (None: as it is)."""
    mine = form_of(values)[0]
    if form is None or form == mine or form in ("null", "int64", "bool") or mine == "null" and form == "float64":
        return values
    if form == "text":
        return text_cells(cells)
    if form == "float64":  # an int64 chunk of a float64 column: every value within 2**53
        return values.astype(np.float64)
    out = np.empty(len(values), dtype=object)  # form "object": exact ints and Fractions, None for null
    out[:] = [exact(v) for v in values]
    return out


_JSON_KINDS = {bool: "a boolean", int: "a number", float: "a number", Fraction: "a number", str: "text"}


class JsonForms:
    """What `values_column` needs to know of a JSON column over the whole file, gathered chunk by chunk
    (`add`), so that each chunk's column can be built in the whole column's form (`form`); the columns in
    the order the file first names them. `kinds` counts each column's values of each JSON kind (number,
    text, boolean) and keeps the row of the first one, for the whole-file reader's error for a column
    mixing kinds."""

    def __init__(self) -> None:
        self.columns: dict[str, dict[str, Any]] = {}
        self.rows = 0

    def add(self, name: str, values: Sequence[Any]) -> None:
        """The values of one chunk's column (the chunks added in file order, each column of a chunk once)."""
        c = self.columns.get(name)
        if c is None:  # a column first named past the first row is null before
            c = self.columns[name] = {"types": set(), "null": self.rows > 0, "int64": True, "floats": True,
                                      "kinds": {}}
        c["last"] = self.rows
        types = {type(v) for v in values}
        if type(None) in types:
            c["null"] = True
        types.discard(type(None))
        c["types"] |= types
        for i, v in enumerate(values):
            if v is None:
                continue
            kind = _JSON_KINDS.get(type(v))
            if kind is not None and kind not in c["kinds"]:
                c["kinds"][kind] = [0, self.rows + i + 1, v]
            if kind is not None:
                c["kinds"][kind][0] += 1
        if types == {int} and c["int64"]:
            ints = [v for v in values if v is not None]
            c["int64"] = _INT64_MIN <= min(ints) and max(ints) <= _INT64_MAX
        if c["floats"] and types <= {int, float, Fraction}:
            c["floats"] = all(v is None or isinstance(v, float) or float_holds(v) for v in values)

    def end_chunk(self, n: int) -> None:
        """The chunk just added had `n` rows; a column it lacked is null there."""
        self.rows += n
        for c in self.columns.values():
            if c.setdefault("last", -1) != self.rows - n:
                c["null"] = True

    def form(self, name: str) -> str:
        """values_column's form of the whole column: null, bool, int64, float64 or object."""
        c = self.columns[name]
        types = c["types"]
        if not types:
            return "null"
        if types == {bool}:
            return "bool" if not c["null"] else "object"
        if types <= {int, float, Fraction}:
            if types == {int} and not c["null"] and c["int64"]:
                return "int64"
            if c["floats"]:
                return "float64"
        return "object"

    def mixed(self, name: str) -> tuple[str, str, int, Any] | None:
        """(the kind of the first value the whole-file reader refuses, the column's kind, its row, the
        value) where the column mixes JSON kinds, else None."""
        kinds = self.columns[name]["kinds"]
        if len(kinds) <= 1:
            return None
        want = max(kinds, key=lambda k: kinds[k][0])  # ties: the kind seen first, as the whole-file reader
        kind = min((k for k in kinds if k != want), key=lambda k: kinds[k][1])
        return kind, want, kinds[kind][1], kinds[kind][2]


def values_in_form(values: Sequence[Any], form: str) -> np.ndarray:
    """values_column's column of `values` in the whole column's `form` (JsonForms.form)."""
    n = len(values)
    if form == "null":
        return np.full(n, np.nan)
    if form == "int64":
        return np.array(values, dtype=np.int64)
    if form == "float64":
        return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    if form == "bool":
        return np.array(values, dtype=bool)
    out = np.empty(n, dtype=object)
    out[:] = list(values)
    return out
