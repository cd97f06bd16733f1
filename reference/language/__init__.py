"""Query languages of cepkit: every surface syntax parses to the one AST in `ast`."""
from __future__ import annotations

from reference.errors import QueryError
from reference.language.ast import Query

LANGUAGES = ("sase",)


def parse(text: str, language: str = "sase") -> Query:
    """Parse and validate a query; QueryError (with line and column) on any mistake."""
    if language != "sase":
        raise QueryError(f"unknown query language '{language}'", expected=list(LANGUAGES))
    from reference.language.sase import parse_sase
    from reference.language.validate import validate

    return validate(parse_sase(text))
