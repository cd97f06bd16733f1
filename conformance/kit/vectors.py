"""The shipped vectors as harness Cases: every language's loader, read from the installed package."""
from __future__ import annotations

import fnmatch
import functools
import importlib
import importlib.resources
from pathlib import Path
from typing import Sequence

from cepkit.conformance.harness import Case
from cepkit.api import sase_dialect
from cepkit.core import registry
from cepkit.core.errors import CepkitError

LOADERS = {"sase": "cepkit.conformance.loader", "sql": "cepkit.conformance.sql_loader",
           "tpstream": "cepkit.conformance.tpstream_loader", "afa": "cepkit.conformance.afa_loader",
           "window": "cepkit.conformance.windows_loader",
           "sase1": "cepkit.conformance.sase1_loader"}   # the kit language each loader's cases are offered as
# a kit language that is not a registry language: the registry language its queries are of, and the suffix of
# its query file (SASE 1.0's `.query`: the text is read in the SASE 1.0 dialect)
DIALECTS = {"sase1": ("sase", ".query")}


def registry_language(language: str) -> str:
    """The registry language (core/registry.py) of a kit language's queries."""
    return DIALECTS[language][0] if language in DIALECTS else language


def query_suffix(language: str) -> str:
    """The suffix of a kit language's query file."""
    return DIALECTS[language][1] if language in DIALECTS else registry.language(language).suffixes[0]


def engine_languages(engine: str) -> list[str]:
    """The kit languages a registered engine runs the vectors of (those of the registry languages it runs)."""
    return [lang for lang in LOADERS if (registry_language(lang), engine) in registry.ENGINES]


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
        if languages and c.kit_language not in languages:
            return False
        if origins and origin_of(c) not in origins:
            return False
        names = (c.id, f"{c.kit_language}:{c.id}")
        return not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns for n in names)
    return [c for c in cases if wanted(c)]


def chosen(spec, languages: list[str] | None, patterns: list[str] | None,
           origin_texts: list[str] | None) -> tuple[list[str], tuple[str, ...] | None, list[Case]]:
    """What a run selects, for `cepkit conformance` and the kit's pytest options alike: the languages (given,
    else every one the engine `spec` runs), the origin kinds (None: all; ValueError for an unknown one) and
    the cases of those languages, patterns and kinds (`select`; the engine may still refuse some)."""
    from cepkit.conformance import origin   # lazy: parsed only when a run names origins

    languages = list(languages or [lang for lang in LOADERS if lang in spec.languages()])
    kinds = origin.parse_kinds(origin_texts) if origin_texts else None
    return languages, kinds, select(all_cases(languages), languages, patterns, kinds)


def origin_of(case: Case) -> str:
    """The kind of the case's origin (`trino`, `paper`, ...; `?` where a loader gave none)."""
    return case.origin.kind if case.origin is not None else "?"


def constructs_of(case: Case) -> tuple[str, ...]:
    """The constructs the case's query uses (the language's construct extraction); `invalid query` when
    the reference cannot parse it (an expected-error vector)."""
    try:
        dialect = case.options.get("dialect")   # a sase1 vector's query is read in its dialect
        query = (sase_dialect(case.language, case.query, dialect) if dialect
                 else registry.parse(case.language, case.query))
        return tuple(registry.constructs(case.language, query, **case.options))
    except CepkitError:
        return ("invalid query",)
