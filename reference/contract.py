"""The engine contract, for every language and engine (docs/architecture.md "Engine contract").

    program = engine.compile(query)   # QueryError (line:column) / Unsupported (by construct) at compile time
    table = program.feed(batch)       # a MatchTable: the matches this batch completes
    table = program.close()           # a MatchTable: the matches that needed the end of the stream
    table = program.run(batch)        # feed + close

`Engine.compile` parses text with the language's front end, refuses the constructs the engine does not
declare (naming the construct and the engines that run it), then builds the program. `Program` writes
the feed / close / run loop once; a program implements `_feed` and `_close`, returning Match rows or a
MatchTable, and says its `layout`.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, ClassVar, Iterable

from reference.errors import QueryError, Unsupported
from reference.match import Match
from reference.match_table import Layout, MatchTable

Progress = Callable[[int, int], None]


class Program:
    """A compiled query: `feed(batch)` any number of times, then `close()`; each returns a MatchTable."""

    engine_name: ClassVar[str] = "?"
    language: ClassVar[str] = "?"

    @property
    def layout(self) -> Layout:
        """The columns of this program's match tables (variables, payload items, sign, detection)."""
        raise NotImplementedError

    def feed(self, batch: Any, progress: Progress | None = None) -> MatchTable:
        """Consume a batch; return the matches it completes."""
        return self.table(self._feed(batch, progress))

    def close(self) -> MatchTable:
        """End of stream: the matches that were waiting for it."""
        return self.table(self._close())

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


class Engine:
    """Compiles queries of one language to programs. Subclasses set `name`, `language` and implement `build`."""

    name: ClassVar[str] = "?"
    language: ClassVar[str] = "?"

    def compile(self, query: Any, language: str | None = None, **options: Any) -> Program:
        """A program for the query (text or AST). QueryError / Unsupported at compile time."""
        from reference import registry

        if language is not None and language != self.language:
            raise QueryError(f"engine '{self.name}' runs {self.language} queries, not {language}",
                             expected=[self.language])
        self.check_options(options)
        q = registry.parse(self.language, query) if isinstance(query, str) else query
        registry.check_constructs(self.language, self.name, q, **options)
        try:
            return self.build(q, **options)
        except Unsupported as exc:
            raise registry.with_alternatives(self.language, exc, q, **options) from None

    def build(self, query: Any, **options: Any) -> Program:
        raise NotImplementedError

    def check_options(self, options: dict) -> None:
        """QueryError naming the options the engine takes, for an option its `build` does not take."""
        params = inspect.signature(self.build).parameters.values()
        if any(p.kind is p.VAR_KEYWORD for p in params):
            return  # the engine checks its options itself
        known = [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)][1:]
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise QueryError(f"engine '{self.name}' has no option '{unknown[0]}'" +
                             ("" if known else " (it takes none)"), expected=known)
