"""The optimized engine's program for the SASE 1.0 dialect (docs/semantics.md S1): SASE 1.0's runs,
kept per partition key, stepped in Numba (optimized/sase1/kernel.py)."""
