"""What every asv benchmark of this folder shares: finding the subject in the commit asv installed, warm
programs, inputs, and timing for the rates (docs/performance.md "Performance over time").

asv runs this suite (the working tree's) against each commit it builds, from the first commit of main on. Those
commits differ: the first ones install top-level packages (`reference`, `optimized`, ...) beside `cepkit`, the
languages and engines arrived one by one, and the registry moved (reference/registry.py, core/registry.py,
cepkit/core/registry.py). So a benchmark never imports cepkit at module level: its `setup` asks `program()`
for its subject, which raises NotImplementedError where the installed commit lacks the language, the engine,
an option or a construct (asv then records the benchmark as skipped for that commit, not failed). Any other
error is a real failure and is recorded as one.

The input generators are the working tree's (benchmarks/workloads, benchmarks/afa_disorder.py, ...), loaded
by file (source()): they use NumPy and pandas only, never cepkit, so the same events reach every commit. The
working tree itself is never on sys.path, so `import cepkit` finds the commit asv installed.

Nothing here is named time_*, track_*, peakmem_* or mem_*: asv collects only the bench_*.py classes.
"""
from __future__ import annotations

import abc
import importlib
import os
import sys
import time
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]   # the working tree: the input generators and examples/ come from here
# ROOT is never put on sys.path: `import cepkit` must find the commit asv installed, not the working tree's
# cepkit/ (a benchmark that imported the working tree would measure the same code at every commit). The
# generators are loaded by path instead (source()).


def source(relative: str):
    """A module of the working tree loaded from its file (benchmarks/workloads/stock.py, ...) under a private
    name: the input generators use NumPy and pandas only, so every commit gets the same events."""
    name = "cepkit_asv_source." + relative.removesuffix(".py").replace("/", ".")
    if name not in sys.modules:
        import importlib.util

        spec = importlib.util.spec_from_file_location(name, ROOT / relative)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


# An error raised while compiling means "not in this commit" when it says one of these (the registry's
# "unknown engine 'x'", "unknown query language", an option an engine does not take yet, ...).
ABSENT_WORDS = ("unknown engine", "unknown query language", "unknown language", "no engine", "not registered",
                "has no option", "unexpected keyword", "unknown dialect", "does not run", "got an unexpected",
                "cannot run")   # the registry's "engine 'optimized' cannot run AFA queries" before that engine
QUICK = os.environ.get("CEPKIT_ASV_QUICK") == "1"   # the CI smoke run (tests/benchmarks/test_asv_suite.py)
# The clock of the timed part: wall time (asv's default), or with CEPKIT_ASV_TIMER=cpu the benchmark process's
# CPU time (time.process_time), which the gate uses (scripts/asv_gate.py): what a change to cepkit moves, and
# what other jobs on a shared machine disturb least (they take cores, not this process's instructions).
TIMER = time.process_time if os.environ.get("CEPKIT_ASV_TIMER") == "cpu" else time.perf_counter


