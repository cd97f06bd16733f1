"""The `cepkit` command line: run a query over an event file, or explain what a query compiles to."""
from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
import warnings

import cepkit.options as option_types
from cepkit.core import memory, registry
from cepkit.core.errors import CepkitError, CepkitWarning, EventError, MissingExtra, QueryError, options_as_flags
from cepkit.core.limits import DEFAULT_MAX_STATE
from cepkit.languages import LANGUAGES, detect
from cepkit.progress import Progress  # noqa: F401  (where callers found it)
from cepkit.run_steps import limit_options, limited, read_query  # noqa: F401  (where callers found them)
from cepkit.summary_line import add_quiet
from cepkit.signal_watch import (SignalWatch, Terminated, dropped_signal, end_process, signal_of, stop_process,
                                 stopped_line)
from cepkit.usage import Parser, parse
from cepkit.temp_files import EVENTS, clean_up_after_killed_runs, copy_bounded, limit, remove_own, tagged

FORMATS = ("jsonl", "csv", "parquet", "table")

# Further subcommands of the door, each "module:function" taking the subparsers object and adding one parser.
EXTRA_COMMANDS: list[str] = ["cepkit.window_cli:register", "cepkit.replay_cli:register", "cepkit.spark_cli:register",
                             "cepkit.devices_cli:register", "cepkit.plot:register"]
COMMANDS_GROUP = "cepkit.commands"  # the entry points other packages add subcommands by (`cepkit conformance`)


def plugin_commands() -> list[str]:
    """The "module:function" of every subcommand a package adds through the entry points of COMMANDS_GROUP,
    by name (pyproject.toml: the conformance kit sits above the door, as it runs every engine)."""
    from importlib.metadata import entry_points  # reads the installed metadata: only when a subcommand needs it

    return [ep.value for ep in sorted(entry_points(group=COMMANDS_GROUP), key=lambda ep: ep.name)]


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}")
    return value


def version() -> str:
    """The installed cepkit's version (package metadata), else the source tree's pyproject.toml version."""
    import importlib.metadata
    import os
    import re

    try:
        return importlib.metadata.version("cepkit")
    except importlib.metadata.PackageNotFoundError:
        pass
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
    try:
        with open(path, encoding="utf-8") as f:
            m = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M)
    except OSError:
        m = None
    return m.group(1) if m else "unknown"


INPUT_FORMATS = ("csv", "jsonl", "parquet")


_COMPRESSION = ((b"\x1f\x8b", ".gz"), (b"BZh", ".bz2"), (b"\xfd7zXZ\x00", ".xz"))


def compression(data: bytes) -> str:
    """The suffix of the compression standard input's bytes are in (gzip, bzip2, xz by their magic), or ""."""
    return next((suffix for magic, suffix in _COMPRESSION if data.startswith(magic)), "")


def _head(data: bytes, suffix: str) -> bytes:
    """The first decompressed bytes (enough to sniff the format)."""
    import bz2
    import lzma
    import zlib

    try:
        if suffix == ".gz":
            return zlib.decompressobj(47).decompress(data[:65536], 4096)
        if suffix == ".bz2":
            return bz2.BZ2Decompressor().decompress(data[:65536], 4096)
        return lzma.LZMADecompressor().decompress(data[:65536], 4096)
    except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError):
        return b""  # the reader reports the damage, naming <stdin>


def sniff_format(data: bytes) -> str:
    """The events format of standard input's bytes: Parquet by its magic number, JSON lines when the first
    non-blank character opens an object or an array, else CSV (gzip, bzip2 and xz looked into)."""
    suffix = compression(data)
    if suffix:
        data = _head(data, suffix)
    if data[:4] == b"PAR1":
        return "parquet"
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return "jsonl" if head in (b"{", b"[") else "csv"


def _events_input(args: argparse.Namespace, stack) -> None:
    """`-` (standard input, read whole into a temporary file) and `--input-format` (a file whose suffix
    does not say its format): `args.events` becomes a path the readers take by its suffix, and
    `args.events_shown` what messages call it."""
    fmt = getattr(args, "input_format", None)
    if args.events != "-" and fmt is None and not is_stream(args.events):
        return
    if args.events == "-":
        args.events_shown = "<stdin>"
    path, shown = events_path(args.events, fmt, stack)
    args.events_temp, args.events_shown, args.events = path, shown, path


