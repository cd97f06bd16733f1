"""Fuzzing of `cepkit run`: generated and mutated queries, event files and options (docs/fuzzing.md)."""
