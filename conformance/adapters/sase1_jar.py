"""The SASE 1.0 jar (github.com/haopeng/sase, build/sase.jar) as a `--command` engine of the conformance kit:

    cepkit conformance --language sase1 --command \
        "python -m cepkit.conformance.adapters.sase1_jar --java java --jar PATH/sase.jar"

For each `sase1` vector (case.json, the last argument) this writes the query as the jar's query file and runs
the jar once. A vector with a generator configuration (`stream`) runs through the jar's command-line UI, which
generates its stock stream from the configuration written as a `.stream` file (repeat 1). A vector that lists
its events runs through cepkit's own small Java driver, Sase1JarEvents.java beside this file: the events are
written to a file (`id,ts,type,symbol,price,volume`, id the event's position), and the driver builds the jar's
StockEvents and input Stream from it and runs the jar's engine on them. The driver is compiled with `javac`
against the jar on first use, into a cache folder named by the hashes of its source and of the jar
($XDG_CACHE_HOME/cepkit/sase1_jar, else ~/.cache/..., else the temporary folder; `--cache`). Both print the
matches as the command-line UI does, read by one parser, and this prints them as match rows (ts: the last
event's, bindings: each singleton variable one event, the one Kleene variable the events between; a listed
event's id is the vector's).

Refused (exit 77), by name: a vector read in the SASE+ dialect; a pattern other than SEQ(type[+] name[[]], ...)
with variables a, b, c, ... (the jar's parser gives a predicate to the component its first letter names); a
query not written one clause a line as the jar's parser reads it (PATTERN ..., WHERE <strategy>, AND ...,
WITHIN <n>); listed events the jar's StockEvent cannot carry (an attribute other than symbol, price, volume,
a value that is not a Java int, an absent attribute the query names: the jar would read 0, a timestamp unit);
listed events where no `javac` compiles the driver. No jar, no jeval.jar beside it or no Java is exit 69.
scripts/sase1_vectors.py makes the jar vectors with the same functions.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from cepkit.conformance.kit.command import EXIT_REFUSED, EXIT_UNAVAILABLE

MAIN_CLASS = "edu.umass.cs.sase.UI.CommandLineUI"
EVENTS_CLASS = "Sase1JarEvents"                        # cepkit's driver over listed events
EVENTS_SOURCE = Path(__file__).with_name(f"{EVENTS_CLASS}.java")
EVENTS_HEADER = "id,ts,type,symbol,price,volume"       # the file Sase1JarEvents reads
STOCK_ATTRIBUTES = ("symbol", "price", "volume")        # the jar's StockEvent's attributes, all Java ints
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
_COMPONENT = re.compile(r"\s*(\w+)(\+?)\s+(\w+)\s*(\[\s*\])?\s*")
_TYPE = re.compile(r"\w+")
_CLAUSE = re.compile(r"PATTERN SEQ\([^)]*\)\s*|WHERE \S+\s*|AND \S.*|WITHIN \d+\s*")


class JarFailed(Exception):
    """The jar ended (or was stopped) without the match count of its first repeat."""


class CannotCarry(Exception):
    """The listed events hold what the jar's StockEvent cannot: the message names it."""


def stream_text(stream: dict) -> str:
    """A `.stream` file: `name = value` lines, then `end`."""
    return "".join(f"{k} = {v}\n" for k, v in stream.items()) + "end\n"


def _printed_matches(command: list[str], cwd: str, timeout: float, what: str) -> list[list[int]]:
    """Run `command` (the jar, printing its results) and read the matches of its first repeat, each the ids of
    its events in the order printed (it is stopped after `timeout` seconds: JarFailed)."""
    matches: list[list[int]] = []
    with subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        tail: list[str] = []
        try:
            for line in proc.stdout:
                tail = (tail + [line.rstrip()])[-10:]
                if line.startswith("----------Here is the No."):
                    matches.append([])
                elif line.startswith("ID = ") and matches:
                    matches[-1].append(int(re.match(r"ID = (\d+)", line).group(1)))
                elif line.startswith("Number Of Matches Found: "):
                    count = int(line.split(":")[1])
                    if count != len(matches):
                        raise JarFailed(f"the jar reported {count} matches and printed {len(matches)}")
                    return matches
        finally:
            timer.cancel()
            proc.kill()
    raise JarFailed(f"the jar ended (or ran past {timeout} s) without a match count: {what}\n" + "\n".join(tail))


