"""Imports inside functions in the package's folders, by what they import (cepkit modules, optional extras,
heavy libraries imported late for start-up, the rest): the figures of issue 28's step 4.

    python scripts/import_census.py [TREE]      # TREE: a checkout (default: this one)
"""
from __future__ import annotations

import ast
import collections
import sys
from pathlib import Path

FOLDERS = ("cepkit", "core", "front", "reference", "optimized", "gpu", "spark_jobs", "conformance")
OWN = ("cepkit", "core", "front", "reference", "optimized", "gpu", "spark_jobs", "conformance")  # before and after the rename
EXTRAS = ("pyspark", "pyopencl", "matplotlib", "mako", "py4j")
HEAVY = ("pandas", "pyarrow", "numba", "numpy", "lark", "yaml")


def census(tree: Path) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    for folder in FOLDERS:
        for path in sorted((tree / folder).rglob("*.py")) if (tree / folder).is_dir() else ():
            if path.is_symlink() or any(p.is_symlink() for p in path.parents if p != tree and tree in p.parents):
                continue
            seen: set[int] = set()
            for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for node in ast.walk(fn):
                    if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in seen and not \
                            (isinstance(node, ast.ImportFrom) and node.level):
                        seen.add(id(node))
                        top = (node.module if isinstance(node, ast.ImportFrom) else node.names[0].name).split(".")[0]
                        kind = "cepkit" if top in OWN else "extras" if top in EXTRAS else \
                            "heavy (start-up)" if top in HEAVY else "other"
                        counts[kind] += 1
    return counts


if __name__ == "__main__":
    found = census(Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve())
    print(", ".join(f"{k}: {v}" for k, v in sorted(found.items())), f"(all: {sum(found.values())})")
