"""The optimized TPStream engine: columnar situation derivation and the Allen-relation matcher in Numba."""
