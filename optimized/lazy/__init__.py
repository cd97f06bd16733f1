"""Numba engines over the pattern model of spec/001: the lazy chain NFA (rarest type first), the tree NFA
(adaptive order per instance) and the eager NFA they are measured against. One plan (plan.py) per query,
kernels compiled once (chain.py, tree.py, eager.py over common.py), one Program driving them (program.py).
"""
