"""`cepkit conformance`: run the shipped vectors against an engine through pytest and the kit's plugin
(conformance/kit/plugin.py): a test per vector, the failures in full, passed / failed / refused / errors per
language and construct, and what pytest adds (-k, -x, --junitxml, -n with pytest-xdist, any option after --).

Exit code 0 when no vector failed or errored (refusals are neither), 1 when one did, 2 for a usage error
(nothing selected included), 3 when pytest broke, 130 when interrupted."""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

from cepkit.conformance.kit import vectors
from cepkit.core import registry
from cepkit.core.errors import MissingExtra

PLUGIN = "cepkit.conformance.kit.plugin"
PYTEST_EXIT = {0: 0, 1: 1, 2: 130, 3: 3, 4: 2, 5: 2}   # pytest's ExitCode -> ours


def register(sub) -> None:
    c = sub.add_parser("conformance", help="run the conformance vectors against a cepkit engine, a Python adapter "
                       "or an external command (docs/conformance.md)",
                       description="Run every conformance vector of the chosen languages against one engine, as a "
                       "pytest run (a test per vector); print the failures and passed / failed / refused / errors "
                       "per construct. Options after -- go to pytest as they are.")
    c.add_argument("--language", action="append", choices=sorted(vectors.LOADERS), metavar="L",
                   help=f"only this language's vectors (repeatable; default: all of {', '.join(vectors.LOADERS)})")
    which = c.add_mutually_exclusive_group()
    which.add_argument("--engine", metavar="NAME", help="a registered engine (default: reference)")
    which.add_argument("--adapter", metavar="module:Class", help="a Python adapter (module or path/to/file.py)")
    which.add_argument("--command", metavar="CMD", help="an external command run once per vector")
    c.add_argument("--junitxml", "--junit", dest="junit", metavar="FILE", help="write a JUnit XML report (pytest's)")
    c.add_argument("--case", action="append", metavar="PATTERN",
                   help="only vectors whose id (or language:id) matches this glob (repeatable)")
    c.add_argument("--origin", action="append", metavar="KINDS",
                   help="only vectors of these origins: trino, sql2016, sase1, paper, cepkit, extension "
                   "(comma-separated, repeatable; e.g. --origin trino,sase1)")
    c.add_argument("-k", dest="keyword", metavar="EXPR", help="pytest's -k: only the tests whose names match EXPR "
                   "(the language, the vector id: -k 'sase and CC5')")
    c.add_argument("-x", "--exitfirst", action="store_true", help="stop at the first failure or error")
    c.add_argument("-n", "--numprocesses", metavar="N", help="run on N processes (pytest-xdist; 'auto': a core each)")
    c.add_argument("--timeout", type=float, default=60.0, metavar="S",
                   help="seconds one vector may take, enforced from outside the engine (default 60)")
    c.add_argument("--strict-types", action="store_true",
                   help="numbers must also have the vector's type (70 is not 70.0); by default they compare by value")
    c.add_argument("-q", "--quiet", action="store_true", help="print no failure details, only the summary; no "
                   "progress bar (on a terminal, after 2 s, on stderr: vectors run of those selected, rate, time left)")
    c.add_argument("-v", "--verbose", action="store_true", help="a line per vector")
    c.add_argument("pytest_args", nargs="*", metavar="-- PYTEST_ARGS", help="further pytest options, after --")
    c.set_defaults(func=run, parser=c)


def _spec(args: argparse.Namespace):
    from cepkit.conformance.kit.engine_spec import EngineSpec  # lazy: the kit loads only for this command

    if args.adapter is not None:
        return EngineSpec("adapter", args.adapter, args.timeout)
    if args.command is not None:
        return EngineSpec("command", args.command, args.timeout)
    return EngineSpec("engine", args.engine or "reference", args.timeout)


def _check_engine(args: argparse.Namespace, spec) -> None:
    """The usage errors of a registered engine or a command, before any vector runs."""
    from cepkit.conformance.kit.engine_spec import KitUsageError   # lazy: the kit loads only for this command

    if spec.kind == "adapter":
        return
    try:
        spec.build()
    except KitUsageError as exc:
        args.parser.error(str(exc))
    if spec.kind == "engine":
        runs = spec.languages()
        for lang in args.language or ():
            if lang not in runs:
                args.parser.error(f"--engine {spec.value} runs no {lang} vectors (the {lang} engines: "
                                  f"{', '.join(registry.engines_for(vectors.registry_language(lang)))})")
        for lang in args.language or runs:  # MissingExtra (cepkit[gpu]) before any vector, not one failure each
            registry.require_engine(vectors.registry_language(lang), spec.value)


