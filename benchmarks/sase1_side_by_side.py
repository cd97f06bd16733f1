"""The SASE 1.0 jar and cepkit's optimized engine (SASE 1.0 dialect) side by side on the same generated
stock streams, alternated in one run, engine-only and whole-process (issue 20, build item 5).

    python -m benchmarks.sase1_side_by_side --jar SASE_HOME/build/sase.jar [--jeval SASE_HOME/lib/jeval.jar]
        [--events 100000 1000000] [--repeat 3] [--jar-repeats 10] [--queries q1 p2s3 seq3pc seq3next seq3any]
        [--java java] [--java-opts "-Xmx8g"]

Without the jar or without Java (`java -version`) it prints "skipped: ..." and exits 0.

For each query and size it writes a SASE 1.0 `.stream` file and the query (one clause per line, the form the
jar's NFA parser reads) into a temporary folder; cepkit regenerates the same stream from that `.stream` file
as CSV (cepkit.reference.sase1, SASE 1.0's generator rebuilt). Then, --repeat times, alternating:

- jar: `java -cp JAR[:JEVAL] edu.umass.cs.sase.UI.CommandLineUI QUERY STREAM 0`. Its command line always
  runs 20 repeats, each generating the stream and running the engine, then printing Profiling's numbers.
  Engine-only = the least "Total Running Time" (nanoseconds, timed by SASE 1.0 around its per-event loop)
  of the first --jar-repeats repeats (the JIT warm); whole-process = wall clock from the launch to repeat
  1's "Number Of Matches Found" line (JVM start, query parsing, stream generation, one cold run; results
  not printed). The process is then stopped.
- cepkit whole-process: wall clock of `python -m cepkit run QUERY STREAM.csv --engine optimized
  --dialect sase1 --output OUT.jsonl` (CSV in, JSON lines out).
- cepkit engine-only: `cepkit.compile(text, engine='optimized', dialect='sase1').run(batch)`, the batch read
  from the CSV before the clock starts, Numba's code compiled by a warm-up run first.

Each is the best of --repeat. The table gives seconds and "x jar" = jar seconds / cepkit seconds (above 1:
cepkit is faster), and the match counts of both, which must agree under the SASE 1.0 dialect: a WARNING
line says so when they do not.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAIN_CLASS = "edu.umass.cs.sase.UI.CommandLineUI"
JAR_REPEATS = 20  # CommandLineUI.main's fixed loop

SEQ3 = "PATTERN SEQ(stock1 a, stock2 b, stock3 c)\nWHERE {strategy}\nAND [price]\nWITHIN 1000\n"
KLEENE = ("PATTERN SEQ(stock+ a[], stock b)\nWHERE {strategy}\nAND [symbol]\nAND a[1].price % 500 = 0\n"
          "AND a[i].price > a[i-1].price\nAND b.volume < 150\nWITHIN 500\n")
Q1_STREAM = {"maxPrice": 1000, "numOfSymbol": 2, "maxVolume": 1000, "randomSeed": 10, "increaseProbability": 70}
UNIFORM_STREAM = {"maxPrice": 100, "numOfSymbol": 3, "maxVolume": 1000, "randomSeed": 11, "increaseProbability": 101}

# name: (query text, stream parameters but streamSize); the same texts as benchmarks/sase1_optimized.py
QUERIES = {
    "q1": ((ROOT / "examples" / "Q1.query").read_text(encoding="utf-8"), Q1_STREAM),
    "p2s3": (KLEENE.format(strategy="skip-till-next-match"), Q1_STREAM),
    "seq3pc": (SEQ3.format(strategy="partition-contiguity"), UNIFORM_STREAM),
    "seq3next": (SEQ3.format(strategy="skip-till-next-match"), UNIFORM_STREAM),
    "seq3any": (SEQ3.format(strategy="skip-till-any-match"), UNIFORM_STREAM),
}


@dataclass
class JarRepeat:
    """One repeat of CommandLineUI's loop, as Profiling.printProfiling prints it."""

    number: int
    nanoseconds: int | None = None
    events: int | None = None
    runs: int | None = None
    matches: int | None = None
    throughput: int | None = None


@dataclass
class Best:
    """The best seconds seen and the match counts reported."""

    seconds: float | None = None
    matches: set = field(default_factory=set)
    error: str | None = None

    def add(self, seconds: float | None, matches: int | None) -> None:
        if seconds is not None:
            self.seconds = seconds if self.seconds is None else min(self.seconds, seconds)
        if matches is not None:
            self.matches.add(matches)


_REPEAT = re.compile(r"^Repeat No\.(\d+) is started")
_FIELDS = {"Total Running Time: ": "nanoseconds", "Number Of Events Processed: ": "events",
           "Number Of Runs Created: ": "runs", "Number Of Matches Found: ": "matches", "Throughput: ": "throughput"}


