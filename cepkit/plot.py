"""`cepkit plot QUERY EVENTS --out FILE.png|FILE.html`: the event stream over time with each match drawn on it.

Events are points, one lane per event type (SASE+) or per partition (MATCH_RECOGNIZE, TPStream), or with
`--value COL` a line of that numeric column per lane. Each match gets one colour: its bound events are
marked (one marker shape per pattern variable) and joined in stream order. TPStream situations and AFA
output lifetimes are intervals, drawn in a second panel below, one bar per (match, situation) or output.
Window queries bind no events: `cepkit plot` refuses them by name (docs/tutorial/window.md).

PNG: matplotlib (Agg). HTML: one self-contained page (inline SVG drawn by inline JavaScript from the
data embedded in the page; no network access), with hover text naming each match's bindings.
"""
from __future__ import annotations

import argparse
import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cepkit.core.errors import CepkitError, EventError, QueryError, require_extra
from cepkit import options as option_types
from cepkit.languages import LANGUAGES
from cepkit.api import warn_unbounded
from cepkit.cli import read_query
from cepkit.languages import detect
from cepkit.core import registry
from cepkit.front.language import ast as A
from cepkit.core.match import plain
from cepkit.plot_axes import TimeAxis, nice_ticks
from cepkit.progress import engine_progress
from cepkit.summary_line import add_quiet, summary_line

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf", "#393b79", "#ad494a", "#637939", "#843c39", "#7b4173", "#3182bd"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]  # one per pattern variable (matplotlib names)
DEFAULT_MAX_MATCHES = 40


class PlotError(CepkitError):
    """A plot that cannot be drawn (exit 2, one line on stderr)."""

    exit_code = 2


@dataclass
class Match:
    label: str                                   # "m1"
    text: str                                    # hover / legend text: the bindings and the match's time
    points: list[tuple[int, str]] = field(default_factory=list)      # (event index, variable)
    intervals: list[tuple[str, float, float, bool]] = field(default_factory=list)  # (name, start, end, retracted)


@dataclass
class Plot:
    title: str
    lanes: list[str]
    times: list[float]                           # per event, where it is drawn (axis.x of its timestamp)
    lane_of: list[int]
    values: list[float | None] | None            # per event, with --value
    value_name: str | None
    event_text: list[str]
    matches: list[Match]
    total_matches: int
    axis: TimeAxis                               # how times are drawn and written


# ---------------------------------------------------------------------------------------------- the CLI
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plot", help="draw the event stream over time with each match's events marked (PNG or "
                                    "a self-contained HTML page)",
                       description=__doc__.split("\n\n")[1].replace("\n", " "))
    p.add_argument("query", help="query file; its suffix picks the language (see --language)")
    p.add_argument("events", help="events: .csv, .parquet, .jsonl")
    p.add_argument("--out", required=True, help="the picture: FILE.png (matplotlib) or FILE.html (self-contained)")
    p.add_argument("--language", choices=sorted(LANGUAGES), help="query language (default: from the suffix)")
    p.add_argument("--engine", help="engine that finds the matches (default: reference)")
    p.add_argument("--value", metavar="COL", help="draw this numeric column as a line per lane (default: "
                                                 "events as points per lane)")
    p.add_argument("--lane", metavar="COL", help="one lane per value of this column (default: the event type "
                                                "for SASE+, the first PARTITION BY column otherwise)")
    p.add_argument("--max-matches", type=option_types.positive, default=DEFAULT_MAX_MATCHES, metavar="N",
                   help=f"draw the first N matches (default {DEFAULT_MAX_MATCHES}); the title says how many there were")
    p.add_argument("--title", help="the picture's title (default: the query file and the match count)")
    reader = p.add_argument_group("reader options (as `cepkit run` takes them)")
    reader.add_argument("--ts-unit", type=option_types.ts_unit,
                        help="unit of integer timestamps: ns, us, ms, s, min, h, d")
    reader.add_argument("--sort", action="store_true", help="sort events by timestamp")
    reader.add_argument("--type-col", default="type", type=option_types.column,
                        help="column holding the event type (default: type)")
    reader.add_argument("--default-type", help="event type for every row when there is no type column")
    reader.add_argument("--id-col", default="id", type=option_types.column,
                        help="column holding the event id (default: id; 'none': row numbers)")
    reader.add_argument("--ts-col", type=option_types.column, help="MATCH_RECOGNIZE: the timestamp column")
    reader.add_argument("--early", action="store_true", help="TPStream: early output")
    reader.add_argument("--flavor", default="basic", choices=("basic", "ignorable", "seq", "cleanse"),
                        help="AFA flavour")
    add_quiet(p)
    p.set_defaults(func=_cmd_plot)


