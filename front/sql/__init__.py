"""MATCH_RECOGNIZE's front end: the parser, AST, printer, validation, the row pattern's Glushkov automaton,
and the table query (outer SELECT, subqueries, columns)."""
from cepkit.front.sql.parse import parse

__all__ = ["parse"]
