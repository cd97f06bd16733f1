"""`cepkit conformance`: run the shipped vectors against an engine, print a summary, write a JUnit report.

Exit code 0 when no vector failed (refusals are not failures), 1 when one did, 2 for a usage error."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cepkit.core import registry
from cepkit.conformance.kit import junit, session, summary, vectors
from cepkit.conformance.kit.adapter import AdapterEngine, AdapterError
from cepkit.conformance.kit.command import CommandEngine, CommandError
from cepkit.conformance.kit.registered import RegisteredEngine
def register(sub) -> None:
    c = sub.add_parser("conformance", help="run the conformance vectors against a cepkit engine, a Python adapter "
                       "or an external command (docs/conformance.md)",
                       description="Run every conformance vector of the chosen languages against one engine; print "
                       "the failures, passed / failed / refused per construct, and optionally write a JUnit report.")
    c.add_argument("--language", action="append", choices=sorted(registry.LANGUAGES), metavar="L",
                   help=f"only this language's vectors (repeatable; default: all of {', '.join(registry.LANGUAGES)})")
    which = c.add_mutually_exclusive_group()
    which.add_argument("--engine", metavar="NAME", help="a registered engine (default: reference)")
    which.add_argument("--adapter", metavar="module:Class", help="a Python adapter (module or path/to/file.py)")
    which.add_argument("--command", metavar="CMD", help="an external command run once per vector")
    c.add_argument("--junit", metavar="FILE", help="write a JUnit XML report here")
    c.add_argument("--case", action="append", metavar="PATTERN",
                   help="only vectors whose id (or language:id) matches this glob (repeatable)")
    c.add_argument("--timeout", type=float, default=60.0, metavar="S",
                   help="--command: seconds a vector may take (default 60)")
    c.add_argument("-q", "--quiet", action="store_true", help="print no failure details, only the summary")
    c.set_defaults(func=run, parser=c)


def _engine(args: argparse.Namespace):

    if args.adapter is not None:
        try:
            return AdapterEngine(args.adapter)
        except AdapterError as exc:
            args.parser.error(str(exc))
    if args.command is not None:
        try:
            return CommandEngine(args.command, args.timeout)
        except CommandError as exc:
            args.parser.error(str(exc))
    name = args.engine or "reference"
    engine = RegisteredEngine(name)
    runs = engine.languages()
    if not runs:
        names = sorted({n for (_, n) in registry.ENGINES})
        args.parser.error(f"--engine {name}: no such engine (registered: {', '.join(names)})")
    for lang in args.language or ():
        if lang not in runs:
            args.parser.error(f"--engine {name} runs no {lang} vectors (the {lang} engines: "
                              f"{', '.join(registry.engines_for(lang))})")
    for lang in args.language or runs:  # MissingExtra (cepkit[gpu]) before any vector, not one failure each
        registry.require_engine(lang, name)
    return engine


def _progress(total: int):
    """A one-line counter on stderr, on a terminal only (a command takes a process per vector)."""
    if not sys.stderr.isatty():
        return None
    done = [0]

    def show(outcome) -> None:
        done[0] += 1
        end = "\n" if done[0] == total else ""
        sys.stderr.write(f"\r\x1b[K[{done[0]}/{total}] {outcome.case.language}:{outcome.case.id}{end}")
        sys.stderr.flush()
    return show


def run(args: argparse.Namespace) -> int:

    if args.timeout <= 0:
        args.parser.error("--timeout must be a positive number of seconds")
    if args.junit and not Path(args.junit).resolve().parent.is_dir():
        args.parser.error(f"--junit {args.junit}: no directory {Path(args.junit).resolve().parent}")
    engine = _engine(args)
    languages = args.language or [lang for lang in registry.LANGUAGES if lang in engine.languages()]
    cases = vectors.select(vectors.all_cases(), languages, args.case)
    if not any(engine.runs(c) for c in cases):
        chosen = f" matching --case {' '.join(args.case)}" if args.case else ""
        args.parser.error(f"no vector to run: {len(cases)} vectors of {', '.join(languages)}{chosen}, "
                          f"none for {engine.label}")
    started = time.monotonic()
    outcomes = session.run(engine, cases, _progress(sum(engine.runs(c) for c in cases)))
    seconds = time.monotonic() - started
    if not args.quiet and any(o.status == "failed" for o in outcomes):
        print(summary.failures(outcomes), end="\n\n")
    skipped = [lang for lang in registry.LANGUAGES if lang not in languages and not args.language]
    print(summary.summary(outcomes, engine.label, seconds))
    if skipped:
        print(f"not run: {', '.join(skipped)} ({engine.label} runs none of them)")
    if args.junit:
        try:
            junit.write(outcomes, engine.label, args.junit)
        except OSError as exc:
            print(f"error: cannot write {args.junit}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(f"JUnit report: {args.junit}")
    return 1 if any(o.status == "failed" for o in outcomes) else 0
