"""The optimized SASE+ engine (issue 7): the reference's NFA^b semantics with the per-event loop in Numba.

    from cepkit import compile
    program = compile(text, engine="optimized")                  # one cached kernel, formulas as tables
    program = compile(text, engine="optimized", codegen=True)    # a generated, cached module per query
    matches = program.feed(batch) + program.close()

Modules: bytecode (edge formulas -> postfix tables), values (exact int64 rationals), nfab (the NFA^b kernel:
formula tables, run loop, shared match buffer, merging of equivalent runs, run index, OptimizedEngine /
OptimizedProgram), codegen + cache (generated modules), store (exact columnar events), returns (RETURN
payloads in one pass); afa, lazy, sase1, sql, tpstream: the other languages' engines.
"""
