"""`cepkit warm`: compile every compiled engine's kernels once, ahead of the first run, by running each engine
whose code Numba compiles (the registry's engines in cepkit.optimized) over the conformance vectors of its
language; the machine code goes to the kernel cache (optimized/kernel_cache.py), so later runs load it. A line
per engine on stderr says how many vectors ran, how many functions Numba compiled and how long it took; a
second `cepkit warm` compiles nothing. `--spark` also makes the Spark driver's class archive
(spark_jobs/class_archive.py). `make install` runs `cepkit warm --spark`."""
from __future__ import annotations

import argparse
import sys
import time
import warnings

from cepkit.conformance.harness import run_case
from cepkit.conformance.kit.vectors import all_cases
from cepkit.core import registry
from cepkit.core.compiles import Compiles
from cepkit.optimized.cache import cache_dir
from cepkit.summary_line import add_quiet, summary_line

def register(sub) -> None:
    w = sub.add_parser("warm", help="compile the optimized engines' kernels now (the install does), so that no "
                       "later run compiles", description=__doc__.split("\n\n")[0])
    w.add_argument("--language", action="append", choices=sorted(registry.LANGUAGES), metavar="L",
                   help="only this language's engines (repeatable; default: every language)")
    w.add_argument("--spark", action="store_true",
                   help="also make the Spark driver's class archive (three small Spark jobs, about 30 s; needs the "
                        "spark extra and Java): later sessions start faster (docs/spark.md)")
    add_quiet(w)
    w.set_defaults(func=run)


def compiled_engines(languages: list[str] | None = None) -> list[tuple[str, str]]:
    """(language, engine) of every registered engine whose code Numba compiles, in registry order."""
    return [(lang, name) for (lang, name) in registry.ENGINES
            if registry.compiles(lang, name) and (not languages or lang in languages)]


def warm(lang: str, engine: str, cases) -> tuple[int, int]:
    """Run the engine over its language's vectors; (vectors run, functions Numba compiled meanwhile). A vector
    the engine refuses, or that expects an error, is passed over: only the compiling matters here (and any
    other error too: `make test` checks the answers; a warm-up never stops an install)."""
    compiles = Compiles().start()
    ran = 0
    try:
        for case in cases:
            if case.language != lang or (case.engines and engine not in case.engines):
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    run_case(case, engine)
                ran += 1
            except Exception:  # noqa: BLE001 - a refusal, an expected error or any other: see the docstring
                pass
    finally:
        compiles.stop()
    return ran, compiles.count


# The conformance vectors run SASE+ texts; the SASE 1.0 dialect's runs are another program (optimized/sase1),
# warmed with one query in the dialect (a Kleene closure and a SEQ, each selection strategy's code path).
SASE1_WARM = ("PATTERN SEQ(stock+ a[], stock b) WHERE {strategy} AND [symbol] AND a[i].price > a[i-1].price "
              "AND b.volume < 150 WITHIN 50")
SASE1_STRATEGIES = ("partition-contiguity", "skip-till-next-match", "skip-till-any-match")


def warm_sase1() -> int:
    """Functions Numba compiled running the optimized engine on SASE1_WARM under each strategy."""
    # lazy: the dialect's program, only for the optimized SASE engine's warm-up
    import cepkit

    rows = [{"id": i, "ts": i, "type": "stock", "symbol": i % 2, "price": 500 + i, "volume": 100 + 30 * i}
            for i in range(8)]
    compiles = Compiles().start()
    try:
        for strategy in SASE1_STRATEGIES:
            cepkit.run(SASE1_WARM.format(strategy=strategy), rows, engine="optimized", dialect="sase1")
    finally:
        compiles.stop()
    return compiles.count


def run(args: argparse.Namespace) -> int:
    engines = compiled_engines(args.language)
    cases = all_cases()
    started = time.monotonic()
    total = 0
    for lang, engine in engines:
        t = time.monotonic()
        clear = "\r\x1b[K" if sys.stderr.isatty() and not args.quiet else ""
        if clear:   # the engine being warmed, overwritten by its line when done
            print(f"cepkit warm: {engine} ({lang}) ...", end="", file=sys.stderr, flush=True)
        ran, compiled = warm(lang, engine, cases)
        if (lang, engine) == ("sase", "optimized"):
            compiled += warm_sase1()
        total += compiled
        summary_line(args, f"{clear}cepkit warm: {engine} ({lang}): {ran} vectors, {compiled} functions compiled "
                           f"in {time.monotonic() - t:.1f} s")
    summary_line(args, f"cepkit warm: {len(engines)} engines, {total} functions compiled in "
                       f"{time.monotonic() - started:.1f} s (cache: {cache_dir()})")
    if args.spark:
        from cepkit.spark_jobs import class_archive  # lazy: only with --spark

        t = time.monotonic()
        summary_line(args, f"cepkit warm: {class_archive.build()} in {time.monotonic() - t:.1f} s")
    return 0
