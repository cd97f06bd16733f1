"""What runs inside a Spark task: feed each group (a key, or a time slice) of sorted events to an engine
and turn its matches into Arrow rows. Plain Python and pyarrow, so it is testable without Spark."""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from cepkit.core.errors import CepkitError, EventError, QueryError
from cepkit.core.events import EventBatch
from cepkit.core.match import Match, plain
from cepkit.core.match_table import MatchTable, jsonable
from cepkit.core.readers import from_arrow, from_columns, from_pandas
from cepkit.core.typed_columns import combine_forms, conform, form_of, text_column  # noqa: F401 (T.*)
from cepkit.spark_jobs.match_rows import output_batch
from cepkit.spark_jobs.kernel_pack import unpacking
from cepkit.spark_jobs.task_errors import folder, remembering
from cepkit.spark_jobs.typed_output import BATCH_VALUES, struct_of, value_type
from cepkit.core import registry

SLICE_COL = "__cepkit_slice"   # the time slice a row is fed to (slice plan)
TICK_COL = "__cepkit_t"        # the timestamp as a whole number of ticks (slice plan)
KEY_COL = "__cepkit_key"       # KEY_COL + str(k): the group of key column k read as text (key plan)
INTERNAL = "__cepkit_"         # the prefix of the columns above, dropped before the events are read
# An error raised inside a task crosses Spark as text; the driver finds it between these markers.
_ERROR_RE = re.compile(r"<<cepkit:(\w+):(.*?):cepkit>>", re.S)


@dataclass(frozen=True)
class TaskSpec:
    """Everything a task needs, shipped to the executors with the function."""

    query: str
    engine: str
    selection: str
    ts_col: str
    id_col: str
    type_col: str | None
    default_type: str | None
    ts_unit: str | None
    type_names: tuple[str, ...]          # the whole stream's type dictionary (type names bind alike)
    group_cols: tuple[str, ...]          # the key columns, or (SLICE_COL,)
    variables: tuple[str, ...]
    returns: tuple[str, ...]
    id_is_int: bool
    text_cols: tuple[str, ...] = ()      # attribute columns that arrive as CSV text, typed in the task
    text_forms: tuple[tuple[str, str], ...] = ()  # (column, form over the whole file) of those the query reads
    slice_length: int | None = None      # slice plan: slice j owns ticks [t_min + j*len, t_min + (j+1)*len)
    slice_t_min: int | None = None
    fail_once_marker: str | None = None  # tests: the first task to create this file fails once
    # tests: every task's first attempt fails, ("before", LOG_DIR) before it emits a row, ("after", LOG_DIR)
    # right after its first non-empty output; each injected failure is logged as a file in LOG_DIR
    fail_first_attempt: tuple[str, str] | None = None
    values: str = BATCH_VALUES           # how RETURN values are written (typed_output.value_type)
    type_coded: bool = False             # type_col holds 1 + the type's index in type_names (job.type_code)


def output_schema(spec_variables: Iterable[str], returns: Iterable[str], id_is_int: bool,
                  values: str = BATCH_VALUES) -> pa.Schema:
    """One row per match: a list of ids per variable, ts (the last event's), RETURN values as `values` writes
    them (JSON text, or typed_output.VALUE structs for typed_output.BATCH_VALUES)."""
    id_type = pa.int64() if id_is_int else pa.string()
    fields = [pa.field(v, pa.list_(id_type)) for v in spec_variables]
    fields.append(pa.field("ts", pa.int64()))
    fields += [pa.field(r, value_type(values)) for r in returns]
    return pa.schema(fields)


def matches_to_arrow(spec: TaskSpec, matches: list[Match] | MatchTable) -> pa.RecordBatch:
    """The job's rows for `matches`: a match table column by column (cepkit.spark_jobs.match_rows), Match rows one
    by one."""
    values = spec.values
    schema = output_schema(spec.variables, spec.returns, spec.id_is_int, values)
    if isinstance(matches, MatchTable):
        return output_batch(matches, spec.variables, spec.returns, spec.id_is_int, schema, values)
    data: dict[str, list] = {v: [] for v in spec.variables}
    data["ts"] = []
    for r in spec.returns:
        data[r] = []
    for m in matches:
        b = m.binding_dict
        for v in spec.variables:
            ids = b.get(v, ())  # integer ids go to Arrow as they are (Arrow converts the tuple in C)
            data[v].append(ids if spec.id_is_int else [str(plain(i)) for i in ids])
        data["ts"].append(int(m.ts))
        payload = dict(m.payload)
        for r in spec.returns:
            value = payload.get(r)
            data[r].append(value if values == BATCH_VALUES else json.dumps(jsonable(value)))
    if values == BATCH_VALUES:
        data.update({r: struct_of(data[r]) for r in spec.returns})
    return pa.RecordBatch.from_pydict(data, schema=schema)