def parse_line(line: str, repeats: list[JarRepeat]) -> str | None:
    """Fold one line of the jar's standard output into `repeats`; the field it set, if any."""
    line = line.strip()
    started = _REPEAT.match(line)
    if started:
        repeats.append(JarRepeat(int(started.group(1))))
        return "repeat"
    for prefix, name in _FIELDS.items():
        if line.startswith(prefix) and repeats:
            number = re.match(r"-?\d+", line[len(prefix):])
            if number:
                setattr(repeats[-1], name, int(number.group()))
                return name
    return None


def parse_output(text: str) -> list[JarRepeat]:
    """The repeats the jar's standard output reports, in order."""
    repeats: list[JarRepeat] = []
    for line in text.splitlines():
        parse_line(line, repeats)
    return repeats


def classpath(jar: str, jeval: str | None = None) -> str:
    """The jar, and jeval (SASE 1.0's expression library) when given or found at SASE_HOME/lib/jeval.jar, as
    absolute paths (the jar runs in a temporary folder: a relative --jar such as ../shared/peers/sase1/sase.jar
    was not found there)."""
    if jeval is None:
        found = Path(jar).resolve().parent.parent / "lib" / "jeval.jar"
        jeval = str(found) if found.is_file() else None
    return os.pathsep.join(str(Path(p).resolve()) for p in [jar] + ([jeval] if jeval else []))


def jar_command(java: str, cp: str, query: str, stream: str, java_opts: str = "") -> list[str]:
    """The command line that runs QUERY over the stream STREAM configures, results not printed."""
    return [java, *shlex.split(java_opts), "-cp", cp, MAIN_CLASS, query, stream, "0"]


def cepkit_command(query: str, events_csv: str, output: str) -> list[str]:
    return [sys.executable, "-m", "cepkit", "run", query, events_csv, "--engine", "optimized", "--dialect", "sase1",
            "--output", output, "--no-progress", "--max-state", str(10 ** 9)]


def stream_text(params: dict, events: int) -> str:
    """A `.stream` file: `name = value` lines, no blank line, then `end` (ParseStockStreamConfig)."""
    lines = [f"streamSize = {events}"] + [f"{name} = {value}" for name, value in params.items()]
    return "\n".join(lines) + "\nend\n"


def missing(jar: str | None, java: str) -> str | None:
    """Why the side-by-side cannot run here, or None."""
    if not jar or not Path(jar).is_file():
        return f"no SASE 1.0 jar at {jar!r} (pass --jar PATH; the jar is not committed)"
    from cepkit.conformance.adapters.sase1_jar import java_missing  # lazy: only where the jar is run

    return java_missing(java)


def run_jar(command: list[str], repeats: int, cwd: str) -> tuple[float | None, list[JarRepeat], str]:
    """(seconds to repeat 1's match count, the repeats read, the output's tail); stops after `repeats`."""
    t0 = time.perf_counter()
    first = None
    seen: list[JarRepeat] = []
    tail: list[str] = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            tail = (tail + [line.rstrip()])[-20:]
            if parse_line(line, seen) == "matches":
                first = first if first is not None else time.perf_counter() - t0
                if len(seen) >= repeats:
                    proc.terminate()
                    break
        proc.wait()
    return first, seen, "\n".join(tail)


@lru_cache(maxsize=4)
def stream_batch(name: str, events: int):
    """The query's stream with `events` events, as an event batch (asv: benchmarks/suites/bench_sase1.py)."""
    from cepkit.core.readers import from_pandas
    from cepkit.reference.sase1.stock_stream import StockStreamConfig, to_frame

    return from_pandas(to_frame(StockStreamConfig.from_mapping({**QUERIES[name][1], "streamSize": events})))


def cepkit_engine_seconds(text: str, batch) -> tuple[float, int]:
    """(seconds, matches) of the optimized engine's `program.run(batch)` in the SASE 1.0 dialect."""
    from cepkit import compile

    program = compile(text, engine="optimized", dialect="sase1", max_state=None)
    t0 = time.perf_counter()
    table = program.run(batch)
    return time.perf_counter() - t0, len(table)


def cepkit_whole_seconds(command: list[str], output: str) -> tuple[float, int]:
    """(wall seconds, lines written) of one `cepkit run`; SystemExit with its error when it fails."""
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), check=False)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(command)} exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    with open(output, "rb") as f:
        return seconds, sum(1 for _ in f)


