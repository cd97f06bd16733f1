"""The default bounds of a run, importable without the engine contract (the command line's help names them)."""

DEFAULT_MAX_STATE = 1_000_000  # live runs; docs/semantics.md "Limits" has the measurement behind it
# events the matches held before output (one feed's) may bind per unit of max_state: 64 M at the default, about
# 1.5 GB as the engines' position and id arrays; benchmarks/optimized_measure.py q3 over 10^6 events binds 54 M (L6c)
HELD_EVENTS = 64
