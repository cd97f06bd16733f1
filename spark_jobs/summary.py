"""What a Spark job did: its counts, plan, engine and where the time went (the job's return value)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    """What a job did."""

    events: int
    matches: int
    plan: str
    engine: str
    groups: int
    match_seconds: float    # the matching stage: read, shuffle, sort, match, write
    total_seconds: float    # including the checks and statistics before it
    recovered: tuple[str, ...] = ()  # what a killed earlier run had left, and what was done with it
    # where the time went, in order: start-up (SparkSession), read (input checks, statistics pass),
    # compile (the engine warmed on a sample in the driver), match (the matching stage), commit
    phases: tuple[tuple[str, float], ...] = ()
    task_compiles: int | None = None  # Numba compilations in the matching stage's tasks (0: no task compiled)

    @property
    def events_per_second(self) -> float:
        return self.events / self.match_seconds if self.match_seconds > 0 else float("inf")
