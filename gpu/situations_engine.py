"""The gpu TPStream engine: situations derived in OpenCL (gpu/situations.py), matched by the reference's
exact matcher, through run_query's `derived=` hook. Exact mode only: its registry entry does not declare
"early output", so `compile(..., mode="early")` is refused by name at compile time."""
from __future__ import annotations

from cepkit.core.contract import Engine
from cepkit.core.errors import Unsupported
from cepkit.reference.tpstream.engine import TPStreamProgram
from cepkit.front.tpstream.query import TPQuery
from cepkit.gpu.situations import CHUNK, device_derivation


class GpuTPStreamEngine(Engine):
    name = "gpu"
    language = "tpstream"

    def build(self, query: TPQuery, mode: str = "exact", device: str | None = None, chunk: int | None = None):

        if mode != "exact":
            raise Unsupported(self.name, "early output")
        program = TPStreamProgram(query, "exact", "matcher",
                                  derived=device_derivation(device, chunk if chunk is not None else CHUNK,
                                                            query.conventions))
        program.engine_name = self.name
        return program
