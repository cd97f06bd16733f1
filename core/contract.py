"""The engine contract, for every language and engine (docs/architecture.md "Engine contract").

    program = engine.compile(query)   # QueryError (line:column) / Unsupported (by construct) at compile time
    table = program.feed(batch)       # a MatchTable: the matches this batch completes
    table = program.close()           # a MatchTable: the matches that needed the end of the stream
    table = program.run(batch)        # feed + close

`Engine.compile` parses text with the language's front end, refuses the constructs the engine does not
declare (naming the construct and the engines that run it), then builds the program. `Program` writes
the feed / close / run loop once; a program implements `_feed` and `_close`, returning Match rows or a
MatchTable, and says its `layout`.

Three options every engine takes, handled here before the engine's own (`Budget`): `limit=N` stops after N
matches (the program returns no more, and engines stop working once they are out); `max_state=N` bounds
the live partial matches (runs) an engine that counts them may hold, else ResourceLimit (exit 4). An
engine that does not count its live state refuses an explicit `max_state` at compile time (`counts_state`).
`max_memory=BYTES` bounds the process's resident memory while a program is fed or closed (core/memory.py;
default memory.default_max_memory(), a fraction of the machine's): past it, and on an allocation failure
(MemoryError, Numba's included), ResourceLimit naming the bound, on every engine.

Optional capabilities are small protocols a program may also meet (checked with isinstance): `ChangeStream`,
a program whose output is a change stream (insertions, retractions, punctuations: the AFA programs).
"""
from __future__ import annotations

import inspect
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any, Callable, ClassVar, Iterable, Iterator, Mapping, Protocol, runtime_checkable

from cepkit.core import memory
from cepkit.core.errors import QueryError, ResourceLimit, Unsupported
from cepkit.core.events import EventBatch
from cepkit.core.match import Match
from cepkit.core.match_table import Layout, MatchTable

Progress = Callable[[int, int], None]

from cepkit.core.limits import DEFAULT_MAX_STATE, HELD_EVENTS  # noqa: E402  (re-exported: the contract's default)
from cepkit.core import registry


class Budget:
    """What a run may spend: `limit` matches (None: all) and `max_state` live partial matches (None: no
    bound). Engines report their live state with `check_state`; `matches`, `live` and `peak` feed the
    progress bar."""

    def __init__(self, limit: int | None = None, max_state: int | None = DEFAULT_MAX_STATE,
                 max_memory: int | None = None):
        self.limit = limit
        self.max_state = max_state
        self.max_memory = max_memory   # bytes of resident memory (None: not watched); core/memory.py
        self.watch: int | None = None  # the memory watch's token while a feed or close runs
        self.matches = 0       # matches handed out so far
        self.batch_matches = 0  # matches found in the batch being fed (engines note them for progress)
        self.held_events = 0   # events bound by the matches built in the batch being fed (check_held)
        self.live = 0          # live partial matches at the last check
        self.peak = 0

    @property
    def stopped(self) -> bool:
        """Whether the limit has been reached: no more matches are wanted."""
        return self.limit is not None and self.matches >= self.limit

    def wanted(self, found: int = 0) -> bool:
        """Whether more matches are wanted after `found` more than those already handed out."""
        return self.limit is None or self.matches + found < self.limit

    def take(self, table: MatchTable) -> MatchTable:
        """The table cut to the matches still wanted, counted."""
        if self.limit is not None and self.matches + len(table) > self.limit:
            table = MatchTable.from_matches(table.layout, table.rows()[: self.limit - self.matches])
        self.matches += len(table)
        self.batch_matches = 0
        self.held_events = 0
        return table

    def check_state(self, live: int, variable: Callable[[], str]) -> None:
        """Record `live` partial matches; ResourceLimit past max_state naming `variable()`, the pattern
        variable whose partial matches grew (called only then)."""
        self.live = live
        if live > self.peak:
            self.peak = live
        if self.watch is not None:
            self.check_memory()
        if self.max_state is not None and live > self.max_state:
            raise ResourceLimit(
                f"more than {self.max_state:,} live partial matches, most of them at pattern variable "
                f"{variable()} (the bound: --max-state, max_state=); bound the pattern with WITHIN (or a smaller "
                "window), a more selective strategy or predicate, or raise the bound")


    def check_held(self, held: int, events: int = 0) -> None:
        """ResourceLimit past max_state for `held` matches an engine is about to build at once (the matches
        one event, or one step, completes: a merged run stands for many), or past HELD_EVENTS x max_state for
        the events those and the matches already built in this feed bind (`events`; a feed's matches are
        held until it returns: few matches of many events each explode memory as surely as many matches)."""
        if self.max_state is None:
            return
        if held > self.max_state:
            raise ResourceLimit(
                f"more than {self.max_state:,} matches completed at once, held before they are output (the "
                "bound: --max-state, max_state=); bound the pattern with WITHIN (or a smaller window), a more "
                "selective strategy or predicate, or raise the bound")
        self.held_events += events
        if self.held_events > HELD_EVENTS * self.max_state:
            raise ResourceLimit(
                f"the matches held before they are output bind more than {HELD_EVENTS * self.max_state:,} events "
                f"({HELD_EVENTS} per unit of the bound: --max-state, max_state=); bound the pattern with WITHIN (or "
                "a smaller window), a more selective strategy or predicate, --limit, or raise the bound")

    def check_memory(self, now: bool = False) -> None:
        """ResourceLimit once the memory watch saw the process past max_memory (`now`: sample it now too)."""
        seen = memory.over(self.watch, now)
        if seen is not None:
            raise ResourceLimit(memory.message(seen, self.max_memory))

    @contextmanager
    def guarded(self) -> Iterator[None]:
        """The block (a feed or a close) under the memory bound: the resident set watched, checked at the
        end, and an allocation failure (MemoryError, Numba's "Allocation failed" included) a ResourceLimit.
        A signal's exception (Ctrl-C, the command line's SIGTERM) raised where native code called back into
        Python comes out as itself, not wrapped in SystemError (`interrupted`)."""
        outer = self.watch
        with memory.watched(self.max_memory if outer is None else None) as token:
            if outer is None:
                self.watch = token
            try:
                yield
                self.check_memory(now=True)
            except SystemError as exc:
                cause = interrupted(exc)
                if cause is None:
                    raise
                raise cause from None
            except MemoryError:
                raise ResourceLimit(f"an allocation failed (out of memory); {memory.message(None, self.max_memory)}"
                                    if self.max_memory else "an allocation failed (out of memory); bound the run "
                                    "with --max-memory / --max-state / --limit") from None
            finally:
                if outer is None:
                    self.watch = None