def jar_matches(java: str, classpath: str, query: str, stream: dict, timeout: float = 60) -> list[list[int]]:
    """The matches the jar's command-line UI prints in its first repeat over its generated stream, each the ids
    of its events in the order printed (the jar is stopped after `timeout` seconds: JarFailed)."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "q.query").write_text(query, encoding="utf-8")
        (Path(tmp) / "s.stream").write_text(stream_text(stream), encoding="utf-8")
        return _printed_matches([java, "-cp", classpath, MAIN_CLASS, "q.query", "s.stream", "1"], tmp, timeout,
                                f"{query!r} {stream}")


def events_text(events: list[dict], query: str, type_col: str | None = "type", default_type: str = "") -> str:
    """The events file Sase1JarEvents reads: EVENTS_HEADER, then one line per event, its id its position in
    the list. CannotCarry names what the jar's StockEvent cannot hold: an attribute other than STOCK_ATTRIBUTES,
    a value (or ts) that is not a Java int, a type that is not a word, an absent (or null) attribute the query
    names (the jar would read 0; one it does not name is written 0)."""
    lines = [EVENTS_HEADER]
    for position, event in enumerate(events):
        extra = sorted(set(event) - {"id", "ts", type_col} - set(STOCK_ATTRIBUTES))
        if extra:
            raise CannotCarry(f"event attribute {extra[0]!r} (the jar's StockEvent carries only "
                              f"{', '.join(STOCK_ATTRIBUTES)})")
        kind = event.get(type_col) if type_col else default_type
        if not isinstance(kind, str) or not _TYPE.fullmatch(kind):
            raise CannotCarry(f"event type {kind!r} (the jar's query file names a type by a word)")
        values = [position, event.get("ts")]
        for name in STOCK_ATTRIBUTES:
            value = event.get(name)
            if value is None and re.search(rf"\b{name}\b", query):
                raise CannotCarry(f"an event without {name}, which the query reads (the jar's StockEvent would "
                                  f"hold 0)")
            values.append(0 if value is None else value)
        for name, value in zip(("ts",) + STOCK_ATTRIBUTES, values[1:]):
            if isinstance(value, bool) or not isinstance(value, int) or not INT_MIN <= value <= INT_MAX:
                raise CannotCarry(f"{'a timestamp' if name == 'ts' else name} {value!r} that is not a Java int "
                                  f"(the jar's StockEvent holds ints)")
        lines.append(",".join(str(v) for v in [values[0], values[1], kind, *values[2:]]))
    return "\n".join(lines) + "\n"


def cache_root() -> Path:
    """Where the compiled driver is kept: $XDG_CACHE_HOME/cepkit/sase1_jar, else ~/.cache/cepkit/sase1_jar."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cepkit" / "sase1_jar"


