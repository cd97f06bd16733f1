"""MATCH_RECOGNIZE ALL MATCHES on the engine contract, matching on an OpenCL device (gpu/pattern_run.py).

The program is the reference's (cepkit.reference.sql.engine.SqlProgram: rows buffered, the table computed at
close, the same match table); only the matching of each partition runs on the device. The constructs the
kernel runs are declared in core/registry.py (GPU_SQL); gpu/pattern_plan.py refuses finer things
(PREV of an expression) at compile time, by name.
"""
from __future__ import annotations

from typing import Any

from cepkit.core.contract import Engine
from cepkit.front.sql import ast as S
from cepkit.reference.sql.engine import SqlProgram
from cepkit.core.errors import QueryError
from cepkit.gpu.pattern import LAUNCH, LAUNCHES
from cepkit.gpu.pattern_plan import plan
from cepkit.gpu.pattern_run import run_rows


class GpuSqlProgram(SqlProgram):
    engine_name = "gpu"


class GpuSqlEngine(Engine):
    """Options: device (as for --device: P:D, P, or part of a name), launch ("batch" or "event")."""

    name = "gpu"
    language = "sql"

    def build(self, q: S.MatchRecognize, device: str | None = None, launch: str | None = None,
              **_options: Any) -> GpuSqlProgram:

        plan(q)  # Unsupported (by construct, with position) now rather than at close
        launch = launch or LAUNCH
        if launch not in LAUNCHES:
            raise QueryError(f"launch must be one of {', '.join(LAUNCHES)}, not {launch!r}", expected=list(LAUNCHES))
        return GpuSqlProgram(q, lambda q, columns, rows, ts_unit, state, limit: run_rows(
            q, columns, rows, ts_unit, device, launch=launch, state=state, limit=limit))
