"""The SQL:2016 row pattern matcher: backtracking over the pattern, yielding matches in preferment order.

From a start row, `matches()` yields every match (end row, labels, excluded flags) in the standard's
preferment order: alternatives left to right, greedy quantifiers more iterations first, reluctant
fewer first, concatenation lexicographically. The first one is the match SQL reports. DEFINE
conditions are evaluated with RUNNING semantics over the match built so far. An iteration of a
quantifier beyond its minimum that matches no rows is accepted and ends the loop, as in Perl (so a
loop cannot repeat forever).
"""
from __future__ import annotations

import sys
import threading
from typing import Any, Callable, Iterator, Mapping, Sequence

from reference.errors import CepkitError
from reference.sql import ast as S
from reference.sql.exprs import Ctx, holds
from reference.sql.patterns import expand_permute

Result = tuple[int, tuple[str, ...], tuple[bool, ...]]

# The search recurses a few Python frames per matched row. `run_deep` gives it a thread with a large
# stack, so matches of some hundred thousand rows fit; beyond that MatchTooLong is raised.
STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 400_000


class MatchTooLong(CepkitError):
    """The reference matcher's recursion cannot follow a match this long."""


class Matcher:
    def __init__(self, pattern: S.Pattern, define: Mapping[str, object], subsets: Mapping[str, tuple[str, ...]],
                 within: Callable[[int, int], bool] | None = None):
        self.pattern = pattern
        self.define = define
        self.subsets = subsets
        self.within = within  # within(start_row, row) -> row may still belong to a match from start_row

    def matches(self, rows: Sequence[Mapping], start: int) -> Iterator[Result]:
        """Every match starting at partition row `start`, most preferred first."""
        self.rows = rows
        self.start = start
        self.labels: list[str] = []
        self.excl: list[bool] = []
        self.depth = 0
        limit = sys.getrecursionlimit()
        deep = getattr(_local, "deep", False)
        sys.setrecursionlimit(max(limit, RECURSION_LIMIT if deep else 20000))
        try:
            yield from self._m(self.pattern, start, self._done)
        except RecursionError:
            raise MatchTooLong("a match is too long for the reference matcher's recursion") from None
        finally:
            sys.setrecursionlimit(limit)

    def first(self, rows: Sequence[Mapping], start: int) -> Result | None:
        gen = self.matches(rows, start)
        try:
            return next(gen, None)
        finally:
            gen.close()

    # ------------------------------------------------------------------ continuation-passing search
    def _done(self, i: int) -> Iterator[Result]:
        yield (i, tuple(self.labels), tuple(self.excl))

    def _m(self, p: S.Pattern, i: int, k: Callable[[int], Iterator[Result]]) -> Iterator[Result]:
        if isinstance(p, S.PVar):
            yield from self._var(p.name, i, k)
        elif isinstance(p, S.PConcat):
            yield from self._concat(p.items, 0, i, k)
        elif isinstance(p, S.PAlt):
            for item in p.items:
                yield from self._m(item, i, k)
        elif isinstance(p, S.PQuant):
            yield from self._loop(p, 0, i, k)
        elif isinstance(p, S.PPermute):
            yield from self._m(expand_permute(p), i, k)
        elif isinstance(p, S.PExclude):
            yield from self._exclude(p, i, k)
        elif isinstance(p, S.PAnchor):
            if (p.kind == "^" and i == 0) or (p.kind == "$" and i == len(self.rows)):
                yield from k(i)
        elif isinstance(p, S.PEmpty):
            yield from k(i)
        else:
            raise TypeError(p)

    def _var(self, name: str, i: int, k) -> Iterator[Result]:
        if i >= len(self.rows):
            return
        if self.within is not None and not self.within(self.start, i):
            return
        self.labels.append(name)
        self.excl.append(self.depth > 0)
        try:
            cond = self.define.get(name)
            n = len(self.labels)
            if cond is None or holds(cond, Ctx(self.rows, range(self.start, self.start + n), self.labels,
                                               n - 1, self.subsets)):
                yield from k(i + 1)
        finally:
            self.labels.pop()
            self.excl.pop()

    def _concat(self, items, j: int, i: int, k) -> Iterator[Result]:
        if j == len(items):
            yield from k(i)
            return
        yield from self._m(items[j], i, lambda i2: self._concat(items, j + 1, i2, k))

    def _loop(self, p: S.PQuant, count: int, i: int, k) -> Iterator[Result]:
        can_more = p.high is None or count < p.high
        can_stop = count >= p.low

        def again(i2: int) -> Iterator[Result]:
            if i2 == i and count >= p.low:
                return k(i2)  # an empty iteration beyond the minimum ends the loop (as in Perl)
            return self._loop(p, count + 1, i2, k)

        if p.reluctant:
            if can_stop:
                yield from k(i)
            if can_more:
                yield from self._m(p.item, i, again)
        else:
            if can_more:
                yield from self._m(p.item, i, again)
            if can_stop:
                yield from k(i)

    def _exclude(self, p: S.PExclude, i: int, k) -> Iterator[Result]:
        def after(i2: int) -> Iterator[Result]:
            self.depth -= 1
            try:
                yield from k(i2)
            finally:
                self.depth += 1

        self.depth += 1
        try:
            yield from self._m(p.item, i, after)
        finally:
            self.depth -= 1


_local = threading.local()


def run_deep(fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) in a thread with a large stack (for the recursive search); exceptions propagate."""
    box: dict[str, Any] = {}

    def target() -> None:
        _local.deep = True
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    old = threading.stack_size()
    try:
        threading.stack_size(STACK_BYTES)
        worker = threading.Thread(target=target, name="cepkit-matcher")
        worker.start()
    except (RuntimeError, ValueError, MemoryError):  # no large stack here: run with the default depth
        return fn(*args)
    finally:
        threading.stack_size(old)
    worker.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")
