"""compile() and run(): one door to every language and engine (core/registry.py)."""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from cepkit.core import registry
from cepkit.core.contract import Program
from cepkit.core.errors import CepkitWarning
from cepkit.core.match_table import MatchTable


def language_of(text: str, language: str | None = None) -> str:
    """The language named, else the one the text is written in (QueryError naming the known ones)."""
    if language is not None:
        return registry.language(language).name
    return registry.detect(text)


def unbounded_kleene(lang: str, query: Any) -> str | None:
    """The first variable under a Kleene closure of a query without WITHIN (SASE `+`; SQL `*`, `+`,
    `{n,}`), else None: its partial matches may grow with the whole stream."""
    if lang == "sase":
        from cepkit.reference.language.ast import leaves

        if query.window is None:
            return next((c.var for c in leaves(query.pattern) if c.kleene and not c.negated), None)
    elif lang == "sql":
        from cepkit.reference.sql import ast as S

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


def compile(text: str, language: str | None = None, engine: str = "reference", dialect: str | None = None,
            **options: Any) -> Program:
    """A program for the query on the named engine; the language is found from the text unless given.
    QueryError (line and column) or Unsupported (the construct, and the engines that run it) at compile time;
    MissingExtra (naming `pip install 'cepkit[gpu]'`) for an engine whose extra is not installed.
    Every engine takes `limit=N` (stop after N matches) and `max_state=N` (ResourceLimit past N live
    partial matches; default cepkit.core.contract.DEFAULT_MAX_STATE); a Kleene closure without WITHIN warns
    (CepkitWarning). `dialect` "sase1" reads a SASE text with SASE 1.0's behaviour (docs/semantics.md S1)."""
    lang = language_of(text, language) if isinstance(text, str) else (language or "sase")
    text = sase_dialect(lang, text, dialect)
    program = registry.get_engine(lang, engine).compile(text, **options)
    warn_unbounded(lang, getattr(program, "query", None))
    return program


def read_query(text_or_path: str | Path) -> tuple[str, str | None]:
    """(query text, language by file suffix or None) of a query text or a query file's path."""
    if isinstance(text_or_path, Path) or ("\n" not in text_or_path and len(text_or_path) < 4096
                                          and Path(text_or_path).is_file()):
        from cepkit.reference.language.limits import read_query_file

        return read_query_file(text_or_path), registry.by_suffix(str(text_or_path))
    return str(text_or_path), None


def sase_dialect(lang: str, text: Any, dialect: str | None) -> Any:
    """The SASE text parsed in the dialect when one is named (QueryError for another language), else as is."""
    if dialect is None:
        return text
    if lang != "sase":
        from cepkit.core.errors import QueryError

        raise QueryError(f"a dialect (sase1, sase+) applies to SASE queries, not {lang}")
    from cepkit.reference.language import parse
    from cepkit.reference.language.dialects import with_dialect

    return parse(text, dialect=dialect) if isinstance(text, str) else with_dialect(text, dialect)


def run(query: str | Path, events: Any = None, language: str | None = None, engine: str = "reference",
        read_options: dict | None = None, dialect: str | None = None, **options: Any) -> MatchTable:
    """Every match of the query over the events, as a MatchTable (`.to_pandas()`, `.to_arrow()`, or
    iterate for Match rows). `query` is a query text or a query file; `events` a path (CSV, Parquet, JSON
    lines), a pandas DataFrame, an Arrow table, or what the language's programs feed on (None: a SQL query
    that carries its rows in VALUES). `limit` and `max_state` as in `compile`; `dialect` as in `compile`
    (a `.query` file: sase1 unless named)."""
    text, by_suffix = read_query(query)
    lang = language_of(text, language or by_suffix)
    if lang == "sase" and dialect is None and by_suffix is not None:  # a SASE 1.0 query file (.query)
        from cepkit.reference.language.dialects import dialect_of_path

        dialect = dialect_of_path(query)
    text = sase_dialect(lang, text, dialect)
    program = registry.get_engine(lang, engine).compile(text, **options)
    warn_unbounded(lang, getattr(program, "query", None))
    data = registry.read_input(lang, engine, events, getattr(program, "query", None), **(read_options or {}))
    return program.run(data)