def _cmd_plot(args: argparse.Namespace) -> int:
    out = Path(args.out)
    kind = out.suffix.lower()
    if kind not in (".png", ".html", ".htm"):
        raise PlotError(f"--out {args.out}: the picture is written as .png or .html, not {out.suffix or 'no suffix'}")
    if not out.parent.is_dir():
        raise PlotError(f"--out {args.out}: no directory {out.parent}")
    if kind == ".png":  # matplotlib is the plot extra; the HTML page needs nothing beyond the core
        require_extra("plot", "cepkit plot --out FILE.png")
    plot = collect(args)
    import os
    import tempfile

    try:  # into a temporary file beside --out, then renamed: a failed plot leaves --out as it was
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=kind, dir=out.parent)
    except OSError as exc:
        raise PlotError(f"--out {args.out}: cannot write there ({exc.strerror or exc})") from None
    os.close(fd)
    try:
        if kind == ".png":
            draw_png(plot, Path(tmp))
        else:
            draw_html(plot, Path(tmp))
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except OSError as exc:
        raise PlotError(f"--out {args.out}: cannot write it ({exc.strerror or exc})") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    shown = len(plot.matches)
    more = f" (the first {shown} drawn: --max-matches)" if shown < plot.total_matches else ""
    noun = "match" if plot.total_matches == 1 else "matches"
    summary_line(args, f"{plot.total_matches} {noun}{more} over {len(plot.times)} events -> {out}")
    return 0


# ---------------------------------------------------------------------------------------------- the data
def _read_options(lang: str, args: argparse.Namespace) -> dict:
    given = {"--ts-unit": args.ts_unit, "--sort": args.sort or None, "--default-type": args.default_type,
             "--ts-col": args.ts_col, "--type-col": None if args.type_col == "type" else args.type_col,
             "--id-col": None if args.id_col == "id" else args.id_col}
    allowed = {"sase": {"--ts-unit", "--sort", "--type-col", "--default-type", "--id-col"},
               "tpstream": {"--ts-unit", "--sort", "--type-col", "--default-type"},
               "sql": {"--ts-unit", "--ts-col"}, "afa": set()}[lang]
    for name, value in given.items():
        if value is not None and name not in allowed:
            raise QueryError(f"{name} is not a reader option of {lang} queries")
    if args.early and lang != "tpstream":
        raise QueryError("--early is an option for TPStream queries")
    if args.flavor != "basic" and lang != "afa":
        raise QueryError("--flavor is an option for AFA queries")
    if lang == "sase":
        id_col = None if args.id_col.lower() == "none" else args.id_col
        return dict(ts_unit=args.ts_unit, sort=args.sort, type_col=args.type_col,
                    default_type=args.default_type, id_col=id_col)
    if lang == "tpstream":
        return dict(ts_unit=args.ts_unit, sort=args.sort, type_col=args.type_col,
                    default_type=args.default_type or "event")
    if lang == "sql":
        return {k: v for k, v in (("ts_unit", args.ts_unit), ("ts_col", args.ts_col)) if v is not None}
    return {}


