"""The lockstep thread runner of a row pattern program (front/sql/program.py): SQL mode's matcher.

From a start row, threads advance together one row at a time (Pike VM, as Trino's Matcher). The threads
waiting at `match` or `done` instructions are kept in preference order. At each row every waiting thread,
most preferred first, tries its `match`: if the DEFINE condition of its variable holds (RUNNING semantics
over the thread's match so far, via cepkit.reference.sql.exprs), the thread moves past it and follows the
non-consuming instructions (split, jump, ...) with an explicit stack, preferred branch first, to its next
`match` or `done`. A thread that reaches `done` is a match; it replaces the one found before (every
thread still running was preferred to that one) and every thread less preferred than it is dropped. The
run ends when no thread is left; the last match found is the preferred one.

Deduplication: at one row, a thread is dropped when a more preferred thread has already been at the same
instruction in the same state, since both have the same futures. The state is
- the loops whose current iteration has consumed no row yet (`iteration` ... `exit-if-empty`; always empty
  once a row has been consumed), and
- the part of the match so far that the DEFINE conditions can read (`history_reads`): nothing when they
  use only the current row, physical navigation (PREV/NEXT) and universal FIRST/LAST/aggregates (these
  depend only on the start row and the row, which every thread shares); otherwise, per variable or SUBSET
  that a condition qualifies, the match indices of its first k rows (FIRST(v.c, k-1)), of its last k rows
  (v.c, PREV/NEXT(v.c): k = 1; LAST(v.c, k-1)) or of all of its rows (an aggregate over v); and the whole
  label sequence when a condition uses CLASSIFIER.
Without history the work per row is at most (program size x the loops a body can nest in), so a run is
linear in rows x program size. `steps` counts thread-instruction steps.

Failed starts: SQL mode tries the start rows of a partition one after another. When the DEFINE conditions
read neither the match so far nor its start (no history, no FIRST/LAST, no aggregates) and there is no
WITHIN, a thread's future depends only on its instruction, marks and row; so every state visited by a run
that found no match is dead, and later runs over the same rows drop a thread that reaches one. A partition
in which no start row matches then costs rows x program size in all, not rows squared.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Callable, Iterator, Mapping

from cepkit.front.sql import ast as S
from cepkit.reference.sql.exprs import Ctx, holds
from cepkit.front.sql.program import (AT_END, AT_START, DONE, EXIT_IF_EMPTY, ITERATION, JUMP, MATCH, SPLIT,
                                          Program)
Result = tuple[int, tuple[str, ...], tuple[bool, ...]]
NO_MARKS: frozenset[int] = frozenset()
FULL = "full"


class _Labels(Sequence):
    """The labels of a thread's match so far (a linked list), made a tuple only when a condition reads one."""

    __slots__ = ("cell", "_t")

    def __init__(self, cell):
        self.cell = cell
        self._t = None

    def _tuple(self) -> tuple:
        if self._t is None:
            self._t = tuple(lab for lab, _ in _unlink(self.cell))
        return self._t

    def __len__(self) -> int:
        return 0 if self.cell is None else self.cell[3]

    def __getitem__(self, j):
        return self._tuple()[j]


def _unlink(cell) -> list[tuple[str, bool]]:
    out = []
    while cell is not None:
        out.append((cell[0], cell[1]))
        cell = cell[2]
    out.reverse()
    return out


def _var_of(e) -> str | None:
    for n in e.walk():
        if isinstance(n, (S.ColRef, S.Classifier)) and n.var is not None:
            return n.var
    return None


def history_reads(define: Mapping[str, object], subsets: Mapping[str, tuple[str, ...]]):
    """None when no DEFINE condition reads the match's labels; FULL when one uses CLASSIFIER; otherwise a
    tuple of (variables of a name, first k, last k, all rows) for each qualified name the conditions read."""
    need: dict[str, list] = {}

    def spec(var: str) -> list:
        return need.setdefault(var, [0, 0, False])

    for cond in define.values():
        for n in cond.walk():
            if isinstance(n, S.Classifier):
                return FULL
            if isinstance(n, S.ColRef) and n.var is not None:
                s = spec(n.var)
                s[1] = max(s[1], 1)
            elif isinstance(n, S.Nav) and n.kind in ("first", "last"):
                var = _var_of(n.arg)
                if var is not None:
                    s = spec(var)
                    k = 0 if n.kind == "first" else 1
                    s[k] = max(s[k], n.offset + 1)
            elif isinstance(n, S.SqlAgg):
                var = n.var if n.arg is None else _var_of(n.arg)
                if var is not None:
                    spec(var)[2] = True
    if not need:
        return None
    return tuple((frozenset(subsets.get(v, (v,))), f, l, a) for v, (f, l, a) in sorted(need.items()))


def _start_dependent(define: Mapping[str, object]) -> bool:
    """True when a DEFINE condition can depend on the match's start row (FIRST/LAST, aggregates) or on its
    number (MATCH_NUMBER(), which changes after each match)."""
    return any(isinstance(n, (S.SqlAgg, S.MatchNumber))
               or (isinstance(n, S.Nav) and n.kind in ("first", "last"))
               for cond in define.values() for n in cond.walk())


def most_common(labels: list) -> str:
    """The label most threads wait at (the variable a state bound names)."""
    counts: dict = {}
    for lab in labels:
        counts[lab] = counts.get(lab, 0) + 1
    return max(counts, key=counts.get) if counts else "?"


