"""Small steps every `cepkit` command that runs a query shares: reading the query file, --limit and
--max-state / --max-memory as compile options, and the line that says a run stopped at --limit."""
from __future__ import annotations

import argparse
import sys

from cepkit.core.query_text import read_query_file

CHUNK_SIZE = 100_000  # events `cepkit run` reads and feeds at a time by default (docs/semantics.md SD1)


def read_query(path: str) -> str:
    """The query file's text (QueryError when it cannot be read or is not UTF-8, naming line and column)."""
    return read_query_file(path)


def limit_options(args: argparse.Namespace) -> dict:
    """`--limit` / `--max-state` / `--max-memory` as compile options (those given)."""
    return {k: v for k, v in (("limit", args.limit), ("max_state", args.max_state),
                              ("max_memory", getattr(args, "max_memory", None))) if v is not None}


def limited(args: argparse.Namespace, count: int) -> bool:
    """Whether the run ended at --limit; if so, says so on stderr."""
    if args.limit is not None and count >= args.limit:
        print(f"stopped after {args.limit} match{'es' if args.limit != 1 else ''} (--limit)", file=sys.stderr)
        return True
    return False