def collect(args: argparse.Namespace) -> Plot:
    """Read the events, run the query on the engine, and lay out what is drawn."""
    text = read_query(args.query)
    lang = detect(args.query, args.language, text if args.language is None and
                  registry.by_suffix(args.query) is None else None).name
    if lang == "window":
        raise PlotError("cepkit plot draws matches, and window queries (.win) have none: their output rows "
                        "bind no events (run them with `cepkit run`)")
    engine = args.engine or "reference"   # (pictures of small inputs: the reference draws them unless named)
    registry.engine_entry(lang, engine)  # QueryError naming the language's engines
    if registry.engine_entry(lang, engine).events is not None:
        raise PlotError(f"engine '{engine}' reads a store, not an event file; plot with another engine")
    read_options = _read_options(lang, args)
    options: dict[str, Any] = {}
    if lang == "tpstream":
        options["mode"] = "early" if args.early else "exact"
    if lang == "afa":
        options["flavor"] = args.flavor
    program = registry.get_engine(lang, engine).compile(text, **options)
    query = getattr(program, "query", None)
    warn_unbounded(lang, query)
    if lang == "afa":
        return _collect_afa(args, program)
    batch = registry.read_input(lang, "reference", args.events, query, **read_options)
    with engine_progress("cepkit plot", args, program) as progress:   # on a terminal, after 2 s
        table = program.run(batch, progress)
    return _collect_batch(args, lang, query, batch, table)


def _lanes_of(args, lang: str, query, batch) -> tuple[list[str], list[int]]:
    n = len(batch)
    col = args.lane
    if col is None and lang in ("sql", "tpstream"):
        parts = [getattr(p, "col", p) for p in getattr(query, "partition_by", ())]
        col = parts[0] if parts and isinstance(parts[0], str) and parts[0] in batch.columns else None
    if col is None and lang == "sase":  # the partition attribute of an equivalence test `[attr]`
        attrs = [a for a in _equiv_attrs(getattr(query, "where", None)) if a in batch.columns]
        col = attrs[0] if attrs else None
    types = [batch.type_names[c] for c in batch.type_codes]
    if col is None:
        keys = types
    else:
        if col not in batch.columns:
            raise EventError(f"--lane {col}: no such column (columns: {', '.join(batch.columns)})")
        keys = [_text(v) for v in batch.columns[col]]
        if args.lane is None:
            keys = [f"{col}={k}" for k in keys]
            if lang == "sase" and len(set(types)) > 1:  # a lane per partition and type, grouped by partition
                part_rank = {k: i for i, k in enumerate(dict.fromkeys(keys))}
                type_rank = {t: i for i, t in enumerate(dict.fromkeys(types))}
                pairs = sorted(dict.fromkeys(zip(keys, types)), key=lambda p: (part_rank[p[0]], type_rank[p[1]]))
                order = {p: f"{p[0]} {p[1]}" for p in pairs}
                keys = [order[p] for p in zip(keys, types)]
                lanes = [order[p] for p in pairs]
                index = {k: i for i, k in enumerate(lanes)}
                return lanes, [index[k] for k in keys]
    lanes = list(dict.fromkeys(keys))
    index = {k: i for i, k in enumerate(lanes)}
    return lanes, [index[k] for k in keys] if n else []


def _equiv_attrs(node: Any) -> list[str]:
    """The attributes of the SASE+ equivalence tests `[attr]` in a WHERE clause, in order."""
    import dataclasses


    if isinstance(node, A.EquivTest):
        return [node.attr]
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        found: list[str] = []
        for f in dataclasses.fields(node):
            value = getattr(node, f.name)
            for item in value if isinstance(value, (tuple, list)) else (value,):
                found += [a for a in _equiv_attrs(item) if a not in found]
        return found
    return []


def _number(v: Any) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _values(name: str | None, columns: dict) -> list[float | None] | None:
    if name is None:
        return None
    if name not in columns:
        raise EventError(f"--value {name}: no such column (columns: {', '.join(columns)})")
    values = [_number(v) for v in columns[name]]
    if not any(v is not None for v in values):
        raise EventError(f"--value {name}: the column holds no numbers")
    return values


