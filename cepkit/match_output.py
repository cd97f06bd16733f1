"""A match table written column by column: JSON lines, CSV, the text table and Parquet straight from its Arrow
columns (docs/performance.md "Vectorized output"), with no Python call per bound event id.

The text is what the row-by-row writer gave (`Match.to_json` through `json_line`; a pandas frame of
`plain` values through `to_csv` / `render_table`), byte for byte: each value column is first given the
type pandas would infer for its plain values (`Cells`), then turned into text in Arrow's string kernels.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cepkit.forms import cell_text, max_ids, numeric, render_columns, time_form
from cepkit.temp_files import LIMIT_VARIABLE, SPILL, limit, shown, tagged
from cepkit.core.errors import ResourceLimit
from cepkit.core.match import plain
from cepkit.core.match_json import (float_json, match_lines, object_lines, payload_lines, python_json, text_bytes,
                                         value_json)
from cepkit.core.match_table import FRACTION, KIND, MatchTable, decode, encode

SLICE = 65_536        # rows turned into text at once ...
SLICE_IDS = 4_000_000  # ... and bound ids: Arrow's 32-bit string offsets stay far from their 2 GiB limit
_STR = pa.string()


def slices(table: MatchTable) -> list[MatchTable]:
    """The table in pieces of at most SLICE rows and, past one row, SLICE_IDS bound ids (Arrow slices,
    nothing copied)."""
    arrow = table.to_arrow()
    n = arrow.num_rows
    ids = np.zeros(n + 1, np.int64)
    for v in table.layout.variables:
        col = arrow.column(v).combine_chunks()
        offsets = col.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
        ids[1:] += np.diff(offsets)
    total = np.cumsum(ids)
    cuts, start = [], 0
    while start < n:
        end = min(start + SLICE, n, int(np.searchsorted(total, total[start] + SLICE_IDS, side="right")) - 1)
        end = max(end, start + 1)
        cuts.append((start, end))
        start = end
    return [MatchTable(table.layout, arrow=arrow.slice(a, b - a)) for a, b in cuts]


def jsonl(table: MatchTable, payload_only: bool = False) -> list[pa.Buffer]:
    """The JSON lines of the matches (`json_line(m.to_json())` each, the ts in this run's form); with
    `payload_only` each row's RETURN items alone (`json_line({item: plain(value)})`, an item `ts` in this
    run's form: the window queries' rows)."""
    out = []
    form = time_form()
    for part in slices(table):
        arrow = part.to_arrow()
        if payload_only:
            texts = {}
            column = dict(zip(part.layout.payload, part.layout.payload_columns())).get("ts")
            if column is not None and form.mode != "ticks":
                form.check()
                texts["ts"] = python_json(form.texts([plain(v) for v in _values(arrow, column)]))
            out.append(text_bytes(payload_lines(part, texts)))
            continue
        ts_text = None
        if form.mode != "ticks":
            form.check()
            ts_text = python_json(form.texts(_values(arrow, "ts")))
        out.append(text_bytes(match_lines(part, ts_text)))
    return out


def _values(arrow: pa.Table, name: str) -> list:
    return decode(arrow.column(name).combine_chunks(), (arrow.schema.field(name).metadata or {}).get(KIND))


# ---------------------------------------------------------------------- columns as pandas would type them
@dataclass
class Cells:
    """One output column in the type pandas infers for its plain values: `int` (an Arrow int64 array, no
    nulls), `intnull` (an Arrow int64 array with nulls: integers stay integers, where pandas would make them
    floats; docs/semantics.md FO-2), `float` (float64, NaN for null), `bool` (no nulls), `text` (strings, nulls), `ids` (a list
    column of event ids; null: unbound), or `object` (a list of Python values)."""

    name: str
    form: str
    data: Any

    def csv(self) -> pa.Array:
        """Each cell as pandas' to_csv writes it (before quoting)."""
        if self.form == "int":
            return pc.cast(self.data, _STR)
        if self.form == "intnull":
            return pc.fill_null(pc.cast(self.data, _STR), "")
        if self.form == "float":
            return _float_text(self.data, nan="", inf="inf")
        if self.form == "bool":
            return pc.if_else(self.data, "True", "False")
        if self.form == "text":
            return pc.fill_null(self.data, "")
        if self.form == "ids":
            return pc.fill_null(pc.binary_join(_id_texts(self.data), " "), "")
        return pa.array(["" if _null(v) else str(v) for v in self.data], _STR)

    def cell(self) -> pa.Array:
        """Each cell as the text table shows it (cepkit.forms.cell_text)."""
        if self.form == "int":
            return pc.cast(self.data, _STR)
        if self.form == "intnull":
            return pc.fill_null(pc.cast(self.data, _STR), "null")
        if self.form == "float":
            return _float_text(self.data, nan="null", inf="inf")
        if self.form == "bool":
            return pc.if_else(self.data, "true", "false")
        if self.form == "text":
            return pc.fill_null(self.data, "null")
        if self.form == "ids":
            return _ids_cells(self.data, max_ids())
        return pa.array([cell_text(v) for v in self.data], _STR)

    def python(self) -> list:
        """The column's values as the frame's `tolist()` gives them (NaN for a null float)."""
        if self.form == "float":
            return self.data.tolist()
        if self.form == "object":
            return list(self.data)
        return self.data.to_pylist()

    def right(self) -> bool:
        """Whether the text table right-aligns the column (numbers and nulls only)."""
        if self.form in ("int", "intnull", "float"):
            return len(self.data) > 0
        if self.form == "text":
            return len(self.data) > 0 and self.data.null_count == len(self.data)
        if self.form == "object":
            return len(self.data) > 0 and all(numeric(v) or v is None for v in self.data)
        return False

    def arrow(self, encoded: pa.Array | None) -> pa.Array:
        """The Parquet column: the values in Arrow's type (ids as list<int64> or list<string>); an object
        column, and integers past int64 (the match table encodes them as decimal(38, 0)), keep the match
        table's exact encoding `encoded`."""
        if self.form == "ids":
            col = self.data
            if col.null_count:
                col = pc.if_else(pc.is_null(col), pa.scalar([], col.type), col)
            return col.cast(pa.list_(col.type.value_type))
        if encoded is not None and pa.types.is_decimal(encoded.type):
            return encoded   # integers past int64, exact (pandas typed them uint64, wrapped to int64, or double)
        if self.form == "float":
            return pa.array(self.data, from_pandas=True)
        if self.form == "object":
            try:
                return pa.array(self.data, from_pandas=True)
            except (pa.ArrowException, OverflowError):
                return encoded if encoded is not None else pa.array([None if v is None else str(v)
                                                                     for v in self.data], _STR)
        return self.data