def size(n: int) -> int:
    """n events, or a hundredth of it (at least 1,000) in the CI smoke run."""
    return max(1_000, n // 100) if QUICK else n


def _absent(exc: BaseException) -> bool:
    if isinstance(exc, (ImportError, AttributeError, NotImplementedError)):
        return True
    if type(exc).__name__ in ("Unsupported", "MissingExtra"):
        return True
    text = str(exc).lower()
    return any(word in text for word in ABSENT_WORDS)


def cepkit():
    try:
        return importlib.import_module("cepkit")
    except ImportError as exc:   # pragma: no cover (every commit has it; a broken install is still absent)
        raise NotImplementedError(f"cepkit is not importable: {exc}") from exc


def compile_program(text, language: str, engine: str, **options):
    """The installed commit's program for the query, or NotImplementedError where the commit lacks the
    language, the engine, an option or a construct the query uses."""
    ck = cepkit()
    kwargs = dict(options, engine=engine)
    if language != "sase":   # the first commits take no language= for SASE+ either way
        kwargs["language"] = language
    try:
        return ck.compile(text, **kwargs)
    except Exception as exc:
        if _absent(exc):
            raise NotImplementedError(f"{language}/{engine} not in this commit: {type(exc).__name__}: {exc}") from exc
        raise


def _registry():
    for name in ("cepkit.core.registry", "core.registry", "reference.registry"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "read_input"):
            return module
    return None


def events(frame, language: str, engine: str, program=None):
    """What the engine's programs feed on, from a pandas DataFrame (or an Arrow table): the registry's reader
    where the commit has one, else the first commits' cepkit.api.to_batch."""
    registry = _registry()
    if registry is not None:
        import inspect

        extra = {}
        query = getattr(program, "q", None) or getattr(program, "query", None)
        if query is not None and "query" in inspect.signature(registry.read_input).parameters:
            extra["query"] = query
        try:
            return registry.read_input(language, engine, frame, **extra)
        except Exception as exc:
            if _absent(exc):
                raise NotImplementedError(f"no reader for {language}/{engine}: {exc}") from exc
            raise
    if language != "sase":
        raise NotImplementedError(f"no reader for {language} in this commit")
    try:
        from cepkit.api import to_batch
    except ImportError as exc:
        raise NotImplementedError(f"no event reader: {exc}") from exc
    return to_batch(frame)


def best_seconds(fn, repeat: int = 3) -> float:
    """The fastest of `repeat` calls of fn() (the machine is shared: the least disturbed run)."""
    times = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


_BATCHES: dict = {}


class Subject(abc.ABC):
    """One engine on one query over one input: `setup` compiles it (a fresh program for every timed sample:
    asv calls setup before each sample since `number = 1`), warms it on a prefix of the input (the compiled
    kernels load from cepkit's on-disk cache, `cepkit warm`), and the timed part is `program.run(batch)` only.

    Subclasses set `language`, and `case(*params)` -> (query text, engine, pandas frame, compile options).
    Abstract (asv collects concrete classes only), so the bench_*.py that import it do not list it."""

    language = "sase"
    number = 1
    repeat = (3, 6, 8.0)       # (min, max, max seconds) samples: bounded time per benchmark
    warmup_time = 0.0
    rounds = 1
    timeout = 300
    warm_rows = 2_000
    timer = staticmethod(TIMER)

    @abc.abstractmethod
    def case(self, *params):
        """(query text, engine, pandas frame, compile options) of the benchmark's parameters."""

    def setup(self, *params):
        text, engine, frame, options = self.case(*params)
        self._make = lambda: compile_program(text, self.language, engine, **options)
        program = self._make()
        key = (type(self).__name__, params)
        if key not in _BATCHES:   # once per process; asv redoes setup before every sample
            _BATCHES.clear()
            _BATCHES[key] = events(frame, self.language, engine, program)
            if self.warm_rows and len(frame) > self.warm_rows:   # kernels loaded (or compiled, cold cache) here
                warm = self._make()
                warm.run(events(frame.iloc[: self.warm_rows], self.language, engine, warm))
        self.batch = _BATCHES[key]
        self.program = program
        self.rows = len(frame)

    def time_run(self, *params):
        self.program.run(self.batch)

    def track_events_per_s(self, *params):
        """Events (rows) per second of a warm run, the best of 3 (compiling outside the clock)."""
        programs = [self._make() for _ in range(3)]
        seconds = min(best_seconds(lambda p=p: p.run(self.batch), 1) for p in programs)
        return self.rows / seconds

    track_events_per_s.unit = "events/s"


@lru_cache(maxsize=8)
def stock(n: int, symbols: int = 2, volume_max: int = 1000, seed: int = 1):
    return source("benchmarks/workloads/stock.py").generate(n, symbols=symbols, seed=seed, volume_max=volume_max)


@lru_cache(maxsize=4)
def skewed(n: int, common: int = 100):
    return source("benchmarks/workloads/skewed.py").generate(n, common=common)


def example(*parts: str) -> str:
    return ROOT.joinpath("examples", *parts).read_text(encoding="utf-8")


def cepkit_script() -> Path:
    """The `cepkit` command of the environment asv runs in."""
    script = Path(sys.executable).parent / "cepkit"
    if not script.exists():
        raise NotImplementedError("no cepkit command in this commit")
    return script
