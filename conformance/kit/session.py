"""One kit run: each selected vector the engine runs, answered and judged."""
from __future__ import annotations

import time
import warnings
from typing import Callable

from cepkit.conformance.harness import Case
from cepkit.conformance.kit.answers import Rows
from cepkit.conformance.kit.outcome import Outcome, judge
from cepkit.conformance.kit.vectors import constructs_of
from cepkit.core.errors import CepkitWarning


def run(engine, cases: list[Case], progress: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """The outcome of every case the engine runs (`engine.runs(case)`), in order."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CepkitWarning)
        for case in cases:
            if not engine.runs(case):
                continue
            started = time.perf_counter()
            answer = engine.answer(case)
            status, detail, crashed, refused = judge(case, answer, engine.outside)
            text = answer.text if isinstance(answer, Rows) and status != "passed" else ""
            outcome = Outcome(case, status, detail, crashed, refused, time.perf_counter() - started,
                              constructs_of(case), text)
            out.append(outcome)
            if progress is not None:
                progress(outcome)
    return out
