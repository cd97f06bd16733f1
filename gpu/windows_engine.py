"""The windowed operators on an OpenCL device, on the engine contract: the program, input and match table
are the reference's (reference/windows/engine.py); the filter, the window aggregates and the join pairs
are computed by cepkit.gpu.filter, cepkit.gpu.aggregate and cepkit.gpu.join (the same rows as the reference)."""
from __future__ import annotations

from typing import Any

from cepkit.core.contract import Engine
from cepkit.reference.windows.engine import WindowProgram
from cepkit.front.windows.query import WindowQuery
from cepkit.gpu.aggregate import aggregate_rows
from cepkit.gpu.filter import filter_rows
from cepkit.gpu.join import join_rows_gpu


class GpuWindowProgram(WindowProgram):
    engine_name = "gpu"

    def __init__(self, q: WindowQuery, device: str | None = None):
        super().__init__(q)
        self.device = device

    def filter_rows(self, batch):

        return filter_rows(batch, self.q.condition, self.device)

    def aggregate_rows(self, batch):

        return [r.as_dict() for r in aggregate_rows(batch, self.q.attr, self.q.window, self.q.funcs,
                                                     self.q.skip_empty, self.device)]

    def join_rows(self, left, right):

        return join_rows_gpu(left, right, self.q.condition, self.q.window, self.q.right_window, self.q.active,
                             self.device)


class GpuWindowEngine(Engine):
    """Option device (as for --device: P:D, P, or part of a name)."""

    name = "gpu"
    language = "window"

    def build(self, q: WindowQuery, device: str | None = None, method: str | None = None,
              **_options: Any) -> GpuWindowProgram:
        return GpuWindowProgram(q, device)
