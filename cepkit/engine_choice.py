"""Which engine runs a query when none is named: the fastest of its language's engines that runs it
(core/registry.py `LanguageEntry.by_speed`), the reference last; a refusal moves on to the next one and says
so (an EngineFallback warning: a `note:` line on the command line's stderr).

At compile time an engine is passed over when it does not declare one of the query's constructs, does not
take an option given, or refuses the query (Unsupported). At read or feed time (`Fallback`), an engine that
refuses the input (a value it cannot hold exactly, docs/semantics.md O5; arithmetic beyond 64 bits) hands over to the next: the batches
fed so far are read again (`reread`) and fed to the next engine, their matches dropped (they were handed out
already, and the engines agree on them: the conformance vectors prove it; the counts are checked), and the
run goes on from the refused batch. Without a way to read the input again, a refusal after the first feed is
raised, naming the engine to compile with. docs/semantics.md DE1-DE3.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, Iterable

from cepkit.core import registry
from cepkit.core.contract import Budget, Program
from cepkit.core.errors import (Beyond64Bits, CepkitError, CepkitWarning, QueryError, Unsupported,
                                option_name)
from cepkit.core.match_table import MatchTable

Compile = Callable[[str], Program]              # engine name -> that engine's program for the query
Reread = Callable[[str], Iterable[Any]]         # engine name -> the input from its start, as that engine reads it
REFUSALS = (Unsupported, Beyond64Bits)          # an engine's refusal of the input: the next engine may run it


class EngineFallback(CepkitWarning):
    """The engine chosen for a query without `engine` could not run it; another did."""


def untaken(lang: str, name: str, options: dict) -> str | None:
    """An option given that the engine does not take (as cepkit.api.split_options and Engine.check_budget would
    refuse it), else None."""
    engine = registry.get_engine(lang, name)
    own = engine.option_names()
    given = (set(options) - {"limit", "max_memory"} - set(registry.read_option_names(lang, name))
             - set(own if own is not None else options))
    if "max_state" in given and engine.counts_state:
        given.discard("max_state")
    return sorted(given)[0] if given else None


def refusal(exc: Exception, engine: str | None = None) -> str:
    """What an engine's refusal says, without the engines it names: "engine optimized does not run X (line L,
    column C)" (`engine`: the engine refused, where the exception names the family's, "optimized")."""
    if isinstance(exc, Beyond64Bits):
        return f"engine {engine} cannot compute on this input ({exc})"
    where = f" (line {exc.line}, column {exc.column})" if exc.line is not None else ""
    return f"engine {engine or exc.engine} does not run {exc.construct}{where}"


def compile_fastest(lang: str, query: Any, options: dict, compile_on: Compile,
                    reread: Reread | None = None) -> "Fallback":
    """The program of the fastest engine that runs the query (`compile_on(engine)`), able to hand over to the
    next at read or feed time. Raises what the last engine (the reference) raises."""
    names = [n for n in registry.language(lang).by_speed if registry.engine_extra(lang, n) is None]
    runners = needed = None   # the engines that declare the query's constructs (the registry's: imports none)
    refusals: list[str] = []
    for k, name in enumerate(names):   # an engine's module is imported only when it is reached
        last = k == len(names) - 1
        if not last:
            if runners is None:
                needed = set(registry.constructs(lang, query, **_construct_options(options)))
                runners = registry.runs(lang, needed)
            if name not in runners:
                missing = sorted(needed - (registry.engine_entry(lang, name).constructs or frozenset()))
                refusals.append(f"engine {name} does not run {missing[0]}")
                continue
        option = untaken(lang, name, options)
        if option is not None and (not last or any(untaken(lang, n, options) != option for n in names[:k])):
            if last:   # a faster engine takes the option, and does not run the query
                raise QueryError(f"{_named(option)} is not an option of engine {name}, the one engine that runs "
                                 f"this query ({'; '.join(refusals)}); drop {_named(option)} to run it")
            refusals.append(f"engine {name} does not take {_named(option)}")
            continue
        try:
            program = compile_on(name)
        except Unsupported as exc:
            if last:
                raise
            refusals.append(refusal(exc, name))
            continue
        if refusals:
            say(f"{'; '.join(refusals)}: engine {name} runs it")
        return Fallback(program, name, names[k + 1:], compile_on, reread)   # (the rest: checked when reached)
    raise AssertionError("unreachable: the last engine's refusal is raised")


# the engine options whose command-line flag is not the option's name (cepkit/runners/*.py compile_options)
FLAGS = {"merge": "--no-merge", "launch": "--gpu-launch", "mode": "--early", "flavor": "--flavor"}


