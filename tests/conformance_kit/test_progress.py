"""`cepkit conformance`'s progress bar (conformance/kit/progress.py, issue 34): on a terminal, the vectors run of
those selected, the rate, the time left, the failed / errors / refused so far, on stderr; pytest's report on
stdout is what it is without a terminal; none on a pipe, none with -q."""
from __future__ import annotations

import re

import pytest

from tests.terminal import cepkit, frames

KIT = ["conformance", "--language", "sase", "--case", "CC*"]
BAR = re.compile(r"cepkit conformance \(reference\): +100%\|[^|]*\| (\d+)/(\d+) \[\d\d:\d\d<00:00, +[\d.]+ "
                 r"vectors/s, 0 failed, 0 errors, 0 refused\]")


def timeless(report: bytes) -> str:
    """pytest's report without its timings."""
    return re.sub(r"\d+\.\d+ ?s", "T s", report.decode())


@pytest.fixture(scope="module")
def runs() -> dict[str, tuple[int, bytes, str]]:
    """The same kit run with stderr on a terminal and on a pipe."""
    return {where: cepkit(KIT, terminal=where == "terminal") for where in ("terminal", "pipe")}


def test_on_a_terminal_the_bar_counts_the_vectors_run(runs):
    (code, out, err), piped_out = runs["terminal"], runs["pipe"][1]
    assert code == 0, err
    last = BAR.search(frames(err, "cepkit conformance")[-1])
    assert last and last[1] == last[2] and int(last[1]) > 10, err
    assert timeless(out) == timeless(piped_out)   # stdout: pytest's report, the same as without a terminal


def test_no_bar_on_a_pipe_nor_with_quiet(runs):
    code, _, err = runs["pipe"]
    assert code == 0 and "\r" not in err and "vectors/s" not in err
    code, _, err = cepkit(KIT + ["-q"], terminal=True)
    assert code == 0 and "vectors/s" not in err, err