def stdin_head(raw) -> bytes:
    """The first bytes of standard input: at least 64 KiB (enough to sniff the format) and on past any
    leading white space (so that blank input is told from events), or all of it when shorter."""
    data = b""
    while True:
        piece = raw.read(65536)
        data += piece
        if not piece or (len(data) >= 65536 and data.strip()):
            return data


HEADER_MAX = 1 << 20  # the longest first line (CSV header) standard input may have


def sniffed_text(raw, data: bytes, fmt: str) -> bytes:
    """Standard input's first bytes `data`, read on (from `raw`) until CSV's header row ends; EventError (exit 3)
    before anything is copied where text is expected (CSV, JSON lines) and the first bytes hold a NUL byte
    (binary data: /dev/zero, an executable), or the CSV header row does not end within HEADER_MAX bytes."""
    suffix = compression(data)
    if fmt == "parquet":
        return data
    text = _head(data, suffix) if suffix else data
    if b"\0" in text:
        raise EventError(f"standard input is not {'CSV' if fmt == 'csv' else 'JSON lines'} text: its first bytes "
                         "hold a NUL byte (binary data); pipe CSV with a header row or JSON lines into cepkit, "
                         "or name Parquet with --input-format parquet")
    if fmt != "csv" or suffix:
        return data
    while b"\n" not in data and b"\r" not in data and len(data) < HEADER_MAX:
        piece = raw.read(65536)
        if not piece:
            return data   # a header row alone, with no line end
        data += piece
        if b"\0" in piece:
            raise EventError("standard input is not CSV text: it holds a NUL byte (binary data)")
    end = min((data.find(c) for c in (b"\n", b"\r") if c in data), default=-1)
    if end < 0 or end > HEADER_MAX:
        raise EventError(f"no header row on standard input: its first line is longer than {HEADER_MAX >> 20} MiB "
                         "(a CSV file starts with a header row naming its columns)")
    return data


