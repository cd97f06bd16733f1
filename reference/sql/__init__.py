"""MATCH_RECOGNIZE (SQL:2016 row pattern recognition) with the thesis' WITHIN and all-matches modes."""
from cepkit.front.sql.parse import parse
from cepkit.reference.sql.run import run_query, run_rows

__all__ = ["parse", "run_query", "run_rows"]
