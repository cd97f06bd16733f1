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

LOADERS = ("cepkit.conformance.loader", "cepkit.conformance.sql_loader", "cepkit.conformance.tpstream_loader", "cepkit.conformance.afa_loader",
           "cepkit.conformance.windows_loader")


def cases_dir() -> Path:
    """Where the vectors are: `conformance/cases` inside the installed package."""
    return Path(str(importlib.resources.files("conformance") / "cases"))


@functools.cache
def all_cases() -> tuple[Case, ...]:
    """Every loader's cases, in loader order (read once per process)."""
    return tuple(case for name in LOADERS for case in importlib.import_module(name).cases())


def select(cases: Sequence[Case], languages: list[str] | None, patterns: list[str] | None) -> list[Case]:
    """The cases of the languages (all when None) whose id or `language:id` matches a glob pattern (all when
    None)."""
    def wanted(c: Case) -> bool:
        if languages and c.language not in languages:
            return False
        names = (c.id, f"{c.language}:{c.id}")
        return not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns for n in names)
    return [c for c in cases if wanted(c)]


def constructs_of(case: Case) -> tuple[str, ...]:
    """The constructs the case's query uses (the language's construct extraction); `invalid query` when
    the reference cannot parse it (an expected-error vector)."""
    try:
        query = registry.parse(case.language, case.query)
        return tuple(registry.constructs(case.language, query, **case.options))
    except CepkitError:
        return ("invalid query",)
