"""The SASE 1.0 jar (github.com/haopeng/sase, build/sase.jar) as a `--command` engine of the conformance kit:

    cepkit conformance --language sase1 --command \
        "python -m cepkit.conformance.adapters.sase1_jar --java java --jar PATH/sase.jar"

The jar reads no events: it generates its stock stream from a `.stream` configuration. For each `sase1` vector
(case.json, the last argument) this writes the query and the vector's generator configuration (`stream`), runs
the jar's command-line UI once (repeat 1), and prints its matches as match rows (ts: the last event's, bindings: each singleton
variable one event, the one Kleene variable the events between). A vector without a generator configuration,
or read in the SASE+ dialect, is refused (exit 77); no jar, no jeval.jar beside it or no Java is exit 69.
scripts/sase1_vectors.py makes the jar vectors with the same functions.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from cepkit.conformance.kit.command import EXIT_REFUSED, EXIT_UNAVAILABLE

MAIN_CLASS = "edu.umass.cs.sase.UI.CommandLineUI"
_COMPONENT = re.compile(r"\s*(\w+)(\+?)\s+(\w+)\s*(\[\])?\s*")


class JarFailed(Exception):
    """The jar ended (or was stopped) without the match count of its first repeat."""


def stream_text(stream: dict) -> str:
    """A `.stream` file: `name = value` lines, then `end`."""
    return "".join(f"{k} = {v}\n" for k, v in stream.items()) + "end\n"


def jar_matches(java: str, classpath: str, query: str, stream: dict, timeout: float = 60) -> list[list[int]]:
    """The matches the jar prints in its first repeat, each the ids of its events in the order printed (the jar
    is stopped after `timeout` seconds: JarFailed)."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "q.query").write_text(query, encoding="utf-8")
        (Path(tmp) / "s.stream").write_text(stream_text(stream), encoding="utf-8")
        matches: list[list[int]] = []
        with subprocess.Popen([java, "-cp", classpath, MAIN_CLASS, "q.query", "s.stream", "1"], cwd=tmp,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
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
        raise JarFailed(f"the jar ended (or ran past {timeout} s) without a match count: {query!r} {stream}\n"
                        + "\n".join(tail))


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


def answer(case: dict, java: str, classpath: str, timeout: float) -> int:
    """Print the jar's matches of one case.json as match rows (exit 0), or refuse it (exit 77)."""
    refusal = None
    if case.get("language") != "sase1" or case.get("options", {}).get("dialect", "sase1") != "sase1":
        refusal = "not a SASE 1.0 dialect vector (the jar reads SASE 1.0 queries only)"
    elif not case.get("stream"):
        refusal = "no generator configuration (the jar reads no events: it generates its stock stream)"
    elif (names := variables(case["query"])) is None:
        refusal = "a pattern other than SEQ(type[+] name[[]], ...) with one Kleene closure at most"
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return EXIT_REFUSED
    for ids in jar_matches(java, classpath, case["query"], case["stream"], timeout):
        # event i of a generated stream has timestamp i: the match's is its last event's
        print(json.dumps({"bindings": bindings(names, ids), "ts": ids[-1]}))
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
    parser.add_argument("--jar", required=True, help="SASE 1.0's sase.jar")
    parser.add_argument("--jeval", help="jeval.jar, SASE 1.0's expression library (default: beside the jar)")
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
        return answer(case, args.java, classpath(args.jar, jeval), args.timeout)
    except JarFailed as exc:
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