def _text(v: Any) -> str:
    v = plain(v)
    return str(v)


def _collect_batch(args, lang: str, query, batch, table) -> Plot:
    n = len(batch)
    ts = [int(t) for t in batch.ts]
    axis = TimeAxis.of(ts, batch.ts_unit, getattr(batch, "ts_datetime", False))
    times = [axis.x(t) for t in ts]
    lanes, lane_of = _lanes_of(args, lang, query, batch)
    values = _values(args.value, batch.columns)
    index = {_key(i): k for k, i in enumerate(batch.ids)}
    names = list(batch.columns)
    event_text = []
    for k in range(n):
        cols = ", ".join(f"{c}={_text(batch.columns[c][k])}" for c in names[:6])
        event_text.append(f"{_text(batch.ids[k])} ({batch.type_names[batch.type_codes[k]]}) at {axis.text(ts[k])} | {cols}")
    rows = list(table)
    intervals = _interval_names(table.layout) if lang == "tpstream" else []
    matches = []
    for j, m in enumerate(rows[: args.max_matches]):
        binding = dict(m.bindings)
        text = "; ".join(f"{v}={_ids(ids)}" for v, ids in binding.items())
        payload = dict(m.payload)
        extra = ", ".join(f"{k}={_text(v)}" for k, v in m.payload if not any(k.startswith(f"{s}.") for s in intervals))
        match = Match(f"m{j + 1}", f"m{j + 1} at {axis.text(plain(m.ts))} | {text}" + (f" | {extra}" if extra else ""))
        for var, ids in binding.items():
            for i in ids:
                if _key(i) in index:
                    match.points.append((index[_key(i)], var))
        match.points.sort(key=lambda p: (times[p[0]], p[0]))
        for s in intervals:
            lo, hi = payload.get(f"{s}.start"), payload.get(f"{s}.end")
            if lo is not None and hi is not None:
                match.intervals.append((s, axis.x(plain(lo)), axis.x(plain(hi)), False))
        matches.append(match)
    title = args.title or f"{Path(args.query).name} on {Path(args.events).name}: {len(rows)} matches"
    return Plot(title, lanes, times, lane_of, values, args.value, event_text, matches, len(rows), axis)


def _key(i: Any) -> str:
    return str(plain(i))


def _ids(ids) -> str:
    ids = [_text(i) for i in ids]
    return "[" + (", ".join(ids) if len(ids) <= 6 else ", ".join(ids[:3]) + f", … ({len(ids)} events), " + ids[-1]) + "]"


def _interval_names(layout) -> list[str]:
    starts = [p[: -len(".start")] for p in layout.payload if p.endswith(".start")]
    return [s for s in starts if f"{s}.end" in layout.payload]


def _collect_afa(args, program) -> Plot:
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.front.afa.afafile import load_afa
    from cepkit.front.afa.eventfile import to_elements
    from cepkit.front.afa.stream import Insert, Retract

    afa = getattr(program, "afa", None) or load_afa(args.query)
    elements = to_elements(args.events, afa)
    table = program.run(elements)
    events = [(row, e) for row, e in elements if isinstance(e, (Insert, Retract))]
    times = [float(e.event.le) for _row, e in events]
    kinds = ["insert" if isinstance(e, Insert) else "retract" for _row, e in events]
    lanes = list(dict.fromkeys(kinds))
    lane_of = [lanes.index(k) for k in kinds]
    columns: dict[str, list] = {}
    for k, (_row, e) in enumerate(events):
        for name, v in e.event.payload:
            columns.setdefault(name, [None] * len(events))[k] = v
    values = _values(args.value, columns)
    event_text = [f"row {row} {kinds[k]} [{_text(e.event.le)}, {_text(e.event.re)}): "
                  + ", ".join(f"{n}={_text(v)}" for n, v in e.event.payload) for k, (row, e) in enumerate(events)]
    rows = list(table)
    matches = []
    for j, m in enumerate(rows[: args.max_matches]):
        le, re_ = m.lifetime
        sign = "insert" if m.sign > 0 else "retract"
        payload = ", ".join(f"{k}={_text(v)}" for k, v in m.payload)
        match = Match(f"o{j + 1}", f"o{j + 1}: {sign} lifetime [{_text(le)}, {_text(re_)}) | {payload}")
        hi = float(re_) if _number(re_) is not None else max(times or [float(le)]) + 1
        match.intervals.append(("output", float(le), hi, m.sign < 0))
        matches.append(match)
    title = args.title or f"{Path(args.query).name} on {Path(args.events).name}: {len(rows)} outputs"
    return Plot(title, lanes, times, lane_of, values, args.value, event_text, matches, len(rows), TimeAxis(None, name="time (LE)"))


