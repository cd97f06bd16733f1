"""compile() and run(): one door to every language and engine (reference/registry.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from reference import registry
from reference.contract import Program
from reference.match_table import MatchTable


def language_of(text: str, language: str | None = None) -> str:
    """The language named, else the one the text is written in (QueryError naming the known ones)."""
    if language is not None:
        return registry.language(language).name
    return registry.detect(text)


def compile(text: str, language: str | None = None, engine: str = "reference", **options: Any) -> Program:
    """A program for the query on the named engine; the language is found from the text unless given.
    QueryError (line and column) or Unsupported (the construct, and the engines that run it) at compile time."""
    lang = language_of(text, language) if isinstance(text, str) else (language or "sase")
    return registry.get_engine(lang, engine).compile(text, **options)


def read_query(text_or_path: str | Path) -> tuple[str, str | None]:
    """(query text, language by file suffix or None) of a query text or a query file's path."""
    if isinstance(text_or_path, Path) or ("\n" not in text_or_path and len(text_or_path) < 4096
                                          and Path(text_or_path).is_file()):
        from reference.language.limits import read_query_file

        return read_query_file(text_or_path), registry.by_suffix(str(text_or_path))
    return str(text_or_path), None


def run(query: str | Path, events: Any, language: str | None = None, engine: str = "reference",
        read_options: dict | None = None, **options: Any) -> MatchTable:
    """Every match of the query over the events, as a MatchTable (`.to_pandas()`, `.to_arrow()`, or
    iterate for Match rows). `query` is a query text or a query file; `events` a path (CSV, Parquet, JSON
    lines), a pandas DataFrame, an Arrow table, or what the language's programs feed on."""
    text, by_suffix = read_query(query)
    lang = language_of(text, language or by_suffix)
    program = registry.get_engine(lang, engine).compile(text, **options)
    data = registry.read_input(lang, engine, events, getattr(program, "query", None), **(read_options or {}))
    return program.run(data)
