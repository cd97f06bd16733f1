"""The imports of cepkit modules inside functions, in the package's folders, that do not say why they are lazy:
each should carry `# lazy: <reason>` on its line, or on the line before its group of imports (issue 28,
step 4: imports inside functions only where they are lazy on purpose, each with a one-line reason). Also the
imports of LAZY_ONLY libraries outside functions: those load only when used (issue 34: tqdm, when a bar is
drawn), never when a module is imported.

    python scripts/lazy_imports.py [TREE]     # lists them; exit 1 when there are any
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path


LAZY_ONLY = ("tqdm",)   # libraries cepkit's modules import only inside the functions that use them


def folders(tree: Path) -> tuple[str, ...]:
    """cepkit and the folders cepkit/ links (installed as cepkit.<folder>)."""
    return ("cepkit",) + tuple(sorted(p.name for p in (tree / "cepkit").iterdir() if p.is_symlink()))


def unexplained(path: Path) -> list[str]:
    """'file:line: module' of each function-level `cepkit` import in the file without a reason."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    spans = {k for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
             for k in range(node.lineno - 1, node.end_lineno)}   # the lines every import statement spans
    found = []
    seen: set[int] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or id(node) in seen:
                continue
            seen.add(id(node))
            module = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            if isinstance(node, ast.ImportFrom) and node.level or (module or "").split(".")[0] != "cepkit":
                continue
            if not has_reason(lines, spans, node.lineno - 1, node.end_lineno - 1):
                found.append(f"{path}:{node.lineno}: {module}")
    return found


def eager(path: Path) -> list[str]:
    """'file:line: module' of each import of a LAZY_ONLY library outside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside = {id(node) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
              for node in ast.walk(fn)}
    found = []
    for node in ast.walk(tree):
        if id(node) in inside or not isinstance(node, (ast.Import, ast.ImportFrom)) or getattr(node, "level", 0):
            continue
        for module in ([node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]):
            if (module or "").split(".")[0] in LAZY_ONLY:
                found.append(f"{path}:{node.lineno}: {module} (imported at start-up; import it where it is used)")
    return found


def has_reason(lines: list[str], spans: set[int], first: int, last: int) -> bool:
    """Whether the import on lines first..last, an import of its group (the imports right above it), or the
    comment line above the group says `# lazy`."""
    if any("# lazy" in lines[k] for k in range(first, last + 1)):
        return True
    k = first - 1
    while k >= 0 and k in spans:
        if "# lazy" in lines[k]:
            return True
        k -= 1
    return k >= 0 and lines[k].strip().startswith("# lazy")


def main() -> int:
    tree = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    found = [f for folder in folders(tree) if (tree / folder).is_dir()
             for path in sorted((tree / folder).rglob("*.py")) if not path.is_symlink()
             for f in unexplained(path) + eager(path)]
    print("\n".join(found) or "every import inside a function says why it is lazy")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