# ---------------------------------------------------------------------------------------------- PNG
def draw_png(plot: Plot, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    has_intervals = any(m.intervals for m in plot.matches)
    rows = sum(len(m.intervals) for m in plot.matches)
    heights = [3.2 + 0.3 * len(plot.lanes)] + ([1.0 + 0.18 * rows] if has_intervals else [])
    fig, axes = plt.subplots(len(heights), 1, figsize=(10, sum(heights) + 0.8), sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    ax = axes[0][0]
    ys = _event_y(plot)
    lane_handles: list = []
    for lane in range(len(plot.lanes)):
        pts = sorted((plot.times[k], ys[k]) for k in range(len(plot.times))
                     if plot.lane_of[k] == lane and ys[k] is not None)
        if plot.values is not None:
            shade = str(round(0.35 + 0.4 * lane / max(1, len(plot.lanes) - 1), 2))
            line = ax.plot([p[0] for p in pts], [p[1] for p in pts], color=shade, lw=1, zorder=1,
                           marker="." if len(pts) <= 400 else None, ms=3,
                           label=plot.lanes[lane] if 1 < len(plot.lanes) else "_nolegend_")
            lane_handles += line[:1] if 1 < len(plot.lanes) <= 8 else []
        else:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=12, color="0.6", zorder=1)
    variables = list(dict.fromkeys(v for m in plot.matches for _k, v in m.points))
    for j, m in enumerate(plot.matches):
        color = PALETTE[j % len(PALETTE)]
        pts = [(plot.times[k], _bound_y(plot, ys, k, j), v) for k, v in m.points if ys[k] is not None]
        if not pts:
            continue
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, lw=1.2, alpha=0.8, zorder=2,
                label=_short(m.text))
        for var in variables:
            mine = [p for p in pts if p[2] == var]
            if mine:
                ax.scatter([p[0] for p in mine], [p[1] for p in mine], color=color, s=36, zorder=3,
                           marker=MARKERS[variables.index(var) % len(MARKERS)], edgecolors="black", linewidths=0.4)
    if plot.values is None:
        ax.set_yticks(range(len(plot.lanes)), plot.lanes)
        ax.set_ylim(-0.6, len(plot.lanes) - 0.4)
    else:
        ax.set_ylabel(plot.value_name)
    ax.set_title(plot.title, fontsize=10)
    ax.grid(alpha=0.3)
    handles = []
    if variables:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], ls="", marker=MARKERS[i % len(MARKERS)], color="0.3", label=f"variable {v}")
                   for i, v in enumerate(variables)]
    match_handles = [h for h, label in zip(*ax.get_legend_handles_labels())
                     if h not in lane_handles and label in {_short(m.text) for m in plot.matches}]
    shown = match_handles[:12]
    if shown or handles:
        ax.legend(handles=handles + lane_handles + shown, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  title=f"{plot.total_matches} matches" + (f" (first {len(shown)} listed)"
                                                           if plot.total_matches > len(shown) else ""),
                  title_fontsize=8)
    if has_intervals:
        bx = axes[1][0]
        labels = []
        for j, m in enumerate(plot.matches):
            color = PALETTE[j % len(PALETTE)]
            for name, lo, hi, retracted in m.intervals:
                y = len(labels)
                bx.barh(y, max(hi - lo, 1e-9), left=lo, height=0.7, color=color, alpha=0.85,
                        hatch="//" if retracted else None, edgecolor="black", linewidth=0.4)
                labels.append(f"{m.label} {name}" + (" (retracted)" if retracted else ""))
        bx.set_yticks(range(len(labels)), labels, fontsize=7)
        bx.invert_yaxis()
        bx.grid(alpha=0.3, axis="x")
        bx.set_ylabel("situations" if plot.matches[0].label.startswith("m") else "output lifetimes", fontsize=8)
    last = axes[-1][0]
    lo, hi = _span(plot)
    last.set_xlabel(plot.axis.label)
    ticks = plot.axis.ticks(lo, hi)
    last.set_xticks([t for t, _ in ticks], [s for _, s in ticks])
    fig.tight_layout()
    fig.savefig(out, dpi=110, bbox_inches="tight")   # the legend, right of the axes, drawn whole
    plt.close(fig)


