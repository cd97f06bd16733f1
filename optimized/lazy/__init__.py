"""Numba engines over the pattern model of spec/001: the lazy chain NFA (rarest type first), the tree NFA
(adaptive order per instance) and the eager NFA they are measured against. One plan (plan.py) per query,
kernels compiled once (chain.py, tree.py, eager.py over common.py and negation.py), one Program driving
them (program.py), engines and options in engines.py; codegen=True generates the WHERE clauses per query
(generated.py). Patterns with Kleene closure run kleene.py's chain and eager kernels over rows of variable
length (the tree refuses them).

Numba's on-disk cache (`cache=True`) follows each kernel's own file only: after editing common.py or
negation.py (or kernel.py), delete optimized/lazy/__pycache__ (else chain / tree / eager / kleene keep
the old helpers' code).
"""
