"""The shipped vectors as harness Cases: every language's loader, read from the installed package."""
from __future__ import annotations

import fnmatch
import functools
import importlib
import importlib.resources
from pathlib import Path
from typing import Sequence

from cepkit.conformance.harness import Case
from cepkit.core import registry
from cepkit.core.errors import CepkitError

LOADERS = {"sase": "cepkit.conformance.loader", "sql": "cepkit.conformance.sql_loader",
           "tpstream": "cepkit.conformance.tpstream_loader", "afa": "cepkit.conformance.afa_loader",
           "window": "cepkit.conformance.windows_loader"}   # the language each loader's cases are of


def cases_dir() -> Path:
    """Where the vectors are: `conformance/cases` inside the installed package."""
    return Path(str(importlib.resources.files("cepkit.conformance") / "cases"))


@functools.cache
def language_cases(language: str) -> tuple[Case, ...]:
    """One language's cases (its loader read once per process)."""
    return tuple(importlib.import_module(LOADERS[language]).cases())


def all_cases(languages: Sequence[str] | None = None) -> tuple[Case, ...]:
    """Every loader's cases (of the languages given: only their loaders are read), in loader order."""
    return tuple(case for lang in LOADERS if not languages or lang in languages for case in language_cases(lang))


def select(cases: Sequence[Case], languages: list[str] | None, patterns: list[str] | None,
           origins: Sequence[str] | None = None) -> list[Case]:
    """The cases of the languages (all when None) whose id or `language:id` matches a glob pattern (all when
    None) and whose origin is of one of the kinds (all when None; conformance/origin.py)."""
    def wanted(c: Case) -> bool:
        if languages and c.language not in languages:
            return False
        if origins and origin_of(c) not in origins:
            return False
        names = (c.id, f"{c.language}:{c.id}")
        return not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns for n in names)
    return [c for c in cases if wanted(c)]


def origin_of(case: Case) -> str:
    """The kind of the case's origin (`trino`, `paper`, ...; `?` where a loader gave none)."""
    return case.origin.kind if case.origin is not None else "?"


def constructs_of(case: Case) -> tuple[str, ...]:
    """The constructs the case's query uses (the language's construct extraction); `invalid query` when
    the reference cannot parse it (an expected-error vector)."""
    try:
        query = registry.parse(case.language, case.query)
        return tuple(registry.constructs(case.language, query, **case.options))
    except CepkitError:
        return ("invalid query",)