def _started_adapter(args: argparse.Namespace, spec):
    """The child running the adapter, started (the adapter is loaded there, never in this process): a usage
    error when it cannot be loaded or does not start; None for another kind of engine."""
    from cepkit.conformance.kit.worker import Worker   # lazy: the kit loads only for this command

    if spec.kind != "adapter":
        return None
    worker = Worker(spec, args.strict_types)
    reason = worker.start()
    if reason is not None:
        worker.close()
        args.parser.error(reason)
    return worker


def pytest_argv(args: argparse.Namespace, spec, cases_dir: Path) -> list[str]:
    """The pytest command line of a kit run: the plugin, its options, the vectors' folder as the one path (the
    folder's package as rootdir, no cache written there), no ini file or conftest of the working directory."""
    argv = ["--disable-plugin-autoload", "-p", PLUGIN, "-p", "no:cacheprovider", "--noconftest", "-c", os.devnull,
            "--rootdir", str(cases_dir.parent.parent), "-o", "junit_suite_name=cepkit-conformance",
            "-o", "console_output_style=count", "-r", "fE", f"--kit-{spec.kind}", spec.value,
            "--kit-timeout", repr(args.timeout)]
    for lang in args.language or ():
        argv += ["--kit-language", lang]
    for pattern in args.case or ():
        argv += ["--kit-case", pattern]
    for kinds in args.origin or ():
        argv += ["--kit-origin", kinds]
    if args.strict_types:
        argv.append("--kit-strict-types")
    if args.keyword:
        argv += ["-k", args.keyword]
    if args.exitfirst:
        argv.append("-x")
    if args.numprocesses is not None:
        argv += ["-p", "xdist.plugin", "-n", args.numprocesses]
    if args.junit:
        argv += ["--junitxml", args.junit]
    if args.quiet:
        argv += ["--tb=no", "-q"]
    if args.verbose:
        argv.append("-v")
    return argv + list(args.pytest_args) + [str(cases_dir)]


class _Preloaded:
    """Hands the child started while checking the engine to the plugin (a serial run: no second start)."""

    def __init__(self, worker):
        self.worker = worker

    def pytest_configure(self, config) -> None:
        from cepkit.conformance.kit.plugin import WORKER   # lazy: pytest loads only for this command

        config.stash[WORKER] = self.worker


def _progress(args: argparse.Namespace):
    """The plugin drawing the run's bar on stderr (none with -q, nor with -v on the terminal stdout is on);
    pytest's per-vector letters give way to it where stdout is the same terminal."""
    from cepkit.conformance.kit.progress import VectorsProgress   # lazy: the kit loads only for this command
    from cepkit.progress import Bar

    shared = sys.stdout.isatty()
    bar = Bar(f"cepkit conformance ({args.engine or args.adapter or args.command or 'reference'})",
              enabled=not args.quiet and not (args.verbose and shared), unit=" vectors", scale=False)
    return VectorsProgress(bar, quiet_letters=shared)


def run(args: argparse.Namespace) -> int:
    import pytest  # lazy: the kit runs on pytest; `cepkit --version` and `cepkit run` never load it

    if args.timeout <= 0:
        args.parser.error("--timeout must be a positive number of seconds")
    if args.junit and not Path(args.junit).resolve().parent.is_dir():
        args.parser.error(f"--junit {args.junit}: no directory {Path(args.junit).resolve().parent}")
    if args.numprocesses is not None and importlib.util.find_spec("xdist") is None:
        raise MissingExtra("cepkit conformance -n", "kit", "pytest-xdist")
    spec = _spec(args)
    _check_engine(args, spec)
    try:
        languages, kinds, cases = vectors.chosen(spec, args.language, args.case, args.origin)
    except ValueError as exc:
        args.parser.error(f"--origin: {exc}")
    if not any(spec.runs(c) for c in cases):
        chosen = f" matching --case {' '.join(args.case)}" if args.case else ""
        chosen += f" of origin {', '.join(kinds)}" if kinds else ""
        args.parser.error(f"no vector to run: {len(cases)} vectors of {', '.join(languages)}{chosen}, "
                          f"none for {spec.label}")
    worker = _started_adapter(args, spec)
    if worker is not None and args.numprocesses is not None:   # each pytest-xdist worker starts its own
        worker.close()
        worker = None
    plugins = ([] if worker is None else [_Preloaded(worker)]) + [_progress(args)]
    try:
        code = int(pytest.main(pytest_argv(args, spec, vectors.cases_dir().resolve()), plugins=plugins))
    finally:
        if worker is not None:
            worker.close()
    if code == 5:
        print("cepkit conformance: error: no vector selected" + (f" (-k {args.keyword})" if args.keyword else ""),
              file=sys.stderr)
    skipped = [lang for lang in vectors.LOADERS if lang not in languages and not args.language]
    if skipped:
        print(f"not run: {', '.join(skipped)} ({spec.label} runs none of them)")
    return PYTEST_EXIT.get(code, code)