def measure(name: str, events: int, args, cp: str, tmp: str) -> dict[str, Best]:
    """Best seconds and match counts of the four measurements, --repeat rounds alternating jar and cepkit."""
    from cepkit.core.readers import read_csv
    from cepkit.reference.sase1.stock_stream import StockStreamConfig, read_config, write_csv

    text, params = QUERIES[name]
    query, stream, csv, out = (os.path.join(tmp, f"{name}_{events}{s}") for s in (".query", ".stream", ".csv", ".jsonl"))
    Path(query).write_text(text, encoding="utf-8")
    Path(stream).write_text(stream_text(params, events), encoding="utf-8")
    write_csv(read_config(stream), csv)
    batch = read_csv(csv)
    warm = os.path.join(tmp, "warm.csv")
    write_csv(StockStreamConfig.from_mapping({**params, "streamSize": 1000}), warm)
    cepkit_engine_seconds(text, read_csv(warm))  # Numba's code compiled (or loaded from its cache)
    results = {k: Best() for k in ("jar engine", "jar whole", "cepkit engine", "cepkit whole")}
    command = jar_command(args.java, cp, query, stream, args.java_opts)
    for _ in range(args.repeat):
        whole, repeats, tail = run_jar(command, args.jar_repeats, tmp)
        done = [r for r in repeats if r.nanoseconds is not None]
        if not done:
            results["jar engine"].error = results["jar whole"].error = "no Profiling output; its last lines:\n" + tail
        else:
            results["jar whole"].add(whole, done[0].matches)
            for r in done:
                results["jar engine"].add(r.nanoseconds / 1e9, r.matches)
        results["cepkit whole"].add(*cepkit_whole_seconds(cepkit_command(query, csv, out), out))
        results["cepkit engine"].add(*cepkit_engine_seconds(text, batch))
    return results


def row(name: str, events: int, kind: str, jar: Best, cepkit: Best) -> str:
    def secs(b: Best) -> str:
        return f"{b.seconds:10.3f}" if b.seconds is not None else f"{'failed':>10}"

    def counts(b: Best) -> str:
        return "/".join(str(n) for n in sorted(b.matches)) or "-"

    ratio = f"{jar.seconds / cepkit.seconds:7.2f}" if jar.seconds and cepkit.seconds else f"{'-':>7}"
    return (f"{name:8} {events:>9} {kind:6} {secs(jar)} {secs(cepkit)} {ratio} "
            f"{counts(jar):>10} {counts(cepkit):>10}")


def warnings(name: str, events: int, results: dict[str, Best]) -> list[str]:
    """WARNING lines: a failed jar run, or match counts that differ between or within the two sides."""
    lines = [f"WARNING: {name} at {events} events: the jar failed: {results['jar engine'].error}"] \
        if results["jar engine"].error else []
    counts = set().union(*(b.matches for b in results.values()))
    if len(counts) > 1:
        seen = ", ".join(f"{k} {sorted(b.matches)}" for k, b in results.items())
        lines.append(f"WARNING: {name} at {events} events: match counts differ under the SASE 1.0 dialect: {seen}")
    return lines


HEADER = f"{'query':8} {'events':>9} {'time':6} {'jar s':>10} {'cepkit s':>10} {'x jar':>7} {'jar #':>10} {'cepkit #':>10}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.sase1_side_by_side", description=__doc__.split("\n")[0])
    ap.add_argument("--jar", help="SASE 1.0's sase.jar (github.com/haopeng/sase build/sase.jar; not committed)")
    ap.add_argument("--jeval", help="jeval.jar (default: SASE_HOME/lib/jeval.jar beside the jar's build/ folder)")
    ap.add_argument("--java", default="java", help="the java executable (default: java)")
    ap.add_argument("--java-opts", default="", help="options for the JVM, one string, e.g. '-Xmx8g'")
    ap.add_argument("--events", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--repeat", type=int, default=3, help="rounds of jar, cepkit alternated (best of)")
    ap.add_argument("--jar-repeats", type=int, default=10, choices=range(1, JAR_REPEATS + 1), metavar="1..20",
                    help="CommandLineUI repeats read per jar launch (it runs 20; stopped after these)")
    ap.add_argument("--queries", nargs="+", default=list(QUERIES), choices=list(QUERIES))
    args = ap.parse_args(argv)
    why = missing(args.jar, args.java)
    if why:
        print(f"skipped: {why}")
        return 0
    cp = classpath(args.jar, args.jeval)
    print(HEADER, flush=True)
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="sase1_side_by_side_") as tmp:
        for name in args.queries:
            for events in args.events:
                r = measure(name, events, args, cp, tmp)
                print(row(name, events, "engine", r["jar engine"], r["cepkit engine"]))
                print(row(name, events, "whole", r["jar whole"], r["cepkit whole"]), flush=True)
                for line in warnings(name, events, r):
                    print(line, flush=True)
                    notes.append(line)
    if notes:
        print(f"{len(notes)} warning(s): see above")
    return 0


if __name__ == "__main__":
    sys.exit(main())
