"""Write matches as JSON lines, CSV, Parquet or a text table; `--output FILE` atomically (a temporary file
beside the target, renamed onto it only when the whole run succeeded)."""
from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from cepkit import match_output as M
from cepkit.core.errors import CepkitError
from cepkit.core.match import Match
from cepkit.core.match_table import MatchTable
from cepkit.temp_files import output_prefix, tagged
from cepkit.forms import frame_csv, json_line, note_input, render_table, ts_frame, ts_records

if TYPE_CHECKING:
    import pandas as pd


class OutputError(CepkitError):
    """The matches could not be written where the user asked."""

    exit_code = 1


class AtomicFile:
    """`--output FILE` written through a temporary file beside it (`.FILE.cepkit-tmp-PID-XXXX`, same directory,
    so the rename stays on one file system): `commit` renames it onto FILE, `abort` removes it and FILE
    stays byte for byte as it was. A FILE that exists and is not a regular file (/dev/null, a FIFO) cannot
    be replaced by a rename and is written directly. A symbolic link is followed: its target is replaced."""

    def __init__(self, output: str):
        self.output = output
        self.target = os.path.realpath(output)
        self.fh = None
        try:
            mode = os.stat(self.target).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as exc:
            raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None
        if mode is not None and stat.S_ISDIR(mode):
            raise OutputError(f"cannot write {output}: it is a directory")
        self.direct = mode is not None and not stat.S_ISREG(mode)
        if self.direct:
            self.path = self.target
            return
        directory, name = os.path.split(self.target)
        try:
            fd, self.path = tempfile.mkstemp(prefix=tagged(output_prefix(name)), dir=directory)
        except OSError as exc:
            raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None
        os.close(fd)
        # the permissions a plain open() would give: the old file's, else 0666 less the umask
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.path, stat.S_IMODE(mode) if mode is not None else 0o666 & ~umask)

    def open(self):
        """The temporary file, open for text."""
        try:
            self.fh = open(self.path, "w", encoding="utf-8")
        except OSError as exc:
            self.abort()
            raise OutputError(f"cannot write {self.output}: {exc.strerror or exc}") from None
        return self.fh

    def commit(self) -> None:
        """Close the file, flush it to disk and rename it onto the target."""
        try:
            if self.fh is not None:
                self.fh.close()
            if not self.direct:
                fd = os.open(self.path, os.O_RDONLY)
                try:
                    os.fsync(fd)  # the rename must not reach the disk before the data
                finally:
                    os.close(fd)
                os.replace(self.path, self.target)
        except OSError as exc:
            self.abort()
            raise OutputError(f"cannot write {self.output}: {exc.strerror or exc}") from None

    def abort(self) -> None:
        """Drop the temporary file; the target is untouched."""
        if self.fh is not None:
            with contextlib.suppress(OSError):
                self.fh.close()
        if not self.direct:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)


@contextlib.contextmanager
def atomic_output(output: str) -> Iterator[AtomicFile]:
    """An AtomicFile for `output`, committed when the block ends normally and aborted when it raises
    anything (an error, KeyboardInterrupt, SystemExit)."""
    f = AtomicFile(output)
    try:
        yield f
    except BaseException:
        f.abort()
        raise
    f.commit()


def write_output(fmt: str, output: str | None, records: Callable[[], Iterable[dict]],
                 frame: Callable[[str], pd.DataFrame], empty: str, ts_columns: Sequence[str] = ("ts",)) -> None:
    """Write results: JSON lines from `records()`; csv, table or parquet (to `output`, which the CLI requires
    for parquet: cepkit.cli.main) from `frame(fmt)`. `ts_columns` are written in the run's timestamp form
    (`time_form`)."""
    try:
        if fmt == "jsonl":
            write_text("".join(json_line(r) for r in ts_records(records(), ts_columns)), output)
            return
        table = ts_frame(frame(fmt), ts_columns, fmt)
        if fmt == "parquet":
            with atomic_output(output) as f:
                table.to_parquet(f.path, index=False)
        elif fmt == "csv":
            write_text(frame_csv(table), output)
        else:
            write_text((render_table(table) if len(table) else empty) + "\n", output)
    except OSError as exc:
        raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None


