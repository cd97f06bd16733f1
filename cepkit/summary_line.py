"""`-q / --quiet`, and the summary line a command prints on stderr when it ends, which -q drops (as it drops the
progress display; warnings and errors stay)."""
from __future__ import annotations

import argparse
import sys


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """The -q / --quiet option of a subcommand."""
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress display and no summary line on stderr (warnings and errors stay)")


def quiet(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "quiet", False))


def summary_line(args: argparse.Namespace, line: str) -> None:
    """`line` on stderr, unless -q."""
    if not quiet(args):
        print(line, file=sys.stderr)
