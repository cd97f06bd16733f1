"""The command line's observable behaviour over examples/, for comparing two source trees: every example query
on its events, on each engine of its language and in each output form, `cepkit explain`, the runnable commands
the docs show, and a few bad inputs. Each command's exit code, standard output and standard error (times
masked) are written as one JSON object per line.

    python scripts/cli_snapshot.py TREE OUT.jsonl      # TREE: a checkout; run with this environment's Python
    python scripts/cli_snapshot.py --compare A.jsonl B.jsonl

A tree is run as `python -m cepkit` with TREE first on PYTHONPATH and TREE as the working directory, so two
checkouts (say `git worktree add /tmp/before REV`) can be compared with one environment."""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

PAIRS = [  # (query, events and options or None, engines); the explosive queries bounded to run in seconds
    ("examples/query3.sase", "examples/fig3_stream.csv", ["reference", "optimized", "reference-lazy", "brute"]),
    ("examples/shoplifting.sase", "examples/rfid.jsonl", ["reference", "optimized"]),
    ("examples/rfid/shoplifting.sase", "examples/rfid/readings.csv", ["reference", "reference-ssc"]),
    ("examples/lazy/fraud.sase", "examples/lazy/fraud.csv", ["reference", "optimized", "optimized-lazy"]),
    ("examples/limits/explosive.sase", "examples/limits/explosive.csv --max-state 1000", ["reference", "optimized"]),
    ("examples/limits/explosive.sase", "examples/limits/explosive.csv --limit 10", ["reference", "optimized"]),
    ("examples/sase1_stock.query", "examples/stocks.csv", ["reference", "optimized"]),
    ("examples/limits/sase1_stock_any.query", "examples/stocks.csv --max-state 20000", ["reference", "optimized"]),
    ("examples/sql/v_shape.sql", "examples/sql/ticker.csv", ["reference", "optimized", "gpu"]),
    ("examples/sql/v_shape_all_rows.sql", "examples/sql/ticker.csv", ["reference", "optimized"]),
    ("examples/sql/trino_orders.sql", "examples/sql/orders.csv", ["reference", "optimized"]),
    ("examples/sql/trino_v_shape.sql", None, ["reference", "optimized"]),
    ("examples/sql/crimes_listing31.sql", "examples/sql/crimes.csv", ["reference", "optimized"]),
    ("examples/sql/insider.sql", "examples/sql/trades.csv", ["reference", "optimized"]),
    ("examples/sql/volume.win", "examples/sql/trades.csv", ["reference", "gpu"]),
    ("examples/sql/big_trades.win", "examples/sql/trades.csv", ["reference", "gpu"]),
    ("examples/tpstream/aggressive_drivers.tps", "examples/tpstream/car_sensors.csv", ["reference", "optimized"]),
    ("examples/afa/q1.afa.yaml", "examples/afa/q1.shuffled.csv", ["reference", "optimized"]),
    ("examples/afa/q2.afa.yaml", "examples/afa/q2.shuffled.csv", ["reference", "optimized"]),
    ("examples/afa/q3.afa.yaml", "examples/afa/q3.shuffled.csv", ["reference", "optimized"]),
    ("examples/afa/negative.afa.yaml", "examples/afa/negative.shuffled.csv", ["reference", "optimized"]),
    ("examples/afa/head_shoulders.afa.yaml", "examples/afa/head_shoulders.shuffled.csv", ["reference", "optimized"]),
]
EXTRA = {".tps": ["--ts-unit", "s"], ".sql": [], ".sase": [], ".query": [], ".win": [], ".yaml": []}
BAD = [  # bad input: the exit code and the message must not change either
    ["run", "examples/query3.sase", "examples/missing.csv"],
    ["run", "examples/missing.sase", "examples/fig3_stream.csv"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--engine", "nosuch"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--format", "nosuch"],
    ["run", "examples/query3.sase", "examples/sql/ticker.csv"],
    ["run", "examples/sql/v_shape.sql", "examples/fig3_stream.csv"],
    ["run", "examples/tpstream/aggressive_drivers.tps", "examples/tpstream/car_sensors.csv", "--ts-unit", "parsec"],
    ["run", "examples/sql/trino_v_shape.sql", "--engine", "replay"],
    ["explain", "examples/fig3_stream.csv"],
    ["frobnicate"],
]
SCRATCH = {  # queries written to a scratch folder (the same text for both trees): the runners' other paths
    "sub_where.sql": "SELECT * FROM (SELECT * FROM ticker WHERE price > 7) MATCH_RECOGNIZE (PARTITION BY symbol "
                     "ORDER BY ts MEASURES A.price AS p, LAST(C.ts) AS t ONE ROW PER MATCH PATTERN (A B+ C+) "
                     "DEFINE B AS price < PREV(price), C AS price > PREV(price))",
    "outer.sql": "SELECT symbol, p * 2 AS q, t FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts "
                 "MEASURES A.price AS p, LAST(C.ts) AS t ONE ROW PER MATCH PATTERN (A B+ C+) DEFINE "
                 "B AS price < PREV(price), C AS price > PREV(price)) WHERE p > 9 ORDER BY t DESC",
    "all_rows.sql": "SELECT * FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts MEASURES "
                    "CLASSIFIER() AS c ALL ROWS PER MATCH PATTERN (A B+ C+) DEFINE B AS price < PREV(price), "
                    "C AS price > PREV(price))",
}
RUNS = [  # further `cepkit run` options; {s} is the scratch folder
    ["run", "{s}/sub_where.sql", "examples/sql/ticker.csv"],
    ["run", "{s}/sub_where.sql", "examples/sql/ticker.csv", "--engine", "optimized"],
    ["run", "{s}/outer.sql", "examples/sql/ticker.csv", "--format", "csv"],
    ["run", "{s}/outer.sql", "examples/sql/ticker.csv", "--engine", "optimized", "--format", "table"],
    ["run", "{s}/outer.sql", "examples/sql/ticker.csv", "--limit", "1"],
    ["run", "{s}/all_rows.sql", "examples/sql/ticker.csv", "--limit", "3", "--format", "table"],
    ["run", "{s}/all_rows.sql", "examples/sql/ticker.csv", "--engine", "optimized", "--format", "csv"],
    ["run", "examples/sql/v_shape.sql", "examples/sql/ticker.csv", "--ts-col", "ts", "--ts-format", "iso",
     "--ts-unit", "s"],
    ["run", "examples/sql/v_shape.sql", "examples/sql/ticker.csv", "--gpu-launch", "event"],
    ["run", "examples/sql/trino_v_shape.sql", "--engine", "optimized", "--format", "csv"],
    ["run", "examples/tpstream/aggressive_drivers.tps", "examples/tpstream/car_sensors.csv", "--ts-unit", "s",
     "--early"],
    ["run", "examples/tpstream/aggressive_drivers.tps", "examples/tpstream/car_sensors.csv", "--ts-unit", "s",
     "--early", "--engine", "optimized", "--format", "table"],
    ["run", "examples/tpstream/aggressive_drivers.tps", "examples/tpstream/car_sensors.csv", "--ts-unit", "s",
     "--limit", "1", "--ts-format", "iso"],
    ["run", "examples/tpstream/aggressive_drivers.tps", "examples/tpstream/car_sensors.csv", "--early",
     "--engine", "gpu"],
    ["run", "examples/afa/q1.afa.yaml", "examples/afa/q1.shuffled.csv", "--net"],
    ["run", "examples/afa/q1.afa.yaml", "examples/afa/q1.shuffled.csv", "--net", "--engine", "optimized",
     "--format", "csv"],
    ["run", "examples/afa/q2.afa.yaml", "examples/afa/q2.shuffled.csv", "--flavor", "cleanse", "--sigma", "5"],
    ["run", "examples/afa/q2.afa.yaml", "examples/afa/q2.shuffled.csv", "--flavor", "cleanse", "--sigma", "5",
     "--engine", "optimized"],
    ["run", "examples/afa/q3.afa.yaml", "examples/afa/q3.shuffled.csv", "--flavor", "ignorable", "--limit", "3"],
    ["run", "examples/afa/q3.afa.yaml", "examples/afa/q3.shuffled.csv", "--flavor", "seq"],
    ["run", "examples/afa/q1.afa.yaml", "examples/afa/q1.shuffled.csv", "--format", "parquet", "--output", "-"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--chunk-size", "2", "--counters"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--whole", "--engine", "optimized", "--counters"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--selection", "non-overlap", "--format", "csv"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--sort", "--chunk-size", "5"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--sort", "--engine", "optimized"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--whole", "--chunk-size", "5"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--order", "C,B,A"],
    ["run", "examples/lazy/fraud.sase", "examples/lazy/fraud.csv", "--engine", "optimized-lazy", "--order",
     "C,B,A", "--counters"],
    ["run", "examples/lazy/fraud.sase", "examples/lazy/fraud.csv", "--engine", "reference-lazy", "--negation",
     "first-chance"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--no-merge"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--no-merge", "--engine", "optimized",
     "--format", "table"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--early"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--engine", "brute", "--chunk-size", "3"],
    ["run", "examples/query3.sase", "examples/fig3_stream.csv", "--device", "0"],
    ["run", "examples/sql/volume.win", "examples/sql/trades.csv", "--format", "csv", "--limit", "2"],
    ["run", "examples/sql/volume.win", "examples/sql/trades.csv", "--net"],
]
TIMES = re.compile(r"\d+(\.\d+)? ?(s|ms|µs|us)\b|\d+(\.\d+)? (events|rows|matches)/s")


def commands(tree: Path) -> list[list[str]]:
    """Every command to run, as argument lists after `cepkit`."""
    out: list[list[str]] = []
    for query, events, engines in PAIRS:
        base = ["run", query] + (events.split() if events else []) + EXTRA[Path(query).suffix]
        for engine in engines:
            out.append(base + ["--engine", engine])
        for fmt in ("csv", "table"):
            out.append(base + ["--format", fmt])
        out.append(["explain", query])
    out += BAD
    out += [[a.replace("{s}", str(scratch())) for a in argv] for argv in RUNS]
    out += [c for c in doc_commands(tree) if c not in out]
    return out


def scratch() -> Path:
    """The scratch folder of SCRATCH's queries (written once per process)."""
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / "cepkit-cli-snapshot"
    folder.mkdir(exist_ok=True)
    for name, text in SCRATCH.items():
        (folder / name).write_text(text + "\n", encoding="utf-8")
    return folder


def doc_commands(tree: Path) -> list[list[str]]:
    """The `cepkit run|explain|window` commands the README and docs show whose files are all in examples/."""
    found: list[list[str]] = []
    pages = [tree / "README.md", *sorted((tree / "docs").rglob("*.md")), *sorted((tree / "examples").rglob("*.md"))]
    pattern = re.compile(r"(?:\.venv/bin/)?cepkit ((?:run|explain|window) [^`|#>\n]*)")
    for page in pages:
        for m in pattern.finditer(page.read_text(encoding="utf-8")):
            try:
                argv = shlex.split(m.group(1).strip())
            except ValueError:
                continue
            files = [a for a in argv if "/" in a or a.endswith((".csv", ".sase", ".sql", ".tps", ".win", ".query"))]
            if not files or any(not (tree / a).is_file() or not a.startswith("examples/") for a in files):
                continue
            if any(a in ("--output", "-o", "--out") or a.startswith("-") and "[" in a for a in argv):
                continue
            if "explosive.sase" in argv and "--limit" not in argv and "--max-state" not in argv:  # runs for minutes
                continue
            if argv not in found:
                found.append(argv)
    return found


def run(tree: Path, argv: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "CEPKIT_NO_PROGRESS": "1", "COLUMNS": "120"}
    done = subprocess.run([sys.executable, "-m", "cepkit", *argv], cwd=tree, env=env, capture_output=True,
                          timeout=900, stdin=subprocess.DEVNULL)
    err = TIMES.sub("<time>", done.stderr.decode("utf-8", "replace"))
    return {"argv": argv, "code": done.returncode,
            "stdout": hashlib.sha256(done.stdout).hexdigest(), "stdout_bytes": len(done.stdout),
            "stderr": err}


def chosen(argv: list[str], only: list[str], skip: list[str] = ()) -> bool:
    """Whether a command is one of those --only names (all when none is named) and none of the --skip ones."""
    line = " ".join(argv)
    return (not only or any(text in line for text in only)) and not any(text in line for text in skip)


def compare(a: Path, b: Path, only: list[str] = (), skip: list[str] = ()) -> int:
    left = {json.dumps(r["argv"]): r for r in map(json.loads, a.read_text().splitlines())
            if chosen(r["argv"], only, skip)}
    right = {json.dumps(r["argv"]): r for r in map(json.loads, b.read_text().splitlines())
             if chosen(r["argv"], only, skip)}
    diffs = 0
    for key in sorted(left.keys() | right.keys()):
        x, y = left.get(key), right.get(key)
        if x is None or y is None:
            print(f"only in {'B' if x is None else 'A'}: {key}")
            diffs += 1
        elif x != y:
            print(f"differs: {key}")
            for field in ("code", "stdout", "stderr"):
                if x[field] != y[field]:
                    print(f"  {field}: {x[field]!r}\n  {' ' * len(field)}  {y[field]!r}")
            diffs += 1
    print(f"{len(left.keys() & right.keys())} commands in both, {diffs} differences")
    return 1 if diffs else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs=2, type=Path)
    parser.add_argument("--compare", action="store_true", help="compare two snapshots instead of making one")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="only the commands whose arguments contain TEXT (repeatable: any of them); with "
                             "--compare, only those commands of the two snapshots")
    parser.add_argument("--skip", action="append", default=[], metavar="TEXT",
                        help="leave out the commands whose arguments contain TEXT (repeatable)")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.paths, only=args.only, skip=args.skip)
    tree, out = args.paths[0].resolve(), args.paths[1]
    with out.open("w", encoding="utf-8") as f:
        for argv in commands(tree):
            if not chosen(argv, args.only, args.skip):
                continue
            f.write(json.dumps(run(tree, argv)) + "\n")
            f.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