def interrupted(exc: BaseException) -> BaseException | None:
    """The KeyboardInterrupt (or other BaseException that is not an Exception: the command line's SIGTERM)
    behind a SystemError, else None. A signal that arrives while a Numba kernel runs is handled when Python code
    runs next, which is Numba's own callback boxing the kernel's result (`_numba_unpickle`): CPython wraps what
    the handler raised there in "SystemError: ... returned a result with an exception set", once per frame."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if not isinstance(e, Exception):
            return e
        e = e.__cause__ or e.__context__
    return None


def budget_options(limit: Any = None, max_state: Any = None,
                   max_memory: Any = None) -> tuple[int | None, int | None, int | None]:
    """(limit, max_state, max_memory) checked: positive integers (max_memory: bytes, or a size text such as
    "2G") or None (QueryError naming the option)."""
    if isinstance(max_memory, str):
        try:
            max_memory = memory.parse_size(max_memory)
        except ValueError as exc:
            raise QueryError(f"option 'max_memory': {exc}") from None
    for name, value in (("limit", limit), ("max_state", max_state), ("max_memory", max_memory)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise QueryError(f"option '{name}' must be a positive integer, not {value!r}")
    # a bound past 2^50 bounds nothing a run can reach; held as 2^50 it fits the kernels' int64 counters
    limit, max_state, max_memory = (None if v is None else min(v, UNREACHABLE)
                                    for v in (limit, max_state, max_memory))
    return limit, max_state, max_memory


UNREACHABLE = 2**50   # budget_options' ceiling (times HELD_EVENTS still fits int64)


class Program:
    """A compiled query: `feed(batch)` any number of times, then `close()`; each returns a MatchTable."""

    engine_name: ClassVar[str] = "?"
    language: ClassVar[str] = "?"
    # (language, engine) whose registry reader turns what feed is given into what the program feeds on
    # (Engine.compile sets it), and the reading options it reads with (cepkit.compile sets them)
    reader: tuple[str, str] | None = None
    read_options: Mapping[str, Any] = MappingProxyType({})

    @property
    def budget(self) -> Budget:
        """The run's Budget (Engine.compile sets it; a program built directly gets the default)."""
        if "_budget" not in self.__dict__:
            self.__dict__["_budget"] = Budget()
        return self.__dict__["_budget"]

    @budget.setter
    def budget(self, value: Budget) -> None:
        self.__dict__["_budget"] = value

    @property
    def layout(self) -> Layout:
        """The columns of this program's match tables (variables, payload items, sign, detection)."""
        raise NotImplementedError

    def feed(self, batch: Any, progress: Progress | None = None) -> MatchTable:
        """Consume a batch; return the matches it completes (none once the limit is reached)."""
        if self.budget.stopped:
            return MatchTable.empty(self.layout)
        with self.budget.guarded():
            return self.budget.take(self.table(self._feed(self.feed_input(batch), progress)))

    def feed_input(self, events: Any) -> Any:
        """What the program feeds on, from anything cepkit.run reads (a path, a pandas DataFrame, an Arrow
        table or PyCapsule stream, a list of row dicts), through its language's reader; a batch as is."""
        if self.reader is None or isinstance(events, EventBatch):
            return events
        return registry.read_input(*self.reader, events, getattr(self, "query", None), **self.read_options)

    def close(self) -> MatchTable:
        """End of stream: the matches that were waiting for it."""
        if self.budget.stopped:
            self._close()  # the program may read a new stream
            return MatchTable.empty(self.layout)
        with self.budget.guarded():
            return self.budget.take(self.table(self._close()))

    def run(self, batch: Any, progress: Progress | None = None) -> MatchTable:
        """The whole stream at once: feed(batch) then close()."""
        return MatchTable.concat(self.layout, [self.feed(batch, progress), self.close()])

    def table(self, out: MatchTable | Iterable[Match]) -> MatchTable:
        return out if isinstance(out, MatchTable) else MatchTable.from_matches(self.layout, out)

    # ------------------------------------------------------------------ what a program implements
    def _feed(self, batch: Any, progress: Progress | None) -> MatchTable | Iterable[Match]:
        raise NotImplementedError

    def _close(self) -> MatchTable | Iterable[Match]:
        return ()