def _named(option: str) -> str:
    """An engine option as the caller gave it: its flag on the command line, its keyword from Python."""
    flag = option_name(option)
    return FLAGS.get(option, flag) if flag.startswith("--") else flag


def _construct_options(options: dict) -> dict:
    """The options that change a query's constructs (SASE's selection, TPStream's mode, AFA's flavour)."""
    return {k: v for k, v in options.items() if k in ("selection", "mode", "flavor")}


def say(message: str) -> None:
    warnings.warn(message, EngineFallback, stacklevel=3)


def read_with(program: Any, read: Callable[[str], Any]) -> Any:
    """`read(engine)` for the program's engine; a reader's refusal (the optimized AFA's typed columns) hands a
    Fallback that has fed nothing over to the next engine first. Other programs: `read(None)`."""
    while isinstance(program, Fallback):
        try:
            return read(program.engine)
        except Unsupported as exc:
            program.hand_over(exc)
    return read(None)


def _forwarded(name: str) -> property:
    """The attribute of the Fallback's current program."""
    return property(lambda self: getattr(self.__dict__["current"], name))


class Fallback(Program):
    """A program that hands over to the next engine when its engine refuses the input at read or feed time.
    What it is otherwise (attributes, capabilities) is its current engine's program's."""

    def __init__(self, program: Program, engine: str, rest: list[str], compile_on: Compile, reread: Reread | None):
        self.__dict__.update(current=program, engine=engine, rest=list(rest), compile_on=compile_on,
                             reread=reread, fed=0)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["current"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.current, name, value)   # read_options, budget: the engine's program's

    # what Program defines itself (__getattr__ does not reach it): the current engine's program's
    budget = _forwarded("budget")
    layout = _forwarded("layout")
    language = _forwarded("language")
    read_options = _forwarded("read_options")
    reader = _forwarded("reader")
    feed_input = _forwarded("feed_input")
    table = _forwarded("table")

    @property
    def engine_name(self) -> str:
        return self.engine

    def feed(self, batch: Any, progress: Any = None) -> MatchTable:
        try:
            out = self.current.feed(batch, progress)
        except REFUSALS as exc:
            out = self._go_on(exc, batch, lambda source: self.current.feed(next(source), progress))
        self.__dict__["fed"] += 1
        return out

    def close(self) -> MatchTable:
        try:
            return self.current.close()
        except REFUSALS as exc:
            return self._go_on(exc, None, lambda source: self.current.close())

    def _go_on(self, exc: Exception, batch: Any, then: Callable[[Iterable[Any]], MatchTable]) -> MatchTable:
        """`then(source)` on the next engine that does not refuse the input too."""
        while True:
            source = self.hand_over(exc, batch)
            try:
                return then(source)
            except REFUSALS as again:
                exc = again

    def hand_over(self, exc: Exception, batch: Any = None) -> Iterable[Any]:
        """Switch to the next engine that takes the batches fed so far, fed them (their matches dropped); the
        input from the refused batch on, as that engine reads it. Raises `exc` when no engine is left, or the
        batches fed before cannot be read again."""
        refused, fed = self.engine, self.fed
        said = [refusal(exc, refused)]
        while True:
            if not self.rest or (fed and self.reread is None):
                if self.rest and isinstance(exc, Unsupported):
                    exc.message += (f"; the matches of the {fed} batch{'es' if fed != 1 else ''} fed before came "
                                    f"from engine {refused}: compile with engine='{self.rest[-1]}' to run this input")
                    exc.args = (str(exc),)
                raise exc
            name = self.rest.pop(0)
            try:
                program = self.compile_on(name)
            except CepkitError:
                continue
            program.read_options = self.current.read_options
            budget: Budget = self.current.budget
            handed_out, budget.matches = budget.matches, 0
            program.budget = budget
            source = iter(self.reread(name)) if self.reread is not None else iter([batch])
            try:
                replayed = sum(len(program.feed(next(source))) for _ in range(fed))
            except REFUSALS as again:
                budget.matches = handed_out
                said.append(refusal(again, name))
                continue
            if program.layout != self.current.layout:   # (after the replay: a table's columns are known once
                budget.matches = handed_out             # fed) the matches handed out could not be continued
                said.append(f"engine {name} gives other columns")
                continue
            if replayed != handed_out:   # the engines disagree: a defect, never a silently wrong answer
                raise CepkitError(f"engine {name} found {replayed} matches in the {fed} batches engine {refused} "
                                  f"had found {handed_out} in before it refused the input ({said[0]}): please "
                                  f"report this; rerun with --engine {name}") from exc
            self.__dict__.update(current=program, engine=name)
            again = f" (the {fed} batch{'es' if fed != 1 else ''} before read again)" if fed else ""
            say(f"{'; '.join(said)}: engine {name} runs it{again}")
            return source
