"""The thesis' all-matches semantics (spec/004 §2.7) over the Glushkov automaton of the row pattern.

The automaton is read off the pattern's program (front/sql/program.py, the one compilation of a
PATTERN): positions are its `match` instructions, i.e. the variable occurrences of the pattern (bounded
quantifiers unrolled, PERMUTE expanded). A run is a partial match: its last position, its rows and their
labels. Strategies:
- contiguous: a run takes the next row of the partition or dies (Def 2.17, all matches, fork on choice);
- skip_till_any: a run may take any later row whose predicate holds, and also skip it (Def 2.15);
- skip_till_next: per start row one deterministic run (A15 [R]): take the first later row that enables
  a transition, preferring a forward transition over a self-loop, then the leftmost position; rows that
  enable nothing are ignored; stop at the first accepting position.
A match is reported each time a run reaches an accepting position; identical (rows, labels) are reported
once. WITHIN (inclusive) bounds last key - first key.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Sequence

from cepkit.front.sql import ast as S
from cepkit.reference.sql.exprs import Ctx, holds
from cepkit.front.sql.program import Glushkov, Program, compile_pattern
from cepkit.front.sql.program import glushkov as program_glushkov
from cepkit.reference.sql.vm import most_common

__all__ = ["AllMatches", "Glushkov", "Run", "glushkov"]


def glushkov(p: S.Pattern | Program) -> Glushkov:
    """The Glushkov automaton of a pattern (compiled here) or of its program."""
    return program_glushkov(p if isinstance(p, Program) else compile_pattern(p))


@dataclass(frozen=True)
class Run:
    pos: int                   # Glushkov position of the last row taken
    rows: tuple[int, ...]
    labels: tuple[str, ...]


class AllMatches:
    def __init__(self, pattern: S.Pattern | Program, define: Mapping[str, object],
                 subsets: Mapping[str, tuple[str, ...]], strategy: str,
                 within: Callable[[int, int], bool] | None = None, null_logic: str = "three_valued"):
        self.g = glushkov(pattern)
        self.null_logic = null_logic  # the query's (conventions), read once
        self.define = define
        self.subsets = subsets
        self.strategy = strategy
        self.within = within
        # state(live, variable): told the live runs plus the matches held after each row (Budget.check_state)
        self.state: Callable[[int, Callable[[], str]], None] | None = None
        # the matches wanted (--limit; None: all): the forking strategies stop after the row that brings them,
        # as every match found later ends at a later row and sorts after them
        self.want: int | None = None
        self._held = 0

    def _ok(self, rows: Sequence[Mapping], run: Run | None, q: int, r: int) -> bool:
        if run is not None and self.within is not None and not self.within(run.rows[0], r):
            return False
        cond = self.define.get(self.g.labels[q])
        if cond is None:
            return True
        positions = (run.rows if run else ()) + (r,)
        labels = (run.labels if run else ()) + (self.g.labels[q],)
        return holds(cond, Ctx(rows, positions, labels, len(positions) - 1, self.subsets, null_logic=self.null_logic))

    def _take(self, run: Run | None, q: int, r: int) -> Run:
        if run is None:
            return Run(q, (r,), (self.g.labels[q],))
        return Run(q, run.rows + (r,), run.labels + (self.g.labels[q],))

    def matches(self, rows: Sequence[Mapping]) -> Iterator[tuple[tuple[int, ...], tuple[str, ...]]]:
        """(rows, labels) of every match, in order of (last row, first row, rows, labels)."""
        seen: set = set()
        found: list = []
        if self.strategy == "skip_till_next":
            gen = self._next(rows)
        else:
            gen = self._forking(rows)
        for run in gen:
            key = (run.rows, run.labels)
            if key not in seen:
                seen.add(key)
                found.append(key)
                self._held = len(found)
        found.sort(key=lambda m: (m[0][-1], m[0][0], m[0], m[1]))
        return iter(found)

    def _forking(self, rows: Sequence[Mapping]) -> Iterator[Run]:
        g = self.g
        active: list[Run] = []
        for r in range(len(rows)):
            new: list[Run] = []
            for run in active:
                for q in sorted(g.follow[run.pos]):
                    if self._ok(rows, run, q, r):
                        new.append(self._take(run, q, r))
            for q in sorted(g.first):
                if self._ok(rows, None, q, r):
                    new.append(self._take(None, q, r))
            for run in new:
                if run.pos in g.last:
                    yield run
            if self.want is not None and self._held >= self.want:
                return
            if self.strategy == "contiguous":
                active = new
            else:
                keep = [run for run in active if self.within is None or self.within(run.rows[0], r)]
                active = keep + new
            if self.state is not None:
                self.state(len(active) + self._held, lambda: most_common([g.labels[run.pos] for run in active]))

    def _next(self, rows: Sequence[Mapping]) -> Iterator[Run]:
        g = self.g
        for s in range(len(rows)):
            starts = [q for q in sorted(g.first) if self._ok(rows, None, q, s)]
            if not starts:
                continue
            run = self._take(None, starts[0], s)
            r = s + 1
            while run.pos not in g.last and r < len(rows):
                if self.within is not None and not self.within(s, r):
                    break
                cands = [q for q in sorted(g.follow[run.pos]) if self._ok(rows, run, q, r)]
                if cands:
                    forward = [q for q in cands if q != run.pos]
                    run = self._take(run, (forward or cands)[0], r)
                r += 1
            if run.pos in g.last:
                yield run