def _null(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _float_text(values: np.ndarray, nan: str, inf: str) -> pa.Array:
    """repr of each float; NaN as `nan`, +-infinity as `inf` / `-inf`."""
    finite = np.isfinite(values)
    text = float_json(np.where(finite, values, 0.0))
    if finite.all():
        return text
    other = np.where(np.isnan(values), nan, np.where(values > 0, inf, "-" + inf))
    return pc.if_else(pa.array(finite), text, pa.array(other.astype(object), _STR))


def _id_texts(col: pa.Array) -> pa.Array:
    """A list column of ids as a list column of their texts (str of each id)."""
    values = col.values
    texts = values if pa.types.is_string(values.type) else pc.cast(values, _STR)
    mask = col.is_null() if col.null_count else None
    return pa.LargeListArray.from_arrays(pa.array(col.offsets, pa.int64()), texts, mask=mask)


def _ids_cells(col: pa.Array, limit: int) -> pa.Array:
    """cepkit.forms.ids_text of each binding: `[e1, e2, … K more]` past `limit` ids (0: all)."""
    texts = _id_texts(col)
    lengths = pc.fill_null(pc.list_value_length(texts), 0)
    if limit:
        texts = pc.list_slice(texts, 0, limit)
    shown = pc.fill_null(pc.binary_join(texts, ", "), "")
    if limit:
        more = pc.subtract(lengths, pa.scalar(limit, lengths.type))
        tail = pc.binary_join_element_wise(", … ", pc.cast(more, _STR), " more", "")
        shown = pc.if_else(pc.greater(more, 0), pc.binary_join_element_wise(shown, tail, ""), shown)
    return pc.binary_join_element_wise("[", shown, "]", "")


def value_cells(name: str, col: pa.Array, kind: bytes | None) -> Cells:
    """An encoded match-table column as pandas would type its plain values."""
    t, n = col.type, len(col)
    if pa.types.is_null(t) or (n and col.null_count == n):
        return Cells(name, "object", [None] * n)
    if kind is None and pa.types.is_integer(t):
        return Cells(name, "intnull" if col.null_count else "int", pc.cast(col, pa.int64()))
    if kind is None and pa.types.is_floating(t):
        return Cells(name, "float", pc.cast(col, pa.float64()).to_numpy(zero_copy_only=False))
    if kind is None and pa.types.is_boolean(t) and not col.null_count:
        return Cells(name, "bool", col)
    if kind is None and pa.types.is_string(t):
        return Cells(name, "text", col)
    if kind == b"fraction" and t == FRACTION:
        valid = pc.is_valid(col).to_numpy(zero_copy_only=False)
        num = np.where(valid, pc.fill_null(col.field("numerator"), 0).to_numpy(zero_copy_only=False), 0)
        den = np.where(valid, pc.fill_null(col.field("denominator"), 1).to_numpy(zero_copy_only=False), 1)
        if np.abs(num).max(initial=0) <= 2**53 and den.max(initial=1) <= 2**53:
            if (den == 1).all():
                return Cells(name, "int" if valid.all() else "intnull", pa.array(num, pa.int64(), mask=~valid))
            return Cells(name, "float", np.where(valid, num / den, np.nan))
    return object_cells(name, [plain(v) for v in decode(col, kind)])


def ts_cells(col: pa.Array, kind: bytes | None) -> Cells:
    """The ts column: its exact values as they are (a Fraction stays one: text 'n/d' in CSV)."""
    if kind is None:
        return value_cells("ts", col, kind)
    return object_cells("ts", decode(col, kind))


def object_cells(name: str, values: list) -> Cells:
    """Python values typed as pandas types them (int64, float64, bool, else object)."""
    import pandas as pd

    series = pd.Series(values)
    k = series.dtype.kind
    if k in "iu":   # uint64 where one value is past int64 (all of them >= 0): not wrapped to int64
        return Cells(name, "int", pa.array(series.to_numpy(np.uint64 if k == "u" else np.int64)))
    if k == "f" and all(v is None or (type(v) is int and -2**63 <= v < 2**63) for v in values):
        return Cells(name, "intnull", pa.array(values, pa.int64()))  # pandas: floats; integers stay integers
    if k == "f":
        return Cells(name, "float", series.to_numpy(np.float64))
    if k == "b":
        return Cells(name, "bool", pa.array(series.to_numpy(bool)))
    return Cells(name, "object", values)


def match_cells(table: MatchTable, fmt: str, payload_only: bool = False) \
        -> tuple[list[str], list[Cells], dict[str, pa.Array]]:
    """(the column names, each one's cells, the encoded column behind each value column) of the matches
    frame: a list of ids per variable, ts, then the RETURN items (a later name wins, as in a dict); with
    `payload_only` the RETURN items alone. The column `ts` is written in this run's time form."""
    arrow = table.to_arrow()
    layout = table.layout
    cells: dict[str, Cells] = {}
    encoded: dict[str, pa.Array] = {}
    if not payload_only:
        for v in layout.variables:
            cells[v] = Cells(v, "ids", arrow.column(v).combine_chunks())
        cells["ts"] = ts_cells(arrow.column("ts").combine_chunks(), (arrow.schema.field("ts").metadata or {}).get(KIND))
    sources = {"ts": "ts"}
    for item, column in zip(layout.payload, layout.payload_columns()):
        col = arrow.column(column).combine_chunks()
        cells[item] = value_cells(item, col, (arrow.schema.field(column).metadata or {}).get(KIND))
        encoded[item] = col
        sources[item] = column
    names = list(layout.payload) if payload_only else list(layout.variables) + ["ts"] + list(layout.payload)
    if "ts" in cells:
        cells["ts"] = timed(cells["ts"], fmt)  # what the frame's column held, typed by pandas
    return names, [cells[n] for n in names], encoded


# ---------------------------------------------------------------------- rows of named values (SQL)
class Rows:
    """Output rows given as columns of plain values (MATCH_RECOGNIZE's table: cepkit/runners/sql.py), each
    column encoded once as a match-table column; a name given twice keeps its last column, as a dict of
    each row would."""

    def __init__(self, columns: Sequence[str], values: dict[str, list], n: int, timestamps: Sequence[str] = ()):
        self.names, self.n, self.timestamps = list(columns), n, [c for c in timestamps if c in values]
        self.values = values
        self.encoded = {c: encode(v) for c, v in values.items()}

    def jsonl(self) -> list[pa.Buffer]:
        """json_line of each row's dict {column: value}, the timestamp columns in this run's form."""
        form = time_form()
        texts: dict[str, pa.Array] = {}
        if form.mode != "ticks" and self.n:
            form.check()
            texts = {c: python_json(form.texts(_plain_list(self.values[c]))) for c in self.timestamps}
        fields = [(c, texts[c] if c in texts else _json_of(*self.encoded[c])) for c in self.names]
        return [text_bytes(object_lines(fields, self.n))] if self.n else []

    def cells(self, fmt: str) -> list[Cells]:
        """The frame's columns (cepkit.forms.exact_frame: the timestamp columns untyped), in this run's
        time form."""
        cells = {c: (Cells(c, "object", _plain_list(self.values[c])) if c in self.timestamps else
                     value_cells(c, self.encoded[c][0], _kind(self.encoded[c][1]))) for c in self.values}
        for c in self.timestamps:
            cells[c] = timed(cells[c], fmt)
        return [cells[c] for c in self.names]


def _plain_list(values: Any) -> list:
    """A column's plain values: an Arrow column's as Python values (to_pylist), a list as it is."""
    return values.to_pylist() if isinstance(values, (pa.Array, pa.ChunkedArray)) else list(values)


def _kind(kind: str | None) -> bytes | None:
    return kind.encode() if kind else None


def _json_of(col: pa.Array, kind: str | None) -> pa.Array:
    return value_json(col, _kind(kind))


def timed(cells: Cells, fmt: str) -> Cells:
    """A timestamp column in this run's form (cepkit.forms.ts_frame)."""
    form = time_form()
    if form.mode == "ticks":
        return cells
    form.check()
    values = cells.python()
    if fmt == "parquet":
        return Cells(cells.name, "object", form.series(values, fmt))
    return Cells(cells.name, "object", form.texts([None if _null(v) else v for v in values]))


# ---------------------------------------------------------------------- CSV, text table, Parquet
_CSV_QUOTED = '[,"\r\n]'  # RFC 4180: a comma, a quote or a line break (CR too: every reader ends a line there)


def csv_quote(text: pa.Array) -> pa.Array:
    """Cells quoted as RFC 4180 asks, where needed: those with a comma, a quote or a line break (CR or LF),
    enclosed in quotes, their quotes doubled. Python's csv module (QUOTE_MINIMAL) quotes the same cells
    but for a lone CR, which it leaves bare with '\\n' line ends (and every reader, the csv module too,
    then splits the row there); pyarrow.csv quotes every text cell. Kept in Arrow's string kernels: no
    Python call per cell (1 M rows × 3 columns: 0.4 s, where csv.writer from to_pylist takes 0.6 s)."""
    needs = pc.match_substring_regex(text, _CSV_QUOTED)
    if not pc.any(needs).as_py():
        return text
    quoted = pc.binary_join_element_wise('"', pc.replace_substring(text, '"', '""'), '"', "")
    return pc.if_else(needs, quoted, text)


def csv_line(texts: Sequence[str]) -> str:
    """One CSV line of texts (the header), quoted as `csv_quote` quotes cells."""
    if len(texts) == 1 and texts[0] == "":
        return '""\n'   # a lone empty field is written "" (else the line would be empty)
    return ",".join(csv_quote(pa.array(list(texts), _STR)).to_pylist()) + "\n"


def csv_text(names: Sequence[str], cells: Sequence[Cells], rows: int | None = None) -> list[pa.Buffer | bytes]:
    """The CSV text (header, then one line per row) in pieces; `rows` says how many rows where there are
    no columns (each an empty line)."""
    out: list[pa.Buffer | bytes] = [csv_line(names).encode()]
    columns = [csv_quote(c.csv()) for c in cells]
    n = len(columns[0]) if columns else 0
    if not columns:
        return out + [b"\n" * (rows or 0)]
    for i in range(0, n, SLICE):
        part = [c.slice(i, SLICE) for c in columns]
        if len(part) == 1:
            line = pc.if_else(pc.equal(part[0], ""), '""', part[0])  # csv writes a lone empty field as ""
        else:
            line = pc.binary_join_element_wise(*part, ",")
        out.append(text_bytes(line))
    return out


def table_text(names: Sequence[str], cells: Sequence[Cells]) -> str:
    """The aligned text table (cepkit.forms.render_table's layout)."""
    return render_columns(list(names), [c.cell() for c in cells], [c.right() for c in cells])


def parquet_table(names: Sequence[str], cells: Sequence[Cells], encoded: dict[str, pa.Array]) -> pa.Table:
    return pa.Table.from_arrays([c.arrow(encoded.get(n)) for n, c in zip(names, cells)], names=list(names))


# ---------------------------------------------------------------------- chunk by chunk (docs/semantics.md SD2)
class Spill:
    """The match tables of a chunked run kept on disk (one Arrow IPC file each, in a temporary folder), so
    that the output can be written anew from them at the end without holding them in memory meanwhile."""

    def __init__(self) -> None:
        import tempfile

        self.folder = tempfile.TemporaryDirectory(prefix=tagged(SPILL))  # the pid: removed after a SIGKILL
        self.paths: list[str] = []
        self.bound = limit(self.folder.name)
        self.size = 0

    def add(self, table: MatchTable) -> None:
        import os

        path = os.path.join(self.folder.name, f"{len(self.paths)}.arrow")
        arrow = table.to_arrow()
        if self.size + arrow.nbytes > self.bound:
            raise ResourceLimit(f"the matches kept on disk to write the output at the end would pass "
                                f"{shown(self.bound)} in {os.path.dirname(self.folder.name)} ({LIMIT_VARIABLE}, "
                                "default 90% of the free space there): use --format jsonl, which is written as "
                                "it goes, --limit N, or set TMPDIR or CEPKIT_TEMP_MAX")
        with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, arrow.schema) as writer:
            writer.write_table(arrow)
        self.paths.append(path)
        self.size += os.path.getsize(path)

    def tables(self, layout) -> list[MatchTable]:
        """The tables added, read back."""
        out = []
        for path in self.paths:
            with pa.memory_map(path) as source:
                out.append(MatchTable(layout, arrow=pa.ipc.open_file(source).read_all()))
        return out

    def drop(self) -> None:
        self.folder.cleanup()


def chunk_columns(table: MatchTable, fmt: str) -> tuple[list[str], list[Cells], Any]:
    """(names, cells, what identifies their typing) of one chunk's matches in `fmt` (csv: each column's
    form; parquet: the Arrow table, whose schema identifies it). Chunks whose typing is the first chunk's
    are written as the whole table would be."""
    names, cells, encoded = match_cells(table, fmt)
    if fmt == "csv":
        return names, cells, tuple(c.form for c in cells)
    return names, cells, parquet_table(names, cells, encoded)
