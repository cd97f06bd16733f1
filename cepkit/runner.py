"""`cepkit run`, for every language: compile → read → feed / close → write, through `cepkit.compile` and the
registry. What differs by language is declared: on the registry (whether its programs take the whole input,
and why; its output form) and in its runner module, cepkit/runners/LANG.py:

    add_options(group)                 its own flags (optional)
    compile_options(args, engine)      those flags as the engine's compile options (optional; they override
                                       --limit / --max-state's: limit=None where --limit cuts what is written)
    query(args)                        what is compiled, when it is not the query file's text (optional)
    compiled(args, program)            a check of the compiled program before any event is read (optional)
    summary(args, program, stats)      the line `cepkit run` prints on stderr at the end
    write(table, program, args)        the whole table written in the language's output form, the rows
                                       written returned (every form but "matches": cepkit/output_forms.py)
"""
from __future__ import annotations

import argparse
import contextlib
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Iterable

from cepkit.api import program_for, warn_unbounded
from cepkit.engine_choice import read_with
from cepkit.event_count import EventCount
from cepkit.progress import Progress
from cepkit.summary_line import summary_line
from cepkit.run_steps import CHUNK_SIZE, limit_options, limited, read_query
from cepkit.core import registry
from cepkit.core.compiles import Compiles
from cepkit.core.errors import EventError, QueryError
from cepkit.core.readers import event_format
from cepkit.output_forms import open_writer
from cepkit.overlap import OverlappedWrites



@dataclass
class Stats:
    """What a run did, for its summary line."""
    engine: str
    count: int          # matches (rows) written
    events: int         # events read
    elapsed: float      # seconds from the first event read to the last match written
    notes: str          # "; whole input read: ..." and the like, each after "; "


def run(args: argparse.Namespace, name: str, runner: ModuleType) -> int:
    """Run the query of `args` in language `name`, whose runner module is `runner`; the exit code."""
    engine = args.engine or registry.language(name).default_engine   # checked against the registry by `cepkit run`
    # (no --engine: the fastest engine that runs the query, cepkit/engine_choice.py; the summary names the one that ran)
    compiles = None
    if registry.compiles(name, engine):   # from before the engine's modules load (kernels with signatures
        compiles = Compiles().start()     # compile as they are imported)
    try:
        engine_ = registry.get_engine(name, engine)
        if args.device is not None and not registry.takes(engine_, "device"):
            raise QueryError("--device chooses the OpenCL device of --engine gpu; add --engine gpu or drop --device")
        options = runner.compile_options(args, engine_) if hasattr(runner, "compile_options") else {}
        if args.device is not None:
            options["device"] = args.device
        chunk, whole = chunking(args, name, engine)
        query = runner.query(args) if hasattr(runner, "query") else read_query(args.query)
        program, writer, events, elapsed = _run(args, name, engine, runner, query, options, chunk)
    finally:
        if compiles is not None:
            compiles.stop()
    said = compiles.line() if compiles is not None else None
    if said:   # a first run: says what it compiled, and how long it took
        summary_line(args, said)
    limited(args, writer.count)
    notes = "".join(f"; {n}" for n in (whole, writer.held_note(bool(chunk))) if n)
    stats = Stats(program.engine_name if args.engine is None else engine, writer.count, events, elapsed, notes)
    summary_line(args, runner.summary(args, program, stats))
    return 0


def _run(args: argparse.Namespace, name: str, engine: str, runner: ModuleType, query: Any, options: dict,
         chunk: int) -> tuple[Any, Any, int, float]:
    """Compile, read, feed / close, write: (the program, its writer, the events read, the seconds taken)."""
    def reread(engine_: str) -> Iterable[Any]:
        return batches(args, name, engine_, program, chunk)

    program = program_for(name, query, args.engine, {**reading_flags(args, name, engine), **limit_options(args),
                                                     **options}, reread=reread)
    warn_unbounded(name, getattr(program, "query", None))
    if hasattr(runner, "compiled"):
        runner.compiled(args, program)
    started = time.monotonic()
    progress = run_progress(args, program, chunk)
    events = 0
    with open_writer(registry.language(name).output, args, program, runner) as writer, \
            OverlappedWrites(writer.write, enabled=bool(chunk)) as write:   # a failed run leaves --output as it was
        for batch in batches(args, name, engine, program, chunk, choose=args.engine is None):
            progress.offset = events
            write(program.feed(batch, progress), batch)   # written while the next chunk is read and matched
            events += len(batch)
            if program.budget.stopped:
                break  # --limit: read no further
        write(program.close())
        write.wait()
        progress.finish()
        writer.close()
    return program, writer, events, time.monotonic() - started


