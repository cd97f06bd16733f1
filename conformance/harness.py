"""One harness for every language's conformance vectors: each case runs through `cepkit.compile` on every
engine registered for its language (core/registry.py); an engine that refuses a construct of the
case (Unsupported, by name) skips it, anything else it returns is checked.

Each language's loader turns its YAML vectors into `Case`s (`conformance.<language>_loader.cases()`);
`tests/conformance/test_all_engines.py` runs them all. A Case also carries the vector's neutral form (event rows,
read options, the options that are semantics) and its source, for the conformance kit (conformance/kit/),
which runs the same vectors against engines outside cepkit.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from cepkit.core.match_table import MatchTable
from cepkit.conformance.origin import Origin
from cepkit.core import registry
import cepkit


@dataclass(frozen=True)
class Case:
    id: str
    language: str
    query: str                                  # the query text
    events: Any                                 # what cepkit.run accepts for the language (path, DataFrame, ...)
    check: Callable[[MatchTable], None]         # raises AssertionError (with a message) on a wrong table
    options: dict = field(default_factory=dict)         # compile options (selection, mode, flavor, ...)
    read_options: dict = field(default_factory=dict)    # options of the language's event reader
    error: Callable[[Exception], None] | None = None    # the case expects this error (QueryError/EventError)
    engines: tuple[str, ...] | None = None      # restrict to these engines (None: every registered engine)
    chunk: int | None = None                    # feed the input this many events at a time (EventBatch input)
    # the neutral form an engine outside cepkit gets (conformance/kit): JSON-able events and options
    records: list | tuple | None = None         # the vector's event rows (dicts); (left, right) for a two-input query
    record_options: dict = field(default_factory=dict)  # how to read them (type_col, default_type, ts_unit)
    portable_options: dict | None = None        # the compile options that are semantics, not tuning (None: options)
    variant_of: str | None = None               # an engine-level variant (chunked, a method) of this case id
    error_kind: str | None = None               # with error: "query" or "event", what an outside engine reports
    source: str = ""                            # where the expected result comes from (paper section, derivation)
    title: str = ""
    path: str = ""                              # the vector's YAML file
    # the check with numbers compared by value (70 is 70.0), which the kit applies unless --strict-types;
    # None: `check` compares numbers by value already
    values_check: Callable[[MatchTable], None] | None = None
    origin: Origin | None = None                # where the expected answer comes from (conformance/origin.py)
    # whether the check reads the matches' bindings (None: as its language does, kit/protocol.BINDINGS_COMPARED)
    compares_bindings: bool | None = None
    # the kit language it is offered as where that is not `language` ("sase1": a SASE 1.0 dialect vector, a
    # `sase` query with its `dialect` option), and the SASE 1.0 stream generator's configuration it names
    offered_as: str | None = None
    stream: dict | None = None

    @property
    def kit_language(self) -> str:
        """The language the conformance kit offers the vector as (conformance/kit/vectors.py LOADERS)."""
        return self.offered_as or self.language

    def __str__(self) -> str:
        return self.id


def run_case(case: Case, engine: str) -> MatchTable:
    """Compile the case's query on the engine and run it over the case's events."""
    program = cepkit.compile(case.query, language=case.language, engine=engine, **case.options)
    data = registry.read_input(case.language, engine, case.events, **case.read_options)
    if case.chunk is None or not hasattr(data, "slice"):
        return program.run(data)
    tables = [program.feed(data.slice(i, min(len(data), i + case.chunk))) for i in range(0, len(data), case.chunk)]
    return MatchTable.concat(program.layout, tables + [program.close()])
