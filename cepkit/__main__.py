"""`python -m cepkit ...`: the `cepkit` command (cepkit.cli)."""
import sys

from cepkit.cli import main

sys.exit(main())
