"""The optimized SASE engine: compiles a query to the Numba NFA^b program (optimized/nfab), or to SASE 1.0's
runs (optimized/sase1) for the SASE 1.0 dialect."""
from __future__ import annotations

import os

from cepkit.core.contract import Engine
from cepkit.core.errors import Unsupported
from cepkit.optimized.bytecode import ENGINE
from cepkit.optimized.nfab.program import OptimizedProgram
from cepkit.optimized.sase1.program import Sase1OptimizedProgram
from cepkit.front.language import ast as A
from cepkit.front.nfab.compile import compile_nfab, is_nfab_query


class OptimizedEngine(Engine):
    """Compiles SASE+ sequence queries to Numba-driven NFA^b programs."""

    name = ENGINE
    language = "sase"
    counts_state = True  # runs (merged runs count once) and held matches, checked by the kernel per event

    def build(self, q: A.Query, selection: str = "all",
                codegen: bool | None = None, share_buffer: bool = True, merge: bool = True,
                batch_returns: bool = True, columnar: bool = True, index: bool = True) -> OptimizedProgram:
        """A program for the query. codegen=True generates and compiles a Numba module for this query
        (seconds the first time, cached on disk after); otherwise one shared kernel reads the formulas
        from tables (no compilation per query). The default is $CEPKIT_CODEGEN=1 (generate) or tables.
        share_buffer=False gives every run a private copy of its bindings (spec/000 §5.1 switched off),
        to measure what the shared buffer saves. merge (default True, as measured: docs/performance.md)
        merges equivalent runs (spec/000 §6) where that is exact (not with negation, non-overlap output or
        share_buffer=False: `merge_refusal` says why, and the program runs unmerged); the matches are the
        same either way, the work counters are not. batch_returns=False evaluates RETURN per match with the
        reference evaluator instead of one Numba pass per batch (optimized/returns.py), to measure the pass.
        columnar=False builds a Match object per match (the old path), to measure the match table built from
        arrays (benchmarks/match_table_throughput.py). index=False lets every event visit every live run
        instead of its partition key's runs only (optimized/nfab/runindex.py), to measure the index
        (benchmarks/partition_keys.py); the matches are the same, the predicate counter is not."""
        if codegen is None:
            codegen = os.environ.get("CEPKIT_CODEGEN", "") not in ("", "0")
        if q.dialect == "sase1":  # SASE 1.0's runs (optimized/sase1); the options above are SASE+ measurements
            return Sase1OptimizedProgram(compile_nfab(q), selection=selection)
        if not is_nfab_query(q):
            kind = {"rfid": "the SASE RFID dialect"}.get(
                q.dialect, "AND / OR / nested patterns and ANY")
            raise Unsupported(ENGINE, kind, q.pos.line or None, q.pos.column or None)
        return OptimizedProgram(compile_nfab(q), selection=selection, codegen=codegen, share_buffer=share_buffer,
                                merge=merge, batch_returns=batch_returns, columnar=columnar, index=index)
