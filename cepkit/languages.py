"""The query languages `cepkit run` understands, and how a query file's language is chosen.

Each language names the file suffixes that select it, the engines that can run it, a function that
adds its own `cepkit run` options, and the function that runs it (`module:function`, imported only
when used). A file whose suffix no language claims is read as SASE+.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from reference.errors import QueryError


@dataclass(frozen=True)
class Language:
    name: str
    description: str
    suffixes: tuple[str, ...]
    runner: str  # "module:function", called with the parsed argparse namespace, returns an exit code
    options: str | None = None  # "module:function", called with an argparse group to add options

    def load(self, which: str) -> Callable:
        module, _, func = getattr(self, which).partition(":")
        return getattr(importlib.import_module(module), func)


LANGUAGES: dict[str, Language] = {
    "sase": Language("sase", "SASE+ / SASE RFID patterns", (".sase", ".query"),
                     "cepkit.runners.sase:run", "cepkit.runners.sase:add_options"),
    "afa": Language("afa", "AFA patterns over disordered streams (spec/003)", (".afa.yaml", ".afa.yml", ".afa.json"),
                    "cepkit.runners.afa:run", "cepkit.runners.afa:add_options"),
    "tpstream": Language("tpstream", "TPStream interval patterns over derived situations", (".tps",),
                         "cepkit.runners.tpstream:run", "cepkit.runners.tpstream:add_options"),
    "sql": Language("sql", "SQL MATCH_RECOGNIZE (row pattern recognition)", (".sql",),
                    "cepkit.runners.sql:run", "cepkit.runners.sql:add_options"),
}

DEFAULT_LANGUAGE = "sase"


def detect(path: str, explicit: str | None = None) -> Language:
    """The language named by `--language`, else the one whose suffix the file has, else SASE+."""
    if explicit is not None:
        if explicit not in LANGUAGES:
            raise QueryError(f"unknown query language '{explicit}'", expected=sorted(LANGUAGES))
        return LANGUAGES[explicit]
    lower = path.lower()
    best = None
    for lang in LANGUAGES.values():
        for suffix in lang.suffixes:
            if lower.endswith(suffix) and (best is None or len(suffix) > best[0]):
                best = (len(suffix), lang)
    return best[1] if best else LANGUAGES[DEFAULT_LANGUAGE]
