"""`cepkit window filter|aggregate|join`: the windowed operators of spec/004 §2.3-2.6 over event files."""
from __future__ import annotations

import argparse

from cepkit import options
from cepkit.core.errors import QueryError
from cepkit.forms import note_input
from cepkit.core.readers import read_events
from cepkit.cli import events_path
from cepkit.forms import TimeForm, use_time_form
from cepkit.forms import frame_csv, json_line, render_table, ts_frame, ts_record
from cepkit.output import write_text
from cepkit.core.match import plain
from cepkit.core import registry
from cepkit.replay_cli import warnings_to_stderr
from cepkit.summary_line import add_quiet, summary_line

FORMATS = ("jsonl", "csv", "table")


def register(sub) -> None:
    w = sub.add_parser("window", help="windowed filter, aggregation and join over event files")
    ops = w.add_subparsers(dest="operator", required=True)

    def common(p, events=("events",)):
        for name in events:
            p.add_argument(name, help="events: .csv, .parquet, .jsonl with integer ts; - reads them from "
                                      "standard input")
        p.add_argument("--format", default="jsonl", choices=FORMATS)
        p.add_argument("--output", help="write here instead of standard output")
        p.add_argument("--ts-unit", type=options.ts_unit, help="unit of integer timestamps")
        p.add_argument("--ts-format", type=options.ts_format, default="auto", metavar="auto|ticks|iso|PATTERN",
                       help="how the output ts is written (as `cepkit run --ts-format`; default auto: ISO 8601 "
                            "when the input had datetimes)")
        p.add_argument("--sort", action="store_true", help="sort events by timestamp")
        p.add_argument("--engine", default="reference", choices=registry.engines_for("window"),
                       help="reference (exact Python) or gpu (OpenCL kernels, the same answers)")
        p.add_argument("--device", help="OpenCL device for --engine gpu: P:D, P, or part of a name "
                                        "(default: CEPKIT_OPENCL_DEVICE, else the first GPU, else the first device)")
        add_quiet(p)

    def window(p, prefix=""):
        side = " of the second stream (default: as the first)" if prefix else ""
        p.add_argument(f"--{prefix}kind", default=None if prefix else "time", choices=("count", "time"),
                       help=f"window kind{side}")
        p.add_argument(f"--{prefix}size", type=options.positive,
                       required=not prefix, help=f"window size (events or ticks){side}")
        p.add_argument(f"--{prefix}slide", type=options.positive, help="window slide (default: 1)")
        p.add_argument(f"--{prefix}align", default="first", choices=("first", "zero"),
                       help="time windows start at the first event's ts (thesis) or at 0")

    f = ops.add_parser("filter", help="the events satisfying a condition")
    common(f)
    f.add_argument("--where", required=True, help="condition, e.g. \"v > 3\"")
    f.set_defaults(func=_in_time_form(_filter), query="--where")

    a = ops.add_parser("aggregate", help="one row per window: sum, count, min, max, avg of an attribute")
    common(a)
    a.add_argument("--attr", required=True)
    a.add_argument("--funcs", default="sum", help="comma-separated: sum,count,min,max,avg")
    window(a)
    a.add_argument("--method", default="auto", choices=("auto", "tree", "naive", "index", "replay"),
                   help="over an event file: aggregate tree (auto, tree) or recomputation per window (naive); "
                        "over a store directory: the cost model decides (auto), or index / replay")
    a.add_argument("--skip-empty", action="store_true", help="leave out empty time windows (A10 b)")
    a.set_defaults(func=_in_time_form(_aggregate), query="--attr")

    j = ops.add_parser("join", help="each event probes the other stream's active window")
    common(j, ("events", "right_events"))
    j.add_argument("--on", required=True, help="condition on L.<attr> (first file) and R.<attr> (second)")
    window(j)
    window(j, "right-")
    j.add_argument("--active", default="strict", choices=("strict", "warmup"),
                   help="strict Def 2.9 (default) or partial warm-up windows (A12 b)")
    j.set_defaults(func=_in_time_form(_join), query="--on")


def _read(path, args):
    batch = read_events(path, ts_unit=args.ts_unit, sort=args.sort, type_col=None, default_type="event")
    note_input(batch)  # datetimes in, ISO 8601 out (--ts-format)
    return batch


def _in_time_form(func):
    """`func(args)` writing its timestamps in the --ts-format form (cepkit.forms.use_time_form)."""
    def run(args: argparse.Namespace) -> int:
        import contextlib

        with contextlib.ExitStack() as stack:
            dashes = [name for name in ("events", "right_events") if getattr(args, name, None) == "-"]
            if len(dashes) > 1:
                raise QueryError("only one of the two event files can be - (standard input)")
            for name in dashes:  # `-`: the events from standard input
                path, args.events_shown = events_path("-", None, stack)
                args.events_temp = path
                setattr(args, name, path)
            stack.enter_context(use_time_form(TimeForm(args.ts_format, args.ts_unit)))
            return func(args)

    return run