def is_stream(events: str | None) -> bool:
    """Whether the events path names something read once, as standard input is: a FIFO (named pipe,
    `<(...)`) or a character device, which the readers cannot seek in or read twice."""
    import os
    import stat

    try:
        mode = os.stat(events).st_mode
    except (OSError, TypeError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def events_path(events: str, fmt: str | None, stack) -> tuple[str, str]:
    """(a path the readers read by its suffix, the name messages give it) for `-` (standard input) or a FIFO
    (is_stream), read to its end into a temporary file that `stack` removes, or a file whose format `fmt`
    names."""
    import os
    import tempfile

    if events == "-" or is_stream(events):
        if events == "-" and (sys.stdin is None or sys.stdin.isatty()):
            raise EventError("'-' reads the events from standard input, but it is a terminal: pipe or redirect "
                             "the events into cepkit (cepkit run QUERY - < events.csv)")
        if events == "-":
            source = sys.stdin.buffer
        else:
            try:
                source = stack.enter_context(open(events, "rb"))
            except OSError as exc:
                raise EventError(f"cannot read '{events}': {exc.strerror or exc}") from None
            if fmt is None:
                from cepkit.core.readers import event_format  # lazy: start-up

                with contextlib.suppress(EventError):
                    fmt = event_format(events)
        data = stdin_head(source)
        if not data.strip():
            where = "standard input" if events == "-" else f"'{events}'"
            raise EventError(f"no events on {where} (it was empty): pipe CSV with a header row or JSON "
                             "lines into cepkit")
        fmt = fmt or sniff_format(data)
        data = sniffed_text(source, data, fmt)
        # the pid in the name: a run killed by SIGKILL leaves it, the next run removes it (cepkit.temp_files)
        directory = stack.enter_context(tempfile.TemporaryDirectory(prefix=tagged(EVENTS)))
        path = os.path.join(directory, f"stdin.{fmt}{compression(data)}")
        with open(path, "wb") as f:  # copied on in pieces: the events are never all in memory (SD1)
            copy_bounded(source, f, data, limit(directory))
        return path, "<stdin>" if events == "-" else events
    directory = stack.enter_context(tempfile.TemporaryDirectory(prefix=tagged(EVENTS)))
    from cepkit.core.readers import check_file  # lazy: start-up (pyarrow's readers: only for --input-format, -)

    check_file(events)
    compressed = next((c for c in (".gz", ".bz2", ".xz", ".zst", ".zip") if events.lower().endswith(c)), "")
    path = os.path.join(directory, f"events.{fmt}{compressed}")  # the name the readers go by
    os.symlink(os.path.abspath(events), path)
    return path, events


def _cmd_run(args: argparse.Namespace) -> int:
    import contextlib

    from cepkit.forms import TimeForm, use_max_ids, use_time_form  # lazy: start-up (--version builds no run)

    with contextlib.ExitStack() as stack:
        _events_input(args, stack)
        stack.enter_context(use_time_form(TimeForm(args.ts_format, args.ts_unit)))
        stack.enter_context(use_max_ids(args.max_ids))
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    lang = detect(args.query, args.language, _text_if_needed(args.query, args.language))
    for other, options in _LANGUAGE_OPTIONS.items():
        for action in options if other != lang.name else ():
            if getattr(args, action.dest) != action.default:
                raise QueryError(f"{action.option_strings[0]} is an option for {other} queries, but "
                                 f"{args.query} is a {lang.name} query (use --language to say otherwise)")
    if args.events is None and not registry.language(lang.name).carries_rows:
        raise QueryError(f"{args.query} is a {lang.name} query: give the events file to run it over "
                         "(only a SQL query that carries its rows in VALUES runs without one)")
    if args.engine is not None:
        registry.engine_entry(lang.name, args.engine)  # QueryError naming the language's engines
        registry.require_engine(lang.name, args.engine)  # MissingExtra before any event is read
    module = importlib.import_module(lang.runner)
    if hasattr(module, "summary"):   # run by the one runner
        from cepkit.runner import run  # lazy: start-up (the engines' front door: not for --version)

        return run(args, lang.name, module)
    return module.run(args)


def _text_if_needed(path: str, explicit: str | None) -> str | None:
    """The query text when neither --language nor the file's suffix names the language."""
    if explicit is not None or registry.by_suffix(path) is not None:
        return None
    return read_query(path)


_LANGUAGE_OPTIONS: dict[str, list[argparse.Action]] = {}  # each language's own `cepkit run` options


def _cmd_explain(args: argparse.Namespace) -> int:
    text = read_query(args.query)
    lang = detect(args.query, args.language, text)
    if args.format == "text":
        print(lang.load("explain")(text))
        return 0
    from cepkit.explain import dot_of, svg  # lazy: start-up (only `cepkit explain --format dot|svg`)

    dot = dot_of(lang.name, text)
    if args.format == "dot":
        sys.stdout.write(dot)
    else:
        sys.stdout.write(svg(dot))
    sys.stdout.flush()
    return 0


class _Version(argparse.Action):
    """--version: the version looked up only when asked (importlib.metadata is slow to import)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(f"cepkit {version()}\n")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `command` 'run' or 'explain' (what main was asked for) the further
    subcommands (EXTRA_COMMANDS: Spark, replay, window, ...) are not imported (fast start)."""

    p = Parser(prog="cepkit", description="Complex event processing: run and explain patterns.")
    p.add_argument("--version", action=_Version, help="show program's version number and exit")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a query over an event file and print its matches")
    r.add_argument("query", help="query file; its suffix picks the language (see --language)")
    r.add_argument("events", nargs="?", help="events: .csv, .parquet, .jsonl; - reads them from standard input "
                   "(none for a SQL query that carries its rows in VALUES)")
    r.add_argument("--input-format", choices=INPUT_FORMATS,
                   help="format of the events (default: from the file's suffix; for - (standard input): "
                        "parquet by its magic number, jsonl when it starts with { or [, else csv; gzip, bzip2 "
                        "and xz are recognized)")
    r.add_argument("--language", choices=sorted(LANGUAGES),
                   help="query language (default: from the query file's suffix, else sase)")
    engines = "; ".join(f"{name}: {', '.join(registry.engines_for(name))}" for name in LANGUAGES)
    needs = sorted({(n, x) for (lang, n) in registry.ENGINES if (x := registry.engine_extra(lang, n))})
    extras = "".join(f"; {n} needs pip install 'cepkit[{x}]'" for n, x in needs)
    r.add_argument("--engine", help=f"engine to run on (default: the fastest that runs the query, named first "
                   f"below, then the next (docs/semantics.md DE1); by language: {engines}{extras})")
    r.add_argument("--format", default="jsonl", choices=FORMATS)
    r.add_argument("--output", help="write results here instead of standard output (required for parquet)")
    r.add_argument("--ts-unit", type=option_types.ts_unit,
                   help="unit of integer timestamps: ns, us, ms, s, min, h, d")
    r.add_argument("--ts-format", type=option_types.ts_format, default="auto", metavar="auto|ticks|iso|PATTERN",
                   help="how timestamps are written: auto (default: ISO 8601 when the input had datetimes, "
                        "ticks when it had numbers), ticks, iso, or a strftime pattern such as '%%Y-%%m-%%d %%H:%%M'; "
                        "numeric ticks shown as times need --ts-unit")
    r.add_argument("--max-ids", type=option_types.count, default=5, metavar="N",
                   help="--format table: show at most N ids per bound variable, then '… K more' "
                        "(default 5; 0 shows them all)")
    r.add_argument("--sort", action="store_true", help="sort events by timestamp instead of rejecting unsorted input")
    r.add_argument("--type-col", type=option_types.column,
                   help="column holding the event type (default: type)")
    r.add_argument("--default-type", help="event type for every row when there is no type column")
    r.add_argument("--id-col", type=option_types.column, help="column holding the event id (default: "
                   "id; 'none': row numbers, so that a column called id is an ordinary attribute)")
    r.add_argument("--no-progress", action="store_true", help="never show a progress bar (it shows only on a "
                   "terminal, after 2 s: events done of the input's, rate, time left, matches, live partial matches)")
    add_quiet(r)
    r.add_argument("--limit", type=_count, metavar="N", help="stop after N matches (exit 0; says so on stderr)")
    r.add_argument("--max-state", type=_count, metavar="N",
                   help=f"at most N live partial matches (runs); past it exit 4 naming the pattern variable "
                        f"(default {DEFAULT_MAX_STATE:,} on the engines that count them)")
    r.add_argument("--max-memory", type=option_types.size, metavar="SIZE",
                   help="at most SIZE of resident memory for the run (2G, 512M, bytes); past it, or when an "
                        "allocation fails, exit 4 naming the bound (default: half the machine's memory, or of "
                        "its cgroup's limit)")
    r.add_argument("--device", help="OpenCL device of --engine gpu: P:D, P or part of its name (default: "
                                    "$CEPKIT_OPENCL_DEVICE, else the first GPU, else the first device)")
    for lang in LANGUAGES.values():
        if lang.options:
            group = r.add_argument_group(f"{lang.name} options", lang.description)
            lang.load("options")(group)
            _LANGUAGE_OPTIONS[lang.name] = list(group._group_actions)
    r.set_defaults(func=_cmd_run)
    e = sub.add_parser("explain", help="print what a query means: its AST and what it compiles to (NFA^b, "
                                       "pattern model, row-pattern program, AFA arcs), and the engines")
    e.add_argument("query", help="query file; its suffix picks the language (see --language)")
    e.add_argument("--language", choices=sorted(LANGUAGES), help="query language (default: from the suffix, "
                   "else from the text)")
    e.add_argument("--format", default="text", choices=("text", "dot", "svg"),
                   help="text (default); dot: the compiled automaton or program as a Graphviz graph; svg: "
                        "that graph drawn by Graphviz's dot program")
    e.set_defaults(func=_cmd_explain)
    # the other subcommands, unless the first argument is run, explain or --version (which need none)
    for register in EXTRA_COMMANDS + plugin_commands() if command not in ("run", "explain", "--version") else ():
        module, _, func = register.partition(":")
        try:
            adder = getattr(importlib.import_module(module), func)
        except (ImportError, AttributeError) as exc:
            if register in EXTRA_COMMANDS:
                raise
            # a package's entry point that does not load (an installation of another version): that command
            # is missing, the others work
            print(f"warning: the subcommand {register} cannot be loaded ({exc}); reinstall cepkit (make install)",
                  file=sys.stderr)
            continue
        adder(sub)
    return p


INPUTS = ("query", "events", "right_events")   # the arguments of the subcommands that name files they read
OUTPUTS = ("output", "out")                      # and those that name the file they write


def overwritten_input(args: argparse.Namespace) -> str | None:
    """Why the output named would replace one of the command's inputs (the same file, by path or link), else
    None: the results would take the place of the events or the query they came from."""
    import os

    for out_name in OUTPUTS:
        out = getattr(args, out_name, None)
        if not isinstance(out, str) or out == "-":
            continue
        for in_name in INPUTS:
            given = getattr(args, in_name, None)
            if not isinstance(given, str) or given == "-":
                continue
            same = os.path.realpath(out) == os.path.realpath(given)
            if not same and os.path.exists(out) and os.path.exists(given):
                same = os.path.samefile(out, given)
            if same:
                return (f"--{out_name} {out} is the {in_name} file {given}: writing there would replace what the "
                        f"results come from; choose another path")
    return None


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    if issubclass(category, CepkitWarning):   # (an engine hand-over, cepkit/engine_choice.py: a note)
        print(f"{'note' if category.__name__ == 'EngineFallback' else 'warning'}: {message}", file=sys.stderr)
    else:
        _default_showwarning(message, category, filename, lineno, file, line)


_default_showwarning = warnings.showwarning


def _hard_stop(resident: int, bound: int, output: str | None = None) -> None:
    """The memory watch's last resort (core/memory.py): the run stayed past --max-memory inside code that
    never came back to check it (a compiled kernel); exit 4 naming the bound, as the checks would, with this
    process's temporary files removed."""
    end_process(4, f"error: {memory.message(resident, bound)} (stopped inside the engine)", output)


def main(argv: list[str] | None = None) -> int:
    own_process = argv is None   # the process's own command (`cepkit`, `python -m cepkit`), not a call from Python
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parse(parser, argv)
    output = getattr(args, "output", None)
    if own_process:   # it may end the process when --max-memory cannot be checked (a kernel that never returns)
        memory.WATCH.hard_stop = lambda resident, bound: _hard_stop(resident, bound, output)
    if getattr(args, "format", None) == "parquet" and not getattr(args, "output", None):
        parser.error("--format parquet needs --output PATH (Parquet is not written to standard output)")
    clash = overwritten_input(args)
    if clash is not None:
        parser.error(clash)
    if args.command == "run":
        clean_up_after_killed_runs(getattr(args, "output", None))
    try:
        with warnings.catch_warnings(), terminated_as_exception(output if own_process else False):
            warnings.simplefilter("always", CepkitWarning)
            warnings.showwarning = _show_warning
            with options_as_flags():  # messages name --ts-unit, not ts_unit
                return args.func(args)
    except MissingExtra as exc:  # one line: what needs which extra, and the pip command
        print(exc, file=sys.stderr)
        return exc.exit_code
    except QueryError as exc:
        print(f"query error: {getattr(args, 'query', '')}: {exc}", file=sys.stderr)
        return 2
    except EventError as exc:
        shown = getattr(args, "events_shown", getattr(args, "events", ""))
        if shown is None:   # no events file: the rows are the query's own (VALUES)
            shown = f"{getattr(args, 'query', '')} (its VALUES rows)"
        message = str(exc)
        temp = getattr(args, "events_temp", None)
        if temp:
            message = message.replace(temp, shown)
        print(f"event error: {shown}: {message}", file=sys.stderr)
        return 3
    except CepkitError as exc:
        if isinstance(exc.__context__, BrokenPipeError):   # an output error whose cause is a closed pipe
            return _closed_stdout()
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return _closed_stdout()
    except MemoryError:   # an allocation outside a program's feed / close (reading, writing): the same bound
        print("error: an allocation failed (out of memory); bound the run with --max-memory / --max-state / "
              "--limit", file=sys.stderr)
        return 4
    except (KeyboardInterrupt, Terminated) as exc:   # the partial output, spill and stdin copy are gone by now
        signum = signal_of(exc)
        print(stopped_line(signum, output), file=sys.stderr)
        return 128 + signum


@contextlib.contextmanager
def terminated_as_exception(output: str | None | bool = False):
    """SIGTERM raises Terminated while the command runs (in the main thread; elsewhere nothing changes). With an
    `output` (None: standard output), the process's own command: a signal the main thread does not answer
    within a second (a compiled kernel) stops the process from cepkit.signal_watch."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    watch = None
    if output is not False:
        watch = SignalWatch(lambda signum, why: stop_process(signum, output, why))

    def raise_terminated(signum, frame):
        if watch is not None:
            watch.answered()
        raise Terminated()

    def raise_interrupt(signum, frame):
        if watch is not None:
            watch.answered()
        raise KeyboardInterrupt()

    before = signal.signal(signal.SIGTERM, raise_terminated)
    before_int = signal.getsignal(signal.SIGINT)
    own_int = watch is not None and before_int is signal.default_int_handler   # (not where SIGINT is ignored)
    if own_int:
        signal.signal(signal.SIGINT, raise_interrupt)
    before_hook = sys.unraisablehook

    def unraisable(dropped) -> None:
        if watch is None or not dropped_signal(watch, dropped.exc_value):
            before_hook(dropped)

    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        sys.unraisablehook = before_hook
        signal.signal(signal.SIGTERM, before)
        if own_int:
            signal.signal(signal.SIGINT, before_int)
        if watch is not None:
            watch.close()


def _closed_stdout() -> int:
    """The reader of standard output went away (`cepkit run ... | head`): end quietly with exit 0, as Unix
    tools do; standard output goes to /dev/null so that Python's flush at exit says nothing either."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