def _short(text: str, width: int = 70) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _span(plot: Plot) -> tuple[float, float]:
    xs = list(plot.times) + [x for m in plot.matches for _n, lo, hi, _r in m.intervals for x in (lo, hi)]
    return (min(xs), max(xs)) if xs else (0.0, 1.0)


def _event_y(plot: Plot) -> list[float | None]:
    if plot.values is None:
        return [float(lane) for lane in plot.lane_of]
    return list(plot.values)


def _bound_y(plot: Plot, ys: list, k: int, j: int) -> float:
    """A bound event's height: its value, or its lane shifted a little per match (overlapping matches)."""
    if plot.values is not None:
        return ys[k]
    return ys[k] + ((j % 7) - 3) * 0.07


# ---------------------------------------------------------------------------------------------- HTML
def draw_html(plot: Plot, out: Path) -> None:
    """One self-contained page: the plot's data as JSON, drawn as SVG by the page's own script (_PAGE).
    Kept by hand rather than a charting library embedded for offline use: the page must need no network
    and no other file, and is 8 to 62 KB for the docs' examples, where plotly's offline page carries
    plotly.min.js (4.8 MB, plotly 7.1) in each; the ticks and the texts are computed here, in Python."""
    ys = _event_y(plot)
    lo, hi = _span(plot)
    y_range, y_ticks = _value_axis(plot, ys)
    data = {
        "title": plot.title, "lanes": plot.lanes, "valueName": plot.value_name, "timeLabel": plot.axis.label,
        "events": [[round(plot.times[k], 9), ys[k], plot.lane_of[k], plot.event_text[k]] for k in range(len(ys))],
        "matches": [{"label": m.label, "text": m.text, "color": PALETTE[j % len(PALETTE)],
                     "points": [[round(plot.times[k], 9), _bound_y(plot, ys, k, j), v] for k, v in m.points
                                if ys[k] is not None],
                     "intervals": [[n, a, b, r] for n, a, b, r in m.intervals]} for j, m in enumerate(plot.matches)],
        "total": plot.total_matches, "ticks": plot.axis.ticks(lo, hi), "span": [lo, hi],
        "yRange": y_range, "yTicks": y_ticks,
    }
    payload = json.dumps(data).replace("</", "<\\/")
    page = _PAGE.replace("@TITLE@", html.escape(plot.title)).replace("@DATA@", payload)
    out.write_text(page, encoding="utf-8")