def compiled_driver(javac: str, jar: str | Path, cache: str | Path | None = None) -> Path:
    """The folder holding Sase1JarEvents.class compiled against `jar`, named by the hashes of the source and
    of the jar, compiled on first use (into a fresh folder, then renamed: concurrent runs are safe). The cache
    is `cache`, else cache_root(), else (not writable) the temporary folder. RuntimeError says why javac
    did not compile it (none there, or its errors)."""
    digest = hashlib.sha256(EVENTS_SOURCE.read_bytes() + Path(jar).read_bytes()).hexdigest()[:16]
    roots = [Path(cache)] if cache else [cache_root(), Path(tempfile.gettempdir()) / f"cepkit-sase1_jar-{os.getuid()}"]
    for root in roots:
        target = root / digest
        if (target / f"{EVENTS_CLASS}.class").is_file():
            return target
        try:
            root.mkdir(parents=True, exist_ok=True)
            fresh = Path(tempfile.mkdtemp(prefix=f".{digest}-", dir=root))
        except OSError:
            continue
        try:
            done = subprocess.run([javac, "-nowarn", "-d", str(fresh), "-cp", str(Path(jar).resolve()),
                                   str(EVENTS_SOURCE)], capture_output=True, text=True, timeout=300, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            shutil.rmtree(fresh, ignore_errors=True)
            raise RuntimeError(f"no javac to compile {EVENTS_SOURCE.name} against the jar ({javac}: {exc})") from exc
        if done.returncode != 0:
            shutil.rmtree(fresh, ignore_errors=True)
            raise RuntimeError(f"javac did not compile {EVENTS_SOURCE.name} against the jar: "
                               f"{(done.stderr or done.stdout).strip()[:500]}")
        try:
            fresh.rename(target)
        except OSError:   # another run got there first
            shutil.rmtree(fresh, ignore_errors=True)
        return target
    raise RuntimeError(f"no writable cache folder for the compiled {EVENTS_SOURCE.name} ({', '.join(map(str, roots))})")


def jar_matches_of_events(java: str, classpath: str, driver: Path, query: str, events: str,
                          timeout: float = 60) -> list[list[int]]:
    """The matches the jar's engine prints over the events file `events` (events_text), run by the compiled
    driver (compiled_driver), each the positions of its events in the order printed (JarFailed as
    jar_matches)."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "q.query").write_text(query, encoding="utf-8")
        (Path(tmp) / "events.csv").write_text(events, encoding="utf-8")
        return _printed_matches([java, "-cp", f"{driver.resolve()}:{classpath}", EVENTS_CLASS, "q.query",
                                 "events.csv"], tmp, timeout, repr(query))


def variables(query: str) -> tuple[tuple[str, bool], ...] | None:
    """The pattern's variables in order, each with whether it is a Kleene closure (`stock+ a[]`), read from
    SASE 1.0's `PATTERN SEQ(type[+] name[[]], ...)`; None for another pattern (negation, a lone component)."""
    found = re.search(r"\bSEQ\s*\(([^)]*)\)", query, re.IGNORECASE)
    if found is None:
        return None
    parts = [_COMPONENT.fullmatch(p) for p in found.group(1).split(",")]
    if not all(parts) or sum(1 for p in parts if p.group(2)) > 1:
        return None
    return tuple((p.group(3), bool(p.group(2))) for p in parts)


def layout_refusal(query: str, names) -> str | None:
    """Why the jar's query-file parser (NFA.parseNfaFile) would misread `query`, or None. It reads a line by
    its first word: PATTERN, WHERE (the next word is the strategy, the rest is dropped), AND (one predicate or
    [attr]: its first letter names the component, a = the first), WITHIN (an int); it skips any other line."""
    if [name for name, _ in names] != [chr(ord("a") + i) for i in range(len(names))]:
        return ("variables not named a, b, c, ... in order (the jar gives a predicate to the component its first "
                "letter names)")
    lines = [line for line in query.splitlines() if line.strip()]
    if not lines or not all(_CLAUSE.fullmatch(line) for line in lines) or not lines[0].startswith("PATTERN"):
        return ("a query not written one clause a line (PATTERN SEQ(...), WHERE <strategy>, AND ..., WITHIN <n>: "
                "the jar's query-file parser reads lines)")
    return None


def bindings(variables, ids: list[int]) -> dict[str, list[int]]:
    """A match's events (printed in order, one run of the pattern) as bindings: singletons one event each, the
    one Kleene variable the events between."""
    kleene = [i for i, (_, k) in enumerate(variables) if k]
    if not kleene:
        assert len(ids) == len(variables), (variables, ids)
        return {name: [e] for (name, _), e in zip(variables, ids)}
    (k,) = kleene
    after = len(variables) - k - 1
    out = {name: [ids[i]] for i, (name, _) in enumerate(variables[:k])}
    out[variables[k][0]] = ids[k:len(ids) - after]
    out.update({name: [ids[len(ids) - after + j]] for j, (name, _) in enumerate(variables[k + 1:])})
    return out


def answer(case: dict, java: str, classpath: str, timeout: float, jar: str | Path | None = None,
           javac: str = "javac", cache: str | Path | None = None) -> int:
    """Print the jar's matches of one case.json as match rows (exit 0), or refuse it (exit 77)."""
    refusal = None
    if case.get("language") != "sase1" or case.get("options", {}).get("dialect", "sase1") != "sase1":
        refusal = "not a SASE 1.0 dialect vector (the jar reads SASE 1.0 queries only)"
    elif (names := variables(case["query"])) is None:
        refusal = "a pattern other than SEQ(type[+] name[[]], ...) with one Kleene closure at most"
    else:
        refusal = layout_refusal(case["query"], names)
    if refusal is None and case.get("stream"):
        for ids in jar_matches(java, classpath, case["query"], case["stream"], timeout):
            # event i of a generated stream has timestamp i: the match's is its last event's
            print(json.dumps({"bindings": bindings(names, ids), "ts": ids[-1]}))
        return 0
    if refusal is None:
        events = case.get("events") or []
        read = case.get("read_options") or {}
        try:
            if read.get("ts_unit"):
                raise CannotCarry(f"timestamps in {read['ts_unit']} (the jar's are plain ints, its WITHIN a count "
                                  f"of them)")
            text = events_text(events, case["query"], read.get("type_col", "type"), read.get("default_type", ""))
            driver = compiled_driver(javac, jar, cache)
        except (CannotCarry, RuntimeError) as exc:
            refusal = str(exc)
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return EXIT_REFUSED
    for positions in jar_matches_of_events(java, classpath, driver, case["query"], text, timeout):
        print(json.dumps({"bindings": bindings(names, [events[p]["id"] for p in positions]),
                          "ts": events[positions[-1]]["ts"]}))
    return 0


def jeval_beside(jar: str | Path) -> Path:
    """jeval.jar (SASE 1.0's expression library) where it ships: beside sase.jar."""
    return Path(jar).resolve().parent / "jeval.jar"


def classpath(jar: str | Path, jeval: str | Path) -> str:
    """The jar and jeval as an absolute class path (the jar runs in a temporary folder)."""
    return f"{Path(jar).resolve()}:{Path(jeval).resolve()}"


def missing(java: str, jar: str | Path | None, jeval: str | Path | None) -> str | None:
    """Why the jar cannot run here (no jar, no jeval.jar, no Java), or None."""
    for path, what in ((jar, "SASE 1.0 jar"), (jeval, "jeval.jar (SASE 1.0's expression library)")):
        if not path or not Path(path).is_file():
            return f"no {what} at {str(path)!r} (not in the repository: pass its path)"
    return java_missing(java)


def java_missing(java: str) -> str | None:
    """Why `java` does not run here (`java -version`), or None."""
    try:
        done = subprocess.run([java, "-version"], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"Java not available ({java} -version: {exc})"
    return None if done.returncode == 0 else f"Java not available ({java} -version exited {done.returncode})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--java", default="java", help="the Java executable (default: java)")
    parser.add_argument("--javac", default="javac",
                        help="the Java compiler, for the vectors that list their events (default: javac)")
    parser.add_argument("--jar", required=True, help="SASE 1.0's sase.jar")
    parser.add_argument("--jeval", help="jeval.jar, SASE 1.0's expression library (default: beside the jar)")
    parser.add_argument("--cache",
                        help="the folder for the compiled event driver (default: $XDG_CACHE_HOME/cepkit/sase1_jar)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds the jar may run on one vector")
    parser.add_argument("case", help="the kit's case.json")
    args = parser.parse_args(argv)
    jeval = args.jeval or jeval_beside(args.jar)
    why = missing(args.java, args.jar, jeval)
    if why:
        print(why, file=sys.stderr)
        return EXIT_UNAVAILABLE
    case = json.loads(Path(args.case).read_text(encoding="utf-8"))
    try:
        return answer(case, args.java, classpath(args.jar, jeval), args.timeout, args.jar, args.javac, args.cache)
    except JarFailed as exc:
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
