"""`cepkit conformance`'s progress bar: the vectors run of those collected (with pytest-xdist, of those its
workers collected), the failed and the refused so far, as a pytest plugin the command adds to its run. When
stdout is the same terminal, pytest's own per-vector letters give way to the bar (`quiet_letters`)."""
from __future__ import annotations

import pytest

from cepkit.progress import Bar


def refused(report: pytest.TestReport) -> bool:
    """Whether a skipped vector was refused (not skipped for another reason)."""
    # lazy: pytest imports the kit's plugin itself (-p), which an import before it would keep from rewriting
    from cepkit.conformance.kit.plugin import REFUSED_PREFIX

    return REFUSED_PREFIX in str(report.longrepr)


class VectorsProgress:
    """The bar of a kit run (cepkit/progress.py: only on a terminal, after 2 s)."""

    def __init__(self, bar: Bar, quiet_letters: bool = False):
        self.bar = bar
        self.quiet_letters = quiet_letters
        self.done = self.failed = self.errors = self.refused = 0

    def note(self) -> str:
        return f"{self.failed} failed, {self.errors} errors, {self.refused} refused"

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.items:   # (a parallel run's controller collects none: its workers say how many)
            self.bar.total = len(session.items)   # drawn from the first vector on (pytest writes this line first)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        self.bar.total = len(ids)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and report.when == "call":
            self.failed += 1
        elif report.failed:
            self.errors += 1
        elif report.skipped and refused(report):
            self.refused += 1
        if report.when == "teardown":
            self.done += 1
            self.bar.update(self.done, note=self.note())

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(self, report, config):
        category, letter, word = yield
        if self.quiet_letters and self.bar.enabled and config.get_verbosity() <= 0:
            return category, "", ""   # the bar shows the progress on this terminal
        return category, letter, word

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self.bar.close()   # before pytest's summary
