"""Query languages of cepkit: every surface syntax parses to the one AST in `ast`."""
from __future__ import annotations

from cepkit.core.errors import QueryError
from cepkit.front.language.ast import Query

LANGUAGES = ("sase",)


def parse(text: str, language: str = "sase", dialect: str | None = None) -> Query:
    """Parse and validate a query; QueryError (with line and column) on any mistake. `dialect` "sase1"
    reads it with SASE 1.0's behaviour, "sase+" (or None, for PATTERN ...) with the paper's."""
    if language != "sase":
        raise QueryError(f"unknown query language '{language}'", expected=list(LANGUAGES))
    # lazy: the AST modules of this package are imported without the parser (lark, the grammar)
    from cepkit.front.language.dialects import with_dialect
    from cepkit.front.language.sase import parse_sase
    from cepkit.front.language.validate import validate

    return with_dialect(validate(parse_sase(text)), dialect)