def write_matches(matches: "MatchTable | Sequence[Match]", fmt: str, output: str | None, program: Any,
                  payload_only: bool = False, empty: str = "(no matches)") -> None:
    """The matches in `fmt` (csv, table, parquet, jsonl) to `output` or standard output, column by column
    (cepkit.match_output): a list of ids per variable, ts, then the RETURN items; with `payload_only` the
    RETURN items alone (one row per match)."""
    table = _table(matches, program)
    try:
        if fmt == "jsonl":
            write_pieces(M.jsonl(table, payload_only), output)
            return
        names, cells, encoded = M.match_cells(table, fmt, payload_only)
        if fmt == "parquet":
            import pyarrow.parquet as pq

            with atomic_output(output) as f:
                pq.write_table(M.parquet_table(names, cells, encoded), f.path)
        elif fmt == "csv":
            write_pieces(M.csv_text(names, cells, len(table)), output)
        else:
            write_text((M.table_text(names, cells) if len(table) else empty) + "\n", output)
    except OSError as exc:
        raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None


def write_rows(columns: Sequence[str], values: dict[str, list], n: int, fmt: str, output: str | None,
               empty: str, timestamps: Sequence[str] = ()) -> None:
    """Rows given as columns of plain values (a name given twice: its last column), written column by
    column (cepkit.match_output.Rows) as `write_output` wrote their dicts: `timestamps` in the run's form."""
    rows = M.Rows(columns, values, n, timestamps)
    try:
        if fmt == "jsonl":
            write_pieces(rows.jsonl(), output)
            return
        cells = rows.cells(fmt)
        if fmt == "parquet":
            import pyarrow.parquet as pq

            with atomic_output(output) as f:
                pq.write_table(M.parquet_table(rows.names, cells, {c: e[0] for c, e in rows.encoded.items()}), f.path)
        elif fmt == "csv":
            write_pieces(M.csv_text(rows.names, cells, n), output)
        else:
            write_text((M.table_text(rows.names, cells) if n else empty) + "\n", output)
    except OSError as exc:
        raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None


def _table(matches: Any, program: Any) -> "MatchTable":
    return matches if isinstance(matches, MatchTable) else MatchTable.from_matches(program.layout, list(matches))


