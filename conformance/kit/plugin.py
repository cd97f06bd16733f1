"""The conformance kit as a pytest plugin: one test per vector, `conformance/cases::<language>::<id>`, run
against the engine the `--kit-*` options name, in a child process (conformance/kit/worker.py). Selection
(-k), -x, progress, JUnit (--junitxml) and parallel runs (pytest-xdist, -n) are pytest's.

    python -m pytest -p cepkit.conformance.kit.plugin --kit-adapter my.py:Engine <the vectors' folder>

(`cepkit conformance` runs exactly this.) A wrong answer is a failure; an engine that breaks the protocol
(crashes, exits, hangs past the timeout, floods its output, writes malformed rows) is an error at setup; a
refusal is a skip whose reason is `refused: <construct>`. The terminal summary counts passed / failed /
refused / errors per language and per construct."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from cepkit.conformance.harness import Case
from cepkit.conformance.kit import summary, vectors
from cepkit.conformance.kit.engine_spec import EngineSpec
from cepkit.conformance.kit.outcome import ERROR, FAILED, REFUSED, SKIPPED, describe
from cepkit.conformance.kit.summary import Tally
from cepkit.conformance.kit.worker import Worker, key_of

WORKER = pytest.StashKey[Worker]()
STARTED = pytest.StashKey[float]()
REFUSED_PREFIX = "refused: "


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cepkit conformance", "the engine and the vectors (docs/conformance.md)")
    group.addoption("--kit-engine", metavar="NAME", help="a registered cepkit engine (default: reference)")
    group.addoption("--kit-adapter", metavar="module:Class", help="a Python adapter (module or path/to/file.py)")
    group.addoption("--kit-command", metavar="CMD", help="an external command run once per vector")
    group.addoption("--kit-language", action="append", metavar="L", help="only this language's vectors (repeatable)")
    group.addoption("--kit-case", action="append", metavar="PATTERN",
                    help="only vectors whose id (or language:id) matches this glob (repeatable)")
    group.addoption("--kit-origin", action="append", metavar="KINDS",
                    help="only vectors of these origins, e.g. trino,sase1 (repeatable; docs/conformance.md)")
    group.addoption("--kit-timeout", type=float, default=60.0, metavar="S",
                    help="seconds one vector may take, enforced from outside the engine (default 60)")
    group.addoption("--kit-strict-types", action="store_true",
                    help="numbers must have the vector's type too (70 is not 70.0)")


def spec_of(config: pytest.Config) -> EngineSpec:
    """The engine the options name."""
    chosen = [(kind, config.getoption(f"--kit-{kind}")) for kind in ("engine", "adapter", "command")]
    chosen = [(kind, value) for kind, value in chosen if value is not None]
    if len(chosen) > 1:
        raise pytest.UsageError("--kit-engine, --kit-adapter and --kit-command exclude each other")
    kind, value = chosen[0] if chosen else ("engine", "reference")
    return EngineSpec(kind, value, config.getoption("--kit-timeout"))


def selected(config: pytest.Config) -> list[Case]:
    """The vectors the options select and the engine runs, in loader order."""
    spec = spec_of(config)
    try:
        _, _, cases = vectors.chosen(spec, config.getoption("--kit-language"), config.getoption("--kit-case"),
                                     config.getoption("--kit-origin"))
    except ValueError as exc:
        raise pytest.UsageError(f"--origin: {exc}") from None
    return [c for c in cases if spec.runs(c)]


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--kit-timeout") <= 0:
        raise pytest.UsageError("--timeout must be a positive number of seconds")
    selected(config)   # a usage error (an unknown origin kind, engine options that exclude each other) at once
    config.stash[STARTED] = time.monotonic()


def pytest_unconfigure(config: pytest.Config) -> None:
    worker = config.stash.get(WORKER, None)
    if worker is not None:
        worker.close()


def worker_of(config: pytest.Config) -> Worker:
    """This process's child running the engine (started on the first vector)."""
    if WORKER not in config.stash:
        config.stash[WORKER] = Worker(spec_of(config), config.getoption("--kit-strict-types"))
    return config.stash[WORKER]


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector):
    if path.resolve() == vectors.cases_dir().resolve():
        return Vectors.from_parent(parent, path=path)
    return None


