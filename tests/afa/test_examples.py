"""The example AFAs load, and run from files."""
from __future__ import annotations

from pathlib import Path

from reference.afa.afafile import load_afa

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "afa"


def load_example(name: str):
    return load_afa(EXAMPLES / f"{name}.afa.yaml")