class MatchWriter:
    """Matches written as they come, chunk by chunk (docs/semantics.md SD2): JSON lines, and CSV where the
    layout has no RETURN columns, go out on every `write`. CSV with RETURN columns and Parquet are appended
    chunk by chunk (CSV lines; Parquet row groups) while every chunk's columns take the first chunk's
    types, the tables kept on disk meanwhile (match_output.Spill); where a chunk's types differ, `close`
    writes the output anew from the disk copy, typed over all rows, as the whole-input run does. The text
    table (its column widths) is held and written by `close` (`held_note` says so). With `output` all goes
    to a temporary file beside it, renamed onto it by `close`; CSV for standard output is spooled to a
    temporary file until then. Use it as a context manager: a block that raises leaves `output` as it was.
    Each table is written column by column (cepkit.match_output)."""

    def __init__(self, fmt: str, output: str | None, program: Any):
        self.fmt, self.output, self.program = fmt, output, program
        self.held: list = []
        self.count = 0
        self.fh = None
        self.file: AtomicFile | None = None
        self.streamed = fmt == "jsonl" or (fmt == "csv" and not program.layout.payload)
        self.appended = not self.streamed and (fmt == "csv" or (fmt == "parquet" and bool(output)))
        self.header = fmt != "csv"  # whether the CSV header is out
        self.spill = self.typing = self.parquet = None
        if self.appended:
            self.spill = M.Spill()
        if (self.streamed or self.appended) and output:
            self.file = AtomicFile(output)
            if fmt != "parquet":
                self.fh = self.file.open()
        elif self.appended and fmt == "csv":
            # standard output, once all is known; newline="": read back as written (a CR in a value stays one)
            self.fh = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")

    def __enter__(self) -> "MatchWriter":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if kind is not None:
            self.abort()

    def write(self, matches: "MatchTable | Sequence[Match]", batch: Any = None) -> None:
        """Matches found in `batch` (the events read: the first one decides the timestamps' form)."""
        note_input(batch)
        self.count += len(matches)
        if not len(matches):
            return
        table = _table(matches, self.program)
        if not (self.streamed or self.appended):
            self.held.append(table)
            return
        if self.fmt == "jsonl":
            self._out(M.jsonl(table))
            return
        if self.appended:
            self.spill.add(table)
            if self.typing is False:
                return  # written anew by close
            names, cells, typing = M.chunk_columns(table, self.fmt)
            if self.fmt == "parquet":
                self._row_group(typing)
                return
            if self.typing is None:
                self.typing = typing
            elif typing != self.typing:
                self.typing = False
                return
        else:
            names, cells, _ = M.match_cells(table, "csv")
        pieces = M.csv_text(names, cells, len(table))
        self._out(pieces if not self.header else pieces[1:])
        self.header = True

    def _row_group(self, arrow: Any) -> None:
        import pyarrow.parquet as pq

        try:
            if self.parquet is None:
                self.parquet = pq.ParquetWriter(self.file.path, arrow.schema)
                self.typing = arrow.schema
            if not arrow.schema.equals(self.typing):
                self.typing = False
                return
            self.parquet.write_table(arrow)
        except OSError as exc:
            raise OutputError(f"cannot write {self.output}: {exc.strerror or exc}") from None

    def _out(self, pieces: Iterable[Any]) -> None:
        try:
            write_stream(pieces, self.fh or sys.stdout)
        except OSError as exc:
            raise OutputError(f"cannot write {self.output}: {exc.strerror or exc}") from None

    def held_note(self, chunked: bool = True) -> str | None:
        """Why the matches were held until the end of a chunked run (None where they were not)."""
        if not chunked or self.streamed or (self.appended and self.typing is not False):
            return None
        why = {"table": "its column widths need every row",
               "parquet": "a chunk's column types differ from the first chunk's",
               "csv": "a chunk's column types differ from the first chunk's"}[self.fmt]
        return f"{self.fmt} output written at the end: {why}"

    def close(self) -> None:
        """Finish the output: the CSV header where no match wrote it, rename the written output onto
        `output` (or copy the spooled CSV to standard output), or write the held matches."""
        if self.appended and (self.typing is False or not self.spill.paths):
            try:
                held = MatchTable.concat(self.program.layout, self.spill.tables(self.program.layout))
                write_matches(held, self.fmt, self.output, self.program)
            finally:
                self.abort()
            return
        if self.streamed and not self.header:
            self._out(M.csv_text(list(self.program.layout.variables) + ["ts"], [], 0)[:1])
            self.header = True
        if self.parquet is not None:
            self.parquet.close()
            self.parquet = None
        if self.spill is not None:
            self.spill.drop()
            self.spill = None
        if self.file is not None:
            self.file.commit()
            self.file = None
        elif self.appended:
            self._copy_out()
        elif self.streamed:
            sys.stdout.flush()
        else:
            write_matches(MatchTable.concat(self.program.layout, self.held), self.fmt, self.output, self.program)

    def _copy_out(self) -> None:
        import shutil

        self.fh.seek(0)
        sys.stdout.flush()
        shutil.copyfileobj(self.fh, sys.stdout)
        sys.stdout.flush()
        self.fh.close()
        self.fh = None

    def abort(self) -> None:
        """The run failed (or is written anew): drop what was written; `output` stays as it was."""
        if self.parquet is not None:
            with contextlib.suppress(Exception):
                self.parquet.close()
            self.parquet = None
        if self.file is not None:
            self.file.abort()
            self.file = None
        if self.fh is not None and self.appended:
            with contextlib.suppress(OSError):
                self.fh.close()
        self.fh = None
        if self.spill is not None:
            self.spill.drop()
            self.spill = None


def write_stream(pieces: Iterable[Any], fh: Any) -> None:
    """UTF-8 pieces (bytes, Arrow buffers) to a text file object: through its binary buffer where it has
    one, else decoded."""
    raw = getattr(fh, "buffer", None)
    if raw is not None:
        fh.flush()
        for p in pieces:
            raw.write(p)
        raw.flush()
    else:
        for p in pieces:
            fh.write(bytes(p).decode("utf-8"))


def write_pieces(pieces: Iterable[Any], output: str | None) -> None:
    """UTF-8 pieces to `output` (atomically), or to standard output."""
    if output:
        with atomic_output(output) as f:
            try:
                write_stream(pieces, f.open())
            except OSError as exc:
                raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None
    else:
        write_stream(pieces, sys.stdout)
        sys.stdout.flush()


def write_text(text: str, output: str | None) -> None:
    """`text` to `output` (atomically), or to standard output."""
    if output:
        with atomic_output(output) as f:
            try:
                f.open().write(text)
            except OSError as exc:
                raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