def run_progress(args: argparse.Namespace, program: Any, chunk: int) -> Progress:
    """The run's progress bar (none with --no-progress or -q): the engine's events of the whole input, or
    with chunked reading the events fed of those the file holds (cepkit.event_count), with the matches and
    the live partial matches of the program's Budget."""
    progress = Progress(f"cepkit {args.engine or program.engine_name}", not (args.no_progress or args.quiet),
                        open_ended=bool(chunk)).watch(program.budget)
    if progress.enabled and chunk and args.events is not None:
        with contextlib.suppress(EventError):   # a file the reader cannot place is its to report
            progress.count = EventCount(args.events, event_format(args.events))
    return progress


def reading_flags(args: argparse.Namespace, name: str, engine: str) -> dict:
    """The reading flags given (a flag not given leaves the reader's default), as the keywords `cepkit.compile`
    takes for what the program reads (those the language's reader takes)."""
    reading = registry.read_option_names(name, engine)
    flags = {"ts_unit": args.ts_unit, "type_col": args.type_col, "default_type": args.default_type,
             "id_col": args.id_col, "sort": args.sort or None, "ts_col": getattr(args, "ts_col", None)}
    return {k: v for k, v in flags.items() if k in reading and v is not None}


def batches(args: argparse.Namespace, name: str, engine: str, program: Any, chunk: int,
            choose: bool = False) -> Iterable[Any]:
    """What the program is fed: the events in chunks of `chunk` (0: the whole input at once), read with the
    reading options the program was compiled with (cepkit.compile keeps them: `program.read_options`), as
    `engine` reads them (`choose`: as the engine the program chose reads them, cepkit/engine_choice.py)."""
    options = dict(program.read_options)
    if not chunk:   # (no events file: a query that carries its rows, SQL's VALUES)
        def read(engine_: str | None) -> Any:
            return registry.read_input(name, engine_ or engine, args.events, getattr(program, "query", None), **options)

        return [read_with(program, read) if choose else read(engine)]
    from cepkit.core.event_chunks import iter_events   # lazy: chunked reading only

    options.pop("sort", None)
    return iter_events(args.events, chunk, **options)


def chunking(args: argparse.Namespace, name: str, engine: str) -> tuple[int, str | None]:
    """(the events read and fed at a time, 0 for the whole input; why the whole input is read where that is
    not what was asked for, for the summary line). docs/semantics.md SD1."""
    size, whole = getattr(args, "chunk_size", None), getattr(args, "whole", False)
    if whole and size:
        raise QueryError(f"--whole reads the whole input; --chunk-size {size} reads it in chunks: give one of them")
    if args.sort and size:
        raise QueryError("--sort needs the whole file: it cannot be combined with --chunk-size")
    reason = registry.language(name).whole
    if reason is not None:
        return 0, f"whole input read: {reason}"
    if whole or size == 0:
        return 0, None
    if size is not None:
        return size, None
    if args.sort:
        return 0, "whole input read: --sort orders every event first"
    reason = registry.engine_entry(name, engine).whole   # (the language's was checked first)
    if reason is not None:
        return 0, f"whole input read: {reason}"
    return CHUNK_SIZE, None


def option_for(args_flag: str, option: str, name: str, engine: Any, named: bool = True) -> None:
    """QueryError when the engine does not take `option`, naming the flag and the engines that do. With no
    engine `named` (--engine), only when none of the engines the choice tries takes it (by_speed): else the
    engine choice passes over those that do not and says so if none runs the query (cepkit/engine_choice.py)."""
    if registry.takes(engine, option):
        return
    tried = () if named else registry.language(name).by_speed
    if not any(registry.takes(registry.get_engine(name, e), option) for e in tried):
        others = registry.engines_taking(name, option)
        raise QueryError(f"{args_flag} applies to --engine {' or '.join(others)} only, not {engine.name}")