def _value_axis(plot: Plot, ys: list) -> tuple[list[float], list[tuple[float, str]]]:
    """The HTML's value axis with --value: the values' range padded by 8% each side, and its round ticks."""
    if plot.values is None:
        return [-0.6, len(plot.lanes) - 0.4], []
    shown = [y for y in ys if y is not None]
    lo, hi = min(shown), max(shown)
    pad = (hi - lo) * 0.08 or 1.0
    return [lo - pad, hi + pad], nice_ticks(lo - pad, hi + pad)


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>@TITLE@</title>
<style>
body{font:14px system-ui,sans-serif;margin:1em 2em;color:#222}
#plot svg{border:1px solid #ddd;background:#fff}
#tip{position:fixed;pointer-events:none;background:#fffbe6;border:1px solid #aaa;padding:3px 6px;font-size:12px;
display:none;max-width:40em}
#legend li{list-style:none;margin:2px 0;font-size:12px}#legend span.sw{display:inline-block;width:1em;height:.8em;
margin-right:.4em}
.bound:hover,.interval:hover{stroke:#000;stroke-width:2}
</style></head>
<body data-rendered="no">
<h2 id="title"></h2>
<div id="plot"></div><ul id="legend"></ul><div id="tip"></div>
<noscript>This page draws its plot with JavaScript.</noscript>
<script id="cepkit-data" type="application/json">@DATA@</script>
<script>
window.addEventListener("error", function (e) { document.body.setAttribute("data-error", String(e.message)); });
(function () {
  var D = JSON.parse(document.getElementById("cepkit-data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  document.getElementById("title").textContent = D.title;
  var lanes = D.lanes.length, rows = 0;
  D.matches.forEach(function (m) { rows += m.intervals.length; });
  var W = 1000, L = 140, R = 40, T = 20, H1 = 120 + 28 * lanes, H2 = rows ? 20 + 16 * rows : 0, B = 40;
  var H = T + H1 + H2 + B;
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  var svg = el("svg", {width: W, height: H, viewBox: "0 0 " + W + " " + H, id: "cepkit-plot"});
  document.getElementById("plot").appendChild(svg);
  var x0 = D.span[0], x1 = D.span[1] > D.span[0] ? D.span[1] : D.span[0] + 1;
  function X(t) { return L + (t - x0) / (x1 - x0) * (W - L - R); }
  var ylo = D.yRange[0], yhi = D.yRange[1];
  function Y(v) { return T + H1 - (v - ylo) / (yhi - ylo) * H1; }
  var tip = document.getElementById("tip");
  function hover(node, text) {
    el("title", {}, node).textContent = text;
    node.addEventListener("mousemove", function (ev) { tip.style.display = "block"; tip.textContent = text;
      tip.style.left = (ev.clientX + 12) + "px"; tip.style.top = (ev.clientY + 12) + "px"; });
    node.addEventListener("mouseleave", function () { tip.style.display = "none"; });
  }
  // axes
  var axes = el("g", {"class": "axes", stroke: "#999"}, svg);
  el("line", {x1: L, x2: W - R, y1: T + H1, y2: T + H1}, axes);
  el("line", {x1: L, x2: L, y1: T, y2: T + H1 + H2}, axes);
  D.ticks.forEach(function (t) {
    el("line", {x1: X(t[0]), x2: X(t[0]), y1: T, y2: T + H1 + H2, stroke: "#eee"}, axes);
    var s = el("text", {"class": "xtick", x: X(t[0]), y: H - B + 16, "text-anchor": "middle", "font-size": 11, stroke: "none",
                        fill: "#333"}, svg);
    s.textContent = t[1];
  });
  el("text", {x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", "font-size": 12}, svg).textContent = D.timeLabel;
  if (D.valueName === null) {
    D.lanes.forEach(function (name, i) {
      el("text", {x: L - 6, y: Y(i) + 4, "text-anchor": "end", "font-size": 11}, svg).textContent = name;
    });
  } else {
    D.yTicks.forEach(function (t) {
      el("line", {x1: L, x2: W - R, y1: Y(t[0]), y2: Y(t[0]), stroke: "#eee"}, axes);
      el("text", {"class": "ytick", x: L - 6, y: Y(t[0]) + 4, "text-anchor": "end", "font-size": 11}, svg).textContent = t[1];
    });
    el("text", {x: 12, y: T + H1 / 2, "font-size": 12}, svg).textContent = D.valueName;
  }
  // events
  var ev = el("g", {"class": "events"}, svg);
  if (D.valueName !== null) {
    for (var lane = 0; lane < lanes; lane++) {
      var pts = D.events.filter(function (e) { return e[2] === lane && e[1] !== null; })
                        .sort(function (a, b) { return a[0] - b[0]; }).map(function (e) { return X(e[0]) + "," + Y(e[1]); });
      if (pts.length) el("polyline", {points: pts.join(" "), fill: "none", stroke: "#aaa"}, ev);
    }
  }
  D.events.forEach(function (e) {
    if (e[1] === null) return;
    hover(el("circle", {"class": "event", cx: X(e[0]), cy: Y(e[1]), r: 2.5, fill: "#999"}, ev), e[3]);
  });
  // matches: one group each, its bound events marked and joined
  var shapes = {};
  D.matches.forEach(function (m) {
    var g = el("g", {"class": "match", "data-match": m.label}, svg);
    if (m.points.length > 1)
      el("polyline", {"class": "join", points: m.points.map(function (p) { return X(p[0]) + "," + Y(p[1]); }).join(" "),
                      fill: "none", stroke: m.color, "stroke-width": 1.5, opacity: 0.8}, g);
    m.points.forEach(function (p) {
      if (!(p[2] in shapes)) shapes[p[2]] = Object.keys(shapes).length;
      var x = X(p[0]), y = Y(p[1]), s = shapes[p[2]] % 3, node;
      if (s === 0) node = el("circle", {cx: x, cy: y, r: 5}, g);
      else if (s === 1) node = el("rect", {x: x - 4.5, y: y - 4.5, width: 9, height: 9}, g);
      else node = el("path", {d: "M" + x + "," + (y - 6) + "L" + (x + 5) + "," + (y + 4) + "L" + (x - 5) + "," + (y + 4) + "Z"}, g);
      node.setAttribute("class", "bound"); node.setAttribute("fill", m.color); node.setAttribute("stroke", "#000");
      node.setAttribute("stroke-width", 0.5);
      hover(node, m.text + " (this event: " + p[2] + ")");
    });
    m.intervals.forEach(function (iv) {
      var y = T + H1 + 12 + 16 * (g.ownerSVGElement.querySelectorAll(".interval").length);
      var r = el("rect", {"class": "interval", x: X(iv[1]), y: y, width: Math.max(2, X(iv[2]) - X(iv[1])), height: 12,
                          fill: m.color, opacity: iv[3] ? 0.4 : 0.85, stroke: "#000", "stroke-width": 0.4,
                          "stroke-dasharray": iv[3] ? "3,2" : "none"}, g);
      el("text", {x: L - 6, y: y + 10, "text-anchor": "end", "font-size": 10}, g).textContent =
        m.label + " " + iv[0] + (iv[3] ? " (retracted)" : "");
      hover(r, m.text);
    });
  });
  // legend
  var legend = document.getElementById("legend");
  var head = document.createElement("li");
  head.textContent = D.total + " matches" + (D.total > D.matches.length ? " (the first " + D.matches.length +
    " drawn)" : "") + "; variables: " + Object.keys(shapes).map(function (v, i) {
      return v + " " + ["●", "■", "▲"][i % 3]; }).join(", ");
  legend.appendChild(head);
  D.matches.forEach(function (m) {
    var li = document.createElement("li"); li.className = "legend-match";
    var sw = document.createElement("span"); sw.className = "sw"; sw.style.background = m.color;
    li.appendChild(sw); li.appendChild(document.createTextNode(m.text)); legend.appendChild(li);
  });
  document.body.setAttribute("data-rendered", "yes");
  document.body.setAttribute("data-matches", String(D.matches.length));
})();
</script>
</body></html>
"""
