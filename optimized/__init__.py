"""The optimized SASE+ engine (issue 7): the reference's NFA^b semantics with the per-event loop in Numba.

    from cepkit import compile
    program = compile(text, engine="optimized")                  # one cached kernel, formulas as tables
    program = compile(text, engine="optimized", codegen=True)    # a generated, cached module per query
    matches = program.feed(batch) + program.close()

Modules: bytecode (edge formulas -> postfix tables), values (exact int64 rationals), kernel (the run
loop, shared match buffer, negation, merging of equivalent runs), merging (the merge key of each
state), codegen + cache (generated modules), store (exact columnar events), engine (OptimizedEngine /
OptimizedProgram), measure (events/s against the reference).
"""