def _spec(args, prefix=""):
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.front.windows.spec import WindowSpec

    if prefix and args.right_size is None:
        prefix = ""
    kind = getattr(args, prefix + "kind") or args.kind
    slide = getattr(args, prefix + "slide")
    try:
        return WindowSpec(kind, getattr(args, prefix + "size"), slide if slide is not None else 1,
                          getattr(args, prefix + "align"))
    except QueryError as exc:   # the options, not the query, are wrong
        flag = "--" + prefix.replace("_", "-")
        raise QueryError(f"{flag}size / {flag}slide: {exc.message}") from None

def _write(rows: list[dict], args) -> None:
    import pandas as pd



    rows = [{k: plain(v) for k, v in r.items()} for r in rows]
    if args.format == "jsonl":
        write_text("".join(json_line(ts_record(r, ("ts",))) for r in rows), args.output)
    elif args.format == "csv":
        write_text(frame_csv(ts_frame(pd.DataFrame(rows), ("ts",), "csv")), args.output)
    else:
        write_text((render_table(ts_frame(pd.DataFrame(rows), ("ts",), "table")) if rows else "(no rows)") + "\n",
                   args.output)

def _run(query, data, args, method: str = "tree") -> list[dict]:
    """The output rows of a window query (cepkit.front.windows.query.WindowQuery) on the chosen engine: the
    payloads of its match table (docs/semantics.md W4), which are the operator's rows."""
    engine = registry.get_engine("window", args.engine)
    options = {"device": args.device} if registry.takes(engine, "device") else {"method": method}
    program = engine.compile(query, **options)
    return [dict(m.payload) for m in program.run(data)]


def _filter(args: argparse.Namespace) -> int:
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.front.windows.query import WindowQuery

    batch = _read(args.events, args)
    rows = _run(WindowQuery("filter", condition=args.where), batch, args)
    _write(rows, args)
    summary_line(args, f"{len(rows)} of {len(batch)} events kept")
    return 0


def _aggregate(args: argparse.Namespace) -> int:
    funcs = [f.strip().lower() for f in args.funcs.split(",") if f.strip()]
    if not funcs:
        raise QueryError("--funcs names no aggregate")
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.front.windows.query import FUNCS

    unknown = [f for f in funcs if f not in FUNCS]
    if unknown:
        raise QueryError(f"--funcs names an unknown aggregate '{unknown[0]}'", expected=list(FUNCS))
    import os

    if os.path.isdir(args.events):
        if args.engine != registry.language("window").default_engine:   # a store is aggregated by the reference
            raise QueryError(f"--engine {args.engine} aggregates event files, not store directories")
        return _aggregate_store(args, funcs)
    if args.method in ("index", "replay"):
        raise QueryError(f"--method {args.method} needs a store directory (see `cepkit store`)")
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.front.windows.query import WindowQuery

    batch = _read(args.events, args)
    query = WindowQuery("aggregate", attr=args.attr, funcs=tuple(funcs), window=_spec(args),
                        skip_empty=args.skip_empty)
    rows = _run(query, batch, args, "tree" if args.method == "auto" else args.method)
    _write(rows, args)
    summary_line(args, f"{len(rows)} windows from {len(batch)} events")
    return 0


def _aggregate_store(args: argparse.Namespace, funcs: list[str]) -> int:
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.reference.replay.aggregate import aggregate_store
    from cepkit.reference.replay.store import Store

    store = Store(args.events)
    method = {"tree": "replay", "naive": "replay"}.get(args.method, args.method)
    with warnings_to_stderr():
        rows, decision = aggregate_store(store, args.attr, _spec(args), funcs, method, args.skip_empty)
    _write([r.as_dict() for r in rows], args)
    summary_line(args, f"{len(rows)} windows from {store.events} events; {decision.method} ({decision.reason}), "
                       f"read {len(store.blocks_read)} of {len(store.blocks)} blocks")
    return 0


def _join(args: argparse.Namespace) -> int:
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.front.windows.query import WindowQuery

    left, right = _read(args.events, args), _read(args.right_events, args)
    query = WindowQuery("join", condition=args.on, window=_spec(args), right_window=_spec(args, "right_"),
                        active=args.active)
    rows = _run(query, (left, right), args)
    _write(rows, args)
    summary_line(args, f"{len(rows)} join results from {len(left)} + {len(right)} events")
    return 0