class Vectors(pytest.Directory):
    """The vectors' folder: one collector per language."""

    def collect(self):
        by_language: dict[str, list[Case]] = {}
        for case in selected(self.config):
            by_language.setdefault(case.kit_language, []).append(case)
        for language, cases in by_language.items():
            yield Language.from_parent(self, name=language, cases=cases)


class Language(pytest.Collector):
    """One language's vectors."""

    def __init__(self, *, cases: list[Case], **kwargs):
        super().__init__(**kwargs)
        self.cases = cases

    def collect(self):
        for case in self.cases:
            yield VectorTest.from_parent(self, name=case.id, case=case)


class VectorTest(pytest.Item):
    """One vector on the engine: the engine answers at setup (an error there is the engine's), the answer is
    judged at the call."""

    def __init__(self, *, case: Case, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        self.verdict = None

    def setup(self) -> None:
        self.user_properties.append(("language", self.case.kit_language))
        self.user_properties.append(("origin", vectors.origin_of(self.case)))
        self.user_properties.append(("constructs", "; ".join(vectors.constructs_of(self.case))))
        self.verdict = worker_of(self.config).verdict(key_of(self.case))
        if self.verdict.status == ERROR:
            pytest.fail(_report(self.case, self.verdict), pytrace=False)
        if self.verdict.status == REFUSED:
            self.user_properties.append(("refused", self.verdict.refused))
            pytest.skip(f"{REFUSED_PREFIX}{self.verdict.refused}")
        if self.verdict.status == SKIPPED:
            pytest.skip(self.verdict.detail)

    def runtest(self) -> None:
        if self.verdict.status == FAILED:
            pytest.fail(_report(self.case, self.verdict), pytrace=False)

    def reportinfo(self):
        return Path(self.case.path or vectors.cases_dir()), None, key_of(self.case)


def _report(case: Case, verdict) -> str:
    """What pytest shows of a failure or error: why, in a line (the short summary's), then the vector in full."""
    why = next((line.strip() for line in verdict.detail.splitlines() if line.strip()), verdict.status)
    return f"{why}\n{describe(case, verdict)}"


def _tally(report: pytest.TestReport, status: str) -> Tally:
    props = dict(report.user_properties)
    constructs = tuple(c for c in props.get("constructs", "").split("; ") if c)
    return Tally(props.get("language", "?"), status, constructs, props.get("refused"), props.get("origin", "?"))


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    """The kit's summary, after pytest's own (the controller's, in a parallel run)."""
    tallies = []
    for category, reports in terminalreporter.stats.items():
        for report in reports:
            if not isinstance(report, pytest.TestReport) or "language" not in dict(report.user_properties):
                continue
            if category == "passed" and report.when == "call":
                tallies.append(_tally(report, "passed"))
            elif category == "failed" and report.when == "call":
                tallies.append(_tally(report, FAILED))
            elif category == "error" and report.when == "setup":
                tallies.append(_tally(report, ERROR))
            elif category == "skipped" and report.when == "setup":
                refused = "refused" in dict(report.user_properties)
                tallies.append(_tally(report, REFUSED if refused else SKIPPED))
    if not tallies:
        return
    seconds = time.monotonic() - config.stash.get(STARTED, time.monotonic())
    terminalreporter.write_sep("=", "cepkit conformance")
    terminalreporter.write_line(summary.summary(tallies, spec_of(config).label, seconds))


def pytest_report_header(config: pytest.Config) -> str:
    return f"cepkit conformance: {spec_of(config).label}; vectors from {vectors.cases_dir()}"