@runtime_checkable
class ChangeStream(Protocol):
    """Optional capability: a program whose output is a change stream (the AFA programs, spec/003). Its
    tables hold the insertions and retractions; these give the whole stream so far as plain records
    (JSON-friendly values: infinity as "inf" / "-inf", exact numbers as cepkit.core.match.plain gives them)."""

    def changes(self) -> list[dict]:
        """The change stream in arrival order: {"op": "insert" | "retract", "le", "re", "payload"} for an
        output, {"op": "punctuate", "t"} for an output punctuation."""
        ...

    def net(self) -> list[dict]:
        """The net result (insertions minus retractions): {"le", "re", "payload", "count"} sorted by lifetime."""
        ...


class Engine:
    """Compiles queries of one language to programs. Subclasses set `name`, `language` and implement `build`."""

    name: ClassVar[str] = "?"
    language: ClassVar[str] = "?"
    # whether the engine's programs count their live partial matches against Budget.max_state; an engine
    # that does not refuses an explicit max_state at compile time, naming itself and `state_note` (why its
    # state is bounded otherwise, or that it is not counted)
    counts_state: ClassVar[bool] = False
    state_note: ClassVar[str] = "it does not count its live partial matches"

    def compile(self, query: Any, language: str | None = None, limit: int | None = None,
                max_state: int | None = None, max_memory: int | str | None = None, **options: Any) -> Program:
        """A program for the query (text or AST). QueryError / Unsupported at compile time. `limit`,
        `max_state` and `max_memory` (every engine): the program's Budget (max_state None: DEFAULT_MAX_STATE;
        max_memory None: memory.default_max_memory())."""
        if language is not None and language != self.language:
            raise QueryError(f"engine '{self.name}' runs {self.language} queries, not {language}",
                             expected=[self.language])
        limit, max_state, max_memory = self.check_budget(limit, max_state, max_memory)
        self.check_options(options)
        q = registry.parse(self.language, query) if isinstance(query, str) else query
        registry.check_constructs(self.language, self.name, q, **options)
        try:
            program = registry.build(self.language, self.name, q, lambda query: self.build(query, **options))
        except Unsupported as exc:
            raise registry.with_alternatives(self.language, exc, q, **options) from None
        program.budget = Budget(limit, DEFAULT_MAX_STATE if max_state is None else max_state,
                                memory.default_max_memory() if max_memory is None else max_memory)
        program.reader = (self.language, self.name)
        return program

    def build(self, query: Any, **options: Any) -> Program:
        raise NotImplementedError

    @classmethod
    def check_budget(cls, limit: Any = None, max_state: Any = None,
                     max_memory: Any = None) -> tuple[int | None, int | None, int | None]:
        """(limit, max_state, max_memory) checked; QueryError for max_state on an engine that does not count
        its state (every engine takes max_memory)."""
        limit, max_state, max_memory = budget_options(limit, max_state, max_memory)
        if max_state is not None and not cls.counts_state:
            raise QueryError(f"engine '{cls.name}' takes no max_state (--max-state): {cls.state_note}")
        return limit, max_state, max_memory

    def option_names(self) -> list[str] | None:
        """The options its `build` takes (not limit, max_state, max_memory); None when it takes any (it checks them)."""
        params = inspect.signature(self.build).parameters.values()
        if any(p.kind is p.VAR_KEYWORD for p in params):
            return None
        return [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)][1:]

    def check_options(self, options: dict) -> None:
        """QueryError naming the options the engine takes, for an option its `build` does not take."""
        known = self.option_names()
        if known is None:
            return  # the engine checks its options itself
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise QueryError(f"engine '{self.name}' has no option '{unknown[0]}'" +
                             ("" if known else " (it takes none)"), expected=known)