class VM:
    def __init__(self, program: Program, define: Mapping[str, object], subsets: Mapping[str, tuple[str, ...]],
                 within: Callable[[int, int], bool] | None = None, null_logic: str = "three_valued"):
        self.program = program
        self.null_logic = null_logic  # the query's (conventions), read once
        self.kinds = [ins.kind for ins in program.instructions]
        self.define = define
        self.subsets = subsets
        self.within = within  # within(start_row, row) -> row may still belong to a match from start_row
        self.reads = history_reads(define, subsets)
        self.steps = 0
        self.memo = within is None and self.reads is None and not _start_dependent(define)
        self._dead_rows = None
        self._dead: dict[int, set] = {}      # row -> states from which no match can be completed
        # state(live, variable): told the live threads after each row (contract.Budget.check_state)
        self.state: Callable[[int, Callable[[], str]], None] | None = None

    # ------------------------------------------------------------------ history view (the dedup state)
    def _view0(self):
        if self.reads is None:
            return None
        if self.reads == FULL:
            return 0
        return tuple(((), ()) if not a else () for _, _, _, a in self.reads)

    def _view(self, view, label: str, j: int, interned: dict):
        if self.reads is None:
            return None
        if self.reads == FULL:   # hash-consed label sequence: equal sequences have equal ids
            return interned.setdefault((view, label), len(interned) + 1)
        out = []
        for (names, f, l, a), v in zip(self.reads, view):
            if label not in names:
                out.append(v)
            elif a:
                out.append(v + (j,))
            else:
                first, last = v
                out.append((first + (j,) if len(first) < f else first, (last + (j,))[-l:] if l else ()))
        return tuple(out)

    # ------------------------------------------------------------------ running
    def first(self, rows: Sequence[Mapping], start: int, number: int | None = None) -> Result | None:
        """The preferred match from partition row `start` (end row exclusive, labels, excluded flags);
        `number` is the MATCH_NUMBER() the match would take (DEFINE may read it)."""
        best = None
        for found in self._run(rows, start, True, number):
            best = found
        if best is None:
            return None
        end, cell = best
        pairs = _unlink(cell)
        return end, tuple(lab for lab, _ in pairs), tuple(x for _, x in pairs)

    def all_matches(self, rows: Sequence[Mapping], start: int) -> Iterator[Result]:
        """Every match from `start` (one per path through the program, so possibly repeated), without
        deduplication or cut-off: exponential, for tests."""
        for end, cell in self._run(rows, start, False):
            pairs = _unlink(cell)
            yield end, tuple(lab for lab, _ in pairs), tuple(x for _, x in pairs)

    def _run(self, rows, start: int, dedup: bool, number: int | None = None):
        """Yields (end, labels cell) for each match found; with dedup each is preferred to the one before."""
        prog, kinds, n = self.program.instructions, self.kinds, len(rows)
        within, define, subsets = self.within, self.define, self.subsets
        interned: dict = {}
        clist: list = []
        memo = dedup and self.memo
        if memo and self._dead_rows is not rows:
            self._dead_rows, self._dead = rows, {}
        dead = self._dead if memo else {}
        visited: dict[int, set] = {}
        found = False
        seen = set() if dedup else None
        visited[start] = seen
        self._add(clist, seen, 0, None, self._view0(), start, n, dead.get(start))
        i = start
        while clist:
            nlist: list = []
            seen = set() if dedup else None
            visited[i + 1] = seen
            dead_next = dead.get(i + 1)
            for pc, cell, view in clist:
                if kinds[pc] == DONE:
                    found = True
                    yield i, cell
                    if dedup:
                        break               # the threads after this one are less preferred
                    continue
                self.steps += 1
                if i >= n or (within is not None and not within(start, i)):
                    continue
                ins = prog[pc]
                cell2 = (ins.label, ins.excluded, cell, i - start + 1)
                cond = define.get(ins.label)
                if cond is None or holds(cond, Ctx(rows, range(start, i + 1), _Labels(cell2), i - start,
                                                   subsets, number, null_logic=self.null_logic)):
                    view2 = self._view(view, ins.label, i - start, interned)
                    self._add(nlist, seen, pc + 1, cell2, view2, i + 1, n, dead_next)
            clist = nlist
            if self.state is not None:
                self.state(len(clist), lambda threads=clist: most_common([prog[pc].label for pc, _, _ in threads
                                                                            if kinds[pc] != DONE]))
            i += 1
        if memo and not found:
            for row, states in visited.items():
                dead.setdefault(row, set()).update(states)

    def _add(self, out: list, seen: set | None, pc: int, cell, view, i: int, n: int,
             dead: set | None = None) -> None:
        """Follow the non-consuming instructions from pc at row i, preferred branch first, appending the
        threads that stop at `match` or `done` to out; states in `seen` or `dead` are dropped."""
        prog, kinds = self.program.instructions, self.kinds
        stack = [(pc, NO_MARKS)]
        while stack:
            pc, marks = stack.pop()
            if seen is not None:
                key = (pc, marks, view)
                if key in seen or (dead is not None and key in dead):
                    continue
                seen.add(key)
            self.steps += 1
            kind = kinds[pc]
            if kind == MATCH or kind == DONE:
                out.append((pc, cell, view))
            elif kind == SPLIT:
                ins = prog[pc]
                stack.append((ins.b, marks))
                stack.append((ins.a, marks))
            elif kind == JUMP:
                stack.append((prog[pc].a, marks))
            elif kind == ITERATION:
                stack.append((pc + 1, marks | {prog[pc].loop}))
            elif kind == EXIT_IF_EMPTY:
                ins = prog[pc]
                if ins.loop in marks:
                    stack.append((ins.a, marks - {ins.loop}))
                else:
                    stack.append((pc + 1, marks))
            elif kind == AT_START:
                if i == 0:
                    stack.append((pc + 1, marks))
            elif kind == AT_END:
                if i == n:
                    stack.append((pc + 1, marks))
            else:  # pragma: no cover
                raise TypeError(kind)