# ---------------------------------------------------------------------------------------------
# Errors across the Spark boundary.

def wrap_error(exc: CepkitError) -> RuntimeError:
    kind = "query" if isinstance(exc, QueryError) else "event" if isinstance(exc, EventError) else "other"
    return RuntimeError(f"<<cepkit:{kind}:{exc}:cepkit>>")


def unwrap_error(text: str) -> CepkitError | None:
    """The cepkit error that a failed task reported, if any."""
    found = _ERROR_RE.search(text)
    if not found:
        return None
    kind, message = found.group(1), found.group(2)
    if kind == "query":
        return QueryError(message)
    if kind == "event":
        return EventError(message)
    return CepkitError(message)


def _maybe_fail_once(spec: TaskSpec) -> None:
    if not spec.fail_once_marker:
        return
    try:
        fd = os.open(spec.fail_once_marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.close(fd)
    raise RuntimeError("cepkit: injected failure of a task's first attempt (test of task retry)")


_EMITTED: dict[int, int] = {}  # rows emitted so far per task attempt (applyInPandas calls once per group)


def _maybe_fail_first_attempt(spec: TaskSpec, when: str, emitted: int) -> None:
    """Tests of task retry: raise in a task's first attempt at the point `when` ("before" a row was emitted,
    or "after" some were), logging the failure in the spec's log directory."""
    if spec.fail_first_attempt is None or spec.fail_first_attempt[0] != when:
        return
    from pyspark import TaskContext

    ctx = TaskContext.get()
    if ctx is None or ctx.attemptNumber() != 0 or (when == "after" and emitted == 0):
        return
    log = os.path.join(spec.fail_first_attempt[1], f"stage{ctx.stageId()}-part{ctx.partitionId()}-{when}-{emitted}")
    with open(log, "w", encoding="utf-8"):
        pass
    raise RuntimeError(f"cepkit: injected failure of a task's first attempt {when} emitting rows ({emitted} emitted)")


# ---------------------------------------------------------------------------------------------
# Groups.

def split_groups(batch: pa.RecordBatch, cols: tuple[str, ...]) -> list[tuple[tuple, int, int]]:
    """(key, start, stop) for each run of rows with equal values in `cols` (nulls equal to nulls)."""
    import pyarrow.compute as pc

    n = batch.num_rows
    if n == 0:
        return []
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for c in cols:
        col = batch.column(c)
        after, before = col.slice(1), col.slice(0, n - 1)
        same = pc.or_kleene(pc.fill_null(pc.equal(after, before), False),
                            pc.and_(pc.is_null(after), pc.is_null(before)))
        change[1:] |= ~same.to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(change)
    stops = np.append(starts[1:], n)
    columns = [batch.column(c) for c in cols]
    return [(tuple(_plain_key(col[int(s)].as_py()) for col in columns), int(s), int(e)) for s, e in zip(starts, stops)]


def _plain_key(value):
    """NaN is null, as the event readers read it."""
    return None if isinstance(value, float) and value != value else value


@functools.lru_cache(maxsize=8)
def parsed(query: str):
    """The query's AST, parsed once per worker process (a task compiles a program per group)."""
    return registry.parse("sase", query)


class GroupRunner:
    """Feeds one group's events to a fresh program, chunk by chunk, and collects its matches."""

    def __init__(self, spec: TaskSpec, key: tuple, program: Any = None):
        """`program`: a program to go on with (a streaming key's, kept in Spark's state store), else a new one."""
        self.spec = spec
        self.key = key
        self.program = program if program is not None else \
            registry.get_engine("sase", spec.engine).compile(parsed(spec.query), selection=spec.selection)
        self.tables: list[MatchTable] = []   # the matches found so far, as the program returned them
        self.ids: list[np.ndarray] = []
        self.ticks: list[np.ndarray] = []

    def feed(self, rows: pa.Table | pd.DataFrame) -> None:
        """Feed the next rows of the group (an Arrow table, or a pandas frame from applyInPandas)."""
        spec = self.spec
        internal = [c for c in _names(rows) if c.startswith(INTERNAL)]
        if spec.slice_length is not None:
            self.ticks.append(np.asarray(rows[TICK_COL]) if isinstance(rows, pd.DataFrame)
                              else rows.column(TICK_COL).to_numpy())
        events = rows.drop(columns=internal) if isinstance(rows, pd.DataFrame) else rows.drop_columns(internal)
        batch = event_batch(spec, events)
        if spec.slice_length is not None:
            self.ids.append(np.asarray(batch.ids))
        try:
            self.tables.append(self.program.feed(batch))
        except EventError as exc:
            raise _name_event(exc, events, spec.id_col) from None

    def _found(self) -> int:
        return sum(len(t) for t in self.tables)

    def drain(self, at_least: int = 10_000) -> MatchTable | None:
        """Matches ready for output (by-key groups only; a slice filters them at its end), or None."""
        if self.spec.slice_length is not None or self._found() < at_least:
            return None
        out, self.tables = MatchTable.concat(self.program.layout, self.tables), []
        return out

    def finish(self) -> MatchTable:
        """The group's matches (a slice's: those that start inside it)."""
        matches = MatchTable.concat(self.program.layout, [*self.tables, self.program.close()])
        self.tables = []
        if self.spec.slice_length is None or not len(matches):
            return matches
        j = self.key[0]
        lo = self.spec.slice_t_min + j * self.spec.slice_length
        hi = lo + self.spec.slice_length
        first = _first_positions(matches.to_arrow(), matches.layout.variables, pd.Index(np.concatenate(self.ids)))
        ticks = np.concatenate(self.ticks)
        inside = (ticks[first] >= lo) & (ticks[first] < hi)
        return MatchTable(matches.layout, arrow=matches.to_arrow().filter(pa.array(inside)))


def event_batch(spec: TaskSpec, events: pa.Table | pd.DataFrame) -> EventBatch:
    """A task's events (internal columns dropped) as an event batch over the whole stream's type dictionary."""
    if spec.type_coded:   # the type column holds codes: read the rest, the codes are the type codes
        frame = isinstance(events, pd.DataFrame)
        codes = np.asarray(events[spec.type_col] if frame else events.column(spec.type_col)).astype(np.int32) - 1
        uncoded = dataclasses.replace(spec, type_coded=False, type_col=None, default_type=spec.type_names[0])
        rest = events.drop(columns=[spec.type_col]) if frame else events.drop_columns([spec.type_col])
        batch = event_batch(uncoded, rest)
        return dataclasses.replace(batch, type_codes=codes, type_names=spec.type_names)
    read = _typed_text if spec.text_cols else from_pandas if isinstance(events, pd.DataFrame) else from_arrow
    kw = dict(type_col=spec.type_col, ts_col=spec.ts_col, id_col=spec.id_col, ts_unit=spec.ts_unit,
              default_type=spec.default_type)
    if spec.text_cols:
        kw["text_cols"], kw["forms"] = spec.text_cols, dict(spec.text_forms)
    try:
        batch = read(events, **kw)
    except EventError as exc:
        raise _name_event(exc, events, spec.id_col) from None
    remap = np.array([spec.type_names.index(t) for t in batch.type_names], dtype=np.int32)
    codes = remap[batch.type_codes] if len(batch) else batch.type_codes
    return dataclasses.replace(batch, type_codes=codes, type_names=spec.type_names)


def _first_positions(table: pa.Table, variables, index: pd.Index) -> np.ndarray:
    """Per match, the least position in `index` (a slice's input ids, in order) of the events it binds."""
    first = np.full(table.num_rows, np.iinfo(np.int64).max, np.int64)
    for v in variables:
        col = table.column(v).combine_chunks()
        if col.null_count:
            col = pc.if_else(pc.is_null(col), pa.scalar([], col.type), col)
        offsets = col.offsets.to_numpy()
        values = col.flatten()
        ids = values.to_numpy(zero_copy_only=False) if len(values) else np.array([], dtype=index.dtype)
        where = index.get_indexer(ids).astype(np.int64)  # every bound event is in this slice's input
        sizes = np.diff(offsets)
        bound = sizes > 0
        if bound.any():
            least = np.minimum.reduceat(where, offsets[:-1][bound]) if len(where) else where
            first[bound] = np.minimum(first[bound], least)
    return first


def _typed_text(events: pa.Table | pd.DataFrame, *, text_cols: tuple[str, ...], forms: dict[str, str],
                **kw: Any) -> EventBatch:
    """The events of a CSV file: the columns in `text_cols` arrive as text (null for an empty cell) and are
    typed by the readers' rule (`text_column`) in the form the whole file's column has (`forms`, see
    `combine_forms`); the others (timestamp, id, type) as Spark read them."""
    table = events if isinstance(events, pa.Table) else pa.Table.from_pandas(events, preserve_index=False)
    text = set(text_cols)
    columns = {}
    for name in table.column_names:
        col = table.column(name)
        if name in text:
            cells = _cells(col)
            columns[name] = conform(text_column(cells), cells, forms.get(name))
        else:
            columns[name] = column_values(col)
    return from_columns(columns, table.num_rows, **kw)


def column_values(col: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A column Spark typed, as NumPy values the readers take: a DATE (Spark's DateType) as the instant of its
    midnight in nanoseconds, as the readers read a date (Arrow gives datetime64[D], which pandas refuses)."""
    if pa.types.is_date(col.type):
        col = col.cast(pa.timestamp("ns"))
    return col.to_numpy()


# ---------------------------------------------------------------------------------------------
# A text column's form over the whole file. `text_column` chooses a column's form (int64, float64, exact
# objects, bool or text) from all its cells; a task sees only some, so the driver first collects each
# chunk's form (`chunk_forms`), combines them as `text_column` would have (`combine_forms`), and every task
# brings its chunk to that form (`conform`); the three live in cepkit.core.typed_columns, shared with the
# chunked local reader.

FORM_SCHEMA = "col string, form string, nulls boolean, big boolean"


def _cells(col: pa.Array | pa.ChunkedArray) -> pa.Array:
    cells = pc.fill_null(col.cast(pa.string()), "")
    return cells.combine_chunks() if isinstance(cells, pa.ChunkedArray) else cells


def chunk_forms(cols: tuple[str, ...], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: one row (column, form, nulls, big) per column and batch."""
    for rb in batches:
        rows = [(c, *form_of(text_column(_cells(rb.column(c))))) for c in cols]
        yield pa.RecordBatch.from_pylist([dict(zip(("col", "form", "nulls", "big"), r)) for r in rows])


def _names(rows: pa.Table | pd.DataFrame) -> list[str]:
    return list(rows.columns) if isinstance(rows, pd.DataFrame) else rows.column_names


def _name_event(exc: EventError, events: pa.Table | pd.DataFrame, id_col: str) -> EventError:
    """The error with its chunk-relative row replaced by the event's id."""
    if exc.row is not None and 1 <= exc.row <= len(events) and id_col in _names(events):
        ident = events[id_col].iloc[exc.row - 1] if isinstance(events, pd.DataFrame) \
            else events.column(id_col)[exc.row - 1].as_py()
        ident = ident.item() if hasattr(ident, "item") else ident
        return EventError(f"event id {ident!r}: {exc.message}", column=exc.column)
    return exc


def match_partition(spec: TaskSpec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: rows arrive sorted by (group, ts, id); one program per group."""
    emitted = 0

    def emit(matches: MatchTable) -> pa.RecordBatch:
        nonlocal emitted
        emitted += len(matches)
        return matches_to_arrow(spec, matches)

    try:
        _maybe_fail_once(spec)
        _maybe_fail_first_attempt(spec, "before", 0)
        runner: GroupRunner | None = None
        for rb in batches:
            for key, start, stop in split_groups(rb, spec.group_cols):
                if runner is not None and key != runner.key:
                    yield emit(runner.finish())
                    _maybe_fail_first_attempt(spec, "after", emitted)
                    runner = None
                if runner is None:
                    runner = GroupRunner(spec, key)
                runner.feed(pa.Table.from_batches([rb.slice(start, stop - start)]))
                ready = runner.drain()
                if ready is not None:
                    yield emit(ready)
                    _maybe_fail_first_attempt(spec, "after", emitted)
        if runner is not None:
            yield emit(runner.finish())
            _maybe_fail_first_attempt(spec, "after", emitted)
    except CepkitError as exc:
        raise wrap_error(exc) from None


def match_group(spec: TaskSpec, frame: pd.DataFrame) -> pa.RecordBatch:
    """applyInPandas body: one key's rows, in any order; its matches as an Arrow batch (task_witnesses.
    gathering_frames hands them to Spark as a frame)."""
    try:
        _maybe_fail_once(spec)
        attempt = _task_attempt(spec)
        _maybe_fail_first_attempt(spec, "before", 0)
        _maybe_fail_first_attempt(spec, "after", _EMITTED.get(attempt, 0))  # an earlier group's rows are out
        frame = frame.sort_values([spec.ts_col, spec.id_col], kind="stable").reset_index(drop=True)
        key = tuple(frame[c].iloc[0] for c in spec.group_cols) if len(frame) else ()
        runner = GroupRunner(spec, key)
        runner.feed(frame)
        out = matches_to_arrow(spec, runner.finish())
        if attempt is not None:
            _EMITTED[attempt] = _EMITTED.get(attempt, 0) + out.num_rows
    except CepkitError as exc:
        raise wrap_error(exc) from None
    return out


def _task_attempt(spec: TaskSpec) -> int | None:
    """The task attempt's id when failures are injected (to count its rows across groups), else None."""
    if spec.fail_first_attempt is None:
        return None
    from pyspark import TaskContext

    ctx = TaskContext.get()
    return ctx.taskAttemptId() if ctx is not None else None


def call(fn: Any, spec: TaskSpec):
    """A one-argument function for Spark: fn(spec, arg) (a closure: Spark reads its arity); a cepkit error it
    raises is not computed again by a retry of its task (cepkit.spark_jobs.task_errors), and the kernels the
    driver shipped are unpacked before it runs (cepkit.spark_jobs.kernel_pack)."""
    def bound(arg):
        return fn(spec, arg)

    return remembering(unpacking(bound), folder(), lambda text: _ERROR_RE.search(text) is not None)
