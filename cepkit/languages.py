"""How `cepkit run` and `cepkit explain` handle each language of core/registry.py: the function that
adds the language's own `cepkit run` options, the one that runs it, and the one that explains a query
(all "module:function", imported only when used). Languages, suffixes and engines come from the registry.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from cepkit.core import registry
from cepkit.core.errors import QueryError


@dataclass(frozen=True)
class Language:
    name: str
    runner: str                  # its runner module (cepkit/runner.py says what it holds)
    explain: str                 # called with the query text, returns the text `cepkit explain` prints
    options: str | None = None   # called with an argparse group to add the language's options

    @property
    def description(self) -> str:
        return registry.language(self.name).description

    @property
    def suffixes(self) -> tuple[str, ...]:
        return registry.language(self.name).suffixes

    def load(self, which: str) -> Callable:
        module, _, func = getattr(self, which).partition(":")
        return getattr(importlib.import_module(module), func)


LANGUAGES: dict[str, Language] = {lang.name: lang for lang in (
    Language("sase", "cepkit.runners.sase", "cepkit.explain:explain_sase", "cepkit.runners.sase:add_options"),
    Language("afa", "cepkit.runners.afa", "cepkit.explain:explain_afa", "cepkit.runners.afa:add_options"),
    Language("tpstream", "cepkit.runners.tpstream", "cepkit.explain:explain_tpstream",
             "cepkit.runners.tpstream:add_options"),
    Language("sql", "cepkit.runners.sql", "cepkit.explain:explain_sql", "cepkit.runners.sql:add_options"),
    Language("window", "cepkit.runners.window", "cepkit.explain:explain_window"),
)}


def detect(path: str, explicit: str | None = None, text: str | None = None) -> Language:
    """The language named by `--language`, else the one whose suffix the file has, else the one the text
    is written in (registry.detect), else SASE+."""
    if explicit is not None:
        name = registry.language(explicit).name
    else:
        name = registry.by_suffix(path) or (registry.detect(text) if text is not None else "sase")
    if name not in LANGUAGES:
        raise QueryError(f"`cepkit run` does not run {name} queries (see `cepkit {name} --help`)",
                         expected=sorted(LANGUAGES))
    return LANGUAGES[name]
