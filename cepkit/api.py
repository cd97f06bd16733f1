"""compile() and run(): one door to every language and engine (core/registry.py)."""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from cepkit.core import registry
from cepkit.core.contract import Program
from cepkit.core.errors import CepkitWarning, QueryError
from cepkit.core.match_table import MatchTable
from cepkit.core.query_text import read_query_file


BUDGET_OPTIONS = ("limit", "max_state", "max_memory")   # every engine's (cepkit.core.contract.Budget)


def language_of(text: str, language: str | None = None) -> str:
    """The language named, else the one the text is written in (QueryError naming the known ones)."""
    if language is not None:
        return registry.language(language).name
    return registry.detect(text)


def unbounded_kleene(lang: str, query: Any) -> str | None:
    """The first variable under a Kleene closure of a query without WITHIN (SASE `+`; SQL `*`, `+`,
    `{n,}`), else None: its partial matches may grow with the whole stream."""
    if lang == "sase":
        # lazy: the query's language's modules only
        from cepkit.front.language.ast import leaves

        if query.window is None:
            return next((c.var for c in leaves(query.pattern) if c.kleene and not c.negated), None)
    elif lang == "sql":
        # lazy: the query's language's modules only
        from cepkit.front.sql import ast as S

        if query.within is None:
            for node in query.pattern.walk():
                if isinstance(node, S.PQuant) and node.high is None:
                    return next((v.name for v in node.item.walk() if isinstance(v, S.PVar)), None)
    return None


def warn_unbounded(lang: str, query: Any) -> None:
    """A CepkitWarning for a Kleene closure without WITHIN (the CLI prints it on stderr)."""
    var = unbounded_kleene(lang, query) if query is not None else None
    if var is not None:
        warnings.warn(f"the Kleene closure of {var} has no WITHIN: its partial matches may grow with the "
                      "whole stream (exponentially under skip_till_any_match / ALL MATCHES); add WITHIN, or "
                      "bound the run with limit / max_state", CepkitWarning, stacklevel=3)


def split_options(lang: str, engine: Any, options: dict) -> tuple[dict, dict]:
    """(reading options, engine options) of the keywords given: the reading options are the `cepkit run`
    flags as keywords (ts_unit=, ts_col=, id_col=, ...; id_col="none" is None: row numbers). QueryError
    naming both sets for a keyword that is neither."""
    reading = registry.read_option_names(lang, engine.name)
    read = {k: v for k, v in options.items() if k in reading}
    rest = {k: v for k, v in options.items() if k not in reading}
    own = engine.option_names()
    unknown = sorted(set(rest) - set(own) - set(BUDGET_OPTIONS)) if own is not None else []
    if unknown:
        also = f"nor is it a reading option ({', '.join(reading)})" if reading else \
            f"and {lang} input takes no reading options"
        raise QueryError(f"engine '{engine.name}' has no option '{unknown[0]}'{'' if own else ' (it takes none)'}, "
                         f"{also}; engine options", expected=own + list(BUDGET_OPTIONS))
    if isinstance(read.get("id_col"), str) and read["id_col"].lower() == "none":
        read["id_col"] = None
    return read, rest


def compile(text: str, language: str | None = None, engine: str | None = "reference", dialect: str | None = None,
            **options: Any) -> Program:
    """A program for the query on the named engine (default: the reference, the executable specification);
    the language is found from the text unless given. engine=None: the fastest engine of the language that runs
    the query (as `run` chooses), handing over to the next when it refuses the query or the input at its first
    feed (cepkit/engine_choice.py: an EngineFallback warning says so; `program.engine_name` names the engine).
    QueryError (line and column) or Unsupported (the construct, and the engines that run it) at compile time;
    MissingExtra (naming `pip install 'cepkit[gpu]'`) for an engine whose extra is not installed.
    Every engine takes `limit=N` (stop after N matches), `max_state=N` (ResourceLimit past N live
    partial matches; default cepkit.core.contract.DEFAULT_MAX_STATE) and `max_memory=BYTES` or a size text
    such as "2G" (ResourceLimit past that much resident memory, or on an allocation failure; default
    cepkit.core.memory.default_max_memory(), half the machine's); a Kleene closure without WITHIN warns
    (CepkitWarning). `dialect` "sase1" reads a SASE text with SASE 1.0's behaviour (docs/semantics.md S1).
    Reading options (ts_unit=, ts_col=, ...; see `run`) are kept for what `program.feed` reads."""
    lang = language_of(text, language) if isinstance(text, str) else (language or "sase")
    text = sase_dialect(lang, text, dialect)
    program = program_for(lang, text, engine, options)
    warn_unbounded(lang, getattr(program, "query", None))
    return program


