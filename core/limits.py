"""The default bounds of a run, importable without the engine contract (the command line's help names them)."""

DEFAULT_MAX_STATE = 1_000_000  # live runs; docs/semantics.md "Limits" has the measurement behind it
