"""pytest hooks for benchmarks/test_bench_engines.py (this directory is not collected by `make test`)."""
from __future__ import annotations


def pytest_terminal_summary(terminalreporter):
    from benchmarks.ratio_table import render
    from benchmarks.test_bench_engines import TABLE

    if TABLE:
        terminalreporter.write_sep("-", "reference vs optimized (events/s ratio)")
        terminalreporter.write_line(render(TABLE))
