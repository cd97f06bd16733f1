"""`python -m cepkit.reference.sase1 CONFIG.stream OUT.csv`: write the stock stream a SASE 1.0 `.stream` file
describes, as CSV (id, ts, type, symbol, price, volume)."""
from __future__ import annotations

import argparse
import sys

from cepkit.core.errors import CepkitError
from cepkit.reference.sase1.stock_stream import read_config, write_csv


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cepkit.reference.sase1", description=__doc__.split("\n\n")[0])
    parser.add_argument("config", help="a SASE 1.0 .stream file (streamSize = ..., randomSeed = ..., end)")
    parser.add_argument("output", help="the CSV file to write")
    args = parser.parse_args(argv)
    try:
        count = write_csv(read_config(args.config), args.output)
    except (CepkitError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 2)
    print(f"{count} events written to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
