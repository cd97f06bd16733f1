"""The match at every start row of a MATCH_RECOGNIZE table (SQL mode, one partition), and a walk over them.

An engine's `close_starts(choose)` computes `Starts` (what its matcher finds at each row, as under AFTER MATCH
SKIP TO NEXT ROW, and where the query's AFTER MATCH SKIP would resume after it), lets `choose` pick a `Walk`
(which of those matches are output, with which MATCH_NUMBER(), and which rows are output as unmatched rows),
and outputs exactly those, as its `close()` outputs the matches its own walk picks. The Spark job's time slices
(docs/spark.md "MATCH_RECOGNIZE by time slices") pick them slice by slice. Positions are row indices in the
query's order (ORDER BY, ties in the order the rows were fed).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from cepkit.front.sql import ast as S
from cepkit.front.sql.table import skip_target

SKIP_NO_ROW, SKIP_LOOP = -1, -2   # targets of AFTER MATCH SKIP TO FIRST / LAST v that are errors (M6)


@dataclass(frozen=True)
class Starts:
    """The match at every row where one starts, in row order."""

    ids: np.ndarray      # the rows' ids, in the query's order
    start: np.ndarray    # int64, ascending: the match's first row (one match per row at most)
    end: np.ndarray      # one past its last row (== start: an empty match)
    target: np.ndarray   # the row AFTER MATCH SKIP resumes at (> start), or SKIP_NO_ROW / SKIP_LOOP

    def __len__(self) -> int:
        return len(self.start)


@dataclass(frozen=True)
class Walk:
    """What is output: matches (indices into Starts, ascending), their MATCH_NUMBER(), and the rows output
    as unmatched rows (ALL ROWS PER MATCH WITH UNMATCHED ROWS), ascending."""

    matches: np.ndarray
    numbers: np.ndarray
    unmatched: np.ndarray

    @classmethod
    def none(cls) -> "Walk":
        empty = np.zeros(0, np.int64)
        return cls(empty, empty, empty)

    def order(self, starts: Starts) -> tuple[np.ndarray, np.ndarray]:
        """The output order: (is a match, index into matches / unmatched) by row."""
        rows = np.concatenate([starts.start[self.matches], self.unmatched])
        kind = np.concatenate([np.ones(len(self.matches), np.bool_), np.zeros(len(self.unmatched), np.bool_)])
        index = np.concatenate([np.arange(len(self.matches)), np.arange(len(self.unmatched))])
        at = np.argsort(rows, kind="stable")
        return kind[at], index[at]


def target_of(q: S.MatchRecognize, start: int, end: int, labels: Sequence[str]) -> int:
    """Where AFTER MATCH SKIP resumes after a match (an empty one: the next row), or an error code."""
    if end == start:
        return start + 1
    skip = q.skip
    if skip.mode in ("past_last", "next_row"):
        return skip_target(q, start, end, labels, q.subset_map)
    names = q.subset_map.get(skip.var, (skip.var,))
    hits = [start + j for j, lab in enumerate(labels) if lab in names]
    if not hits:
        return SKIP_NO_ROW
    target = hits[0] if skip.mode == "first" else hits[-1]
    return SKIP_LOOP if target == start else target


def raise_skip(q: S.MatchRecognize, code: int) -> None:
    """The QueryError the engines raise when their walk reaches a match whose target is `code`."""
    var = q.subset_map.get(q.skip.var, (q.skip.var,))[0]
    if code == SKIP_NO_ROW:
        skip_target(q, 0, 1, ("",), {})
    skip_target(q, 0, 1, (var,), q.subset_map)
    raise AssertionError(f"no skip error for target {code}")