def program_for(lang: str, query: Any, engine: str | None, options: dict, read_options: dict | None = None,
                reread: Any = None) -> Program:
    """The program of the named engine, or of the fastest that runs the query (engine None; `reread(engine)`:
    the input from its start as that engine reads it, for a hand-over at feed time), its reading options kept."""
    def compile_on(name: str) -> Program:
        engine_ = registry.get_engine(lang, name)
        read, rest = split_options(lang, engine_, options)
        program = engine_.compile(query, **rest)
        program.read_options = {**(read_options or {}), **read}
        return program

    if engine is not None:
        return compile_on(engine)
    if isinstance(query, str):   # parsed once, for every engine tried
        query = registry.parse(lang, query)
    # lazy: the door's engine choice, only where no engine is named
    from cepkit.engine_choice import compile_fastest

    return compile_fastest(lang, query, options, compile_on, reread)


def read_query(text_or_path: str | Path) -> tuple[str, str | None]:
    """(query text, language by file suffix or None) of a query text or a query file's path."""
    if isinstance(text_or_path, Path) or ("\n" not in text_or_path and len(text_or_path) < 4096
                                          and _is_file(text_or_path)):
        return read_query_file(text_or_path), registry.by_suffix(str(text_or_path))
    return str(text_or_path), None


def _is_file(text: str) -> bool:
    """Whether the text names a file (a one-line query longer than a file name may be is none)."""
    try:
        return Path(text).is_file()
    except OSError:   # ENAMETOOLONG
        return False


def sase_dialect(lang: str, text: Any, dialect: str | None) -> Any:
    """The SASE text parsed in the dialect when one is named (QueryError for another language), else as is."""
    if dialect is None:
        return text
    if lang != "sase":
        raise QueryError(f"a dialect (sase1, sase+) applies to SASE queries, not {lang}")
    # lazy: the query's language's modules only
    from cepkit.front.language import parse
    from cepkit.front.language.dialects import with_dialect

    return parse(text, dialect=dialect) if isinstance(text, str) else with_dialect(text, dialect)


def run(query: str | Path, events: Any = None, language: str | None = None, engine: str | None = None,
        read_options: dict | None = None, dialect: str | None = None, **options: Any) -> MatchTable:
    """Every match of the query over the events, as a MatchTable (`.to_pandas()`, `.to_arrow()`,
    `.to_polars()`, or iterate for Match rows). `query` is a query text or a query file; `events` a path (CSV,
    Parquet, JSON lines), a pandas DataFrame, an Arrow table, an object with `__arrow_c_stream__` (polars,
    DuckDB), a list of row dicts, or what the language's programs feed on (None: a SQL query that carries its
    rows in VALUES). `engine` as in `compile` (None: the fastest that runs the query and its input).
    Keywords: the reading options, as `cepkit run`'s flags (ts_unit, ts_col, type_col,
    id_col, default_type, sort, input_format; also in `read_options`), and the engine's options; `limit`,
    `max_state` and `max_memory` as in `compile`; `dialect` as in `compile` (a `.query` file: sase1 unless named)."""
    text, by_suffix = read_query(query)
    lang = language_of(text, language or by_suffix)
    if lang == "sase" and dialect is None and by_suffix is not None:  # a SASE 1.0 query file (.query)
        # lazy: the query's language's modules only
        from cepkit.front.language.dialects import dialect_of_path

        dialect = dialect_of_path(query)
    text = sase_dialect(lang, text, dialect)

    def read(name: str | None) -> Any:
        return registry.read_input(lang, name or engine, events, getattr(program, "query", None),
                                   **program.read_options)

    program = program_for(lang, text, engine, options, read_options, reread=lambda name: [read(name)])
    warn_unbounded(lang, getattr(program, "query", None))
    if engine is not None:
        return program.run(read(engine))
    # lazy: the door's engine choice, only where no engine is named
    from cepkit.engine_choice import read_with

    return program.run(read_with(program, read))
