"""The options of `cepkit spark run` for queries in any language (cepkit.spark_jobs.languages): the language, and
the AFA's key and flavour."""
from __future__ import annotations

import argparse

from cepkit import options
from cepkit.core.registry import LANGUAGES
from cepkit.core import registry
from cepkit.core.errors import Unsupported


def add_language_options(r: argparse.ArgumentParser) -> None:
    """Add --language, --key and --flavor to the `spark run` parser."""

    r.add_argument("--language", choices=sorted(n for n in LANGUAGES if n != "window"),
                   help="query language (default: from the query file's suffix, else from its text)")
    r.add_argument("--key", type=options.column,
                   help="AFA: the key column; one AFA runs per key value, punctuations and arc rows reach every key")
    r.add_argument("--flavor", choices=("basic", "ignorable", "seq", "cleanse"), help="AFA: the operator's flavour")


def language_kwargs(args: argparse.Namespace) -> dict:
    """run_job's keywords from those options (the language by the query file's suffix unless named).
    A SASE 1.0 query file (.query) is refused by name: the jobs ship query text, read in the SASE+ dialect."""
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.front.language.dialects import dialect_of_path

    if dialect_of_path(args.query) == "sase1" and (args.language or registry.by_suffix(args.query)) == "sase":
        raise Unsupported("spark", "SASE 1.0 dialect (a .query file; semantics S1)")

    return dict(language=args.language or registry.by_suffix(args.query), key=args.key, flavor=args.flavor)
