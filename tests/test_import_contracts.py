"""The layering, checked: the import contracts in pyproject.toml ([tool.importlinter], run by import-linter's
`lint-imports`) hold, the layers are folders (no module lists), and no module imports another module's
underscore name. Each check is also shown to fail on a tree that breaks it, so none can pass by checking
nothing. docs/architecture.md ("Layers") says what the layers are."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "pyproject.toml"
MOVED = tuple(sorted(p.name for p in (ROOT / "cepkit").iterdir() if p.is_symlink()))  # folders installed as cepkit.<folder> (cepkit/ links them)
CHECKED = ("cepkit",) + MOVED + ("benchmarks",)  # folders
PROJECT = ("cepkit", "benchmarks", "tests")  # import names


def _lint_imports(root: Path, config: Path) -> subprocess.CompletedProcess:
    """lint-imports over the packages under `root` (and nothing else on the path), without its cache."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code, "--no-cache", "--no-logo", str(config)], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)


def _settings() -> dict:
    return tomllib.loads(CONFIG.read_text(encoding="utf-8"))["tool"]["importlinter"]


def _layer_modules(layer: str) -> list[str]:
    """The modules of one layer of a layers contract ("a : b : (c)"; parentheses mark an optional one)."""
    return [name.strip().strip("()") for name in layer.replace("|", ":").split(":") if name.strip()]


def test_the_import_contracts_are_kept():
    done = _lint_imports(ROOT, CONFIG)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_the_contracts_name_folders():
    """No module lists: every module a contract names is a package (a folder), or `cepkit.*`, the modules
    directly in cepkit that no other layer names (tests/layering.py)."""
    items = []
    for contract in _settings()["contracts"]:
        items += [m for layer in contract.get("layers", ()) for m in _layer_modules(layer)]
        for field in ("source_modules", "forbidden_modules", "allowed_parts"):
            items += contract.get(field, [])
        items += [contract["within"]] if "within" in contract else []
    assert "cepkit.*" in items
    folders = {"cepkit": ROOT / "cepkit", "benchmarks": ROOT / "benchmarks", "tests": ROOT / "tests"}
    not_folders = [m for m in items if m != "cepkit.*" and not
                   (folders[m.split(".")[0]].joinpath(*m.split(".")[1:]) / "__init__.py").is_file()]
    assert not not_folders, f"contracts should name packages, not modules: {not_folders}"


def test_lint_imports_fails_on_an_upward_import(tmp_path):
    """A tree with every module the contracts name, one import from the ground floor up to the door, a fast
    engine importing a reference engine and gpu one outside its parts, under a copy of the project's
    contracts: lint-imports must report each broken contract."""
    settings = _settings()
    names = set(settings["root_packages"])
    for contract in settings["contracts"]:
        for layer in contract.get("layers", ()):
            names.update(_layer_modules(layer))
        names.update(contract.get("modules", ()))
        names.update(contract.get("source_modules", ()))
        names.update(contract.get("forbidden_modules", ()))
        names.update(contract.get("allowed_parts", ()))
    names.discard("cepkit.*")
    names.update({"cepkit.api", "cepkit.cli"})   # two modules of the door (cepkit.*)
    names.update({"cepkit.reference.afa.engine", "cepkit.gpu.host", "cepkit.optimized.kernel"})
    for name in sorted(names):
        parts = name.split(".")
        for k in range(1, len(parts)):
            package = tmp_path.joinpath(*parts[:k])
            package.mkdir(exist_ok=True)
            (package / "__init__.py").touch()
        if len(parts) == 1:
            tmp_path.joinpath(name).mkdir(exist_ok=True)
            tmp_path.joinpath(name, "__init__.py").touch()
        elif not tmp_path.joinpath(*parts).is_dir():
            tmp_path.joinpath(*parts[:-1], parts[-1] + ".py").touch()
    (tmp_path / "cepkit" / "core.py").unlink()  # the layer cepkit.core as a package, with one module going up
    (tmp_path / "cepkit" / "core").mkdir()
    (tmp_path / "cepkit" / "core" / "__init__.py").touch()
    (tmp_path / "cepkit" / "core" / "events.py").write_text("import cepkit.api\n")
    (tmp_path / "cepkit" / "newdoor.py").write_text("import cepkit.cli\n")   # a door module no list names
    (tmp_path / "cepkit" / "core" / "units.py").write_text("import cepkit.newdoor\n")
    (tmp_path / "cepkit" / "gpu" / "host.py").write_text("import cepkit.reference.sql\nimport cepkit.reference.afa.engine\n")
    (tmp_path / "cepkit" / "optimized" / "kernel.py").write_text("import cepkit.reference.sql\n")
    (tmp_path / "tests" / "layering.py").write_text((ROOT / "tests" / "layering.py").read_text(encoding="utf-8"))
    config = tmp_path / "pyproject.toml"
    config.write_text(CONFIG.read_text(encoding="utf-8"), encoding="utf-8")

    done = _lint_imports(tmp_path, config)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "BROKEN" in done.stdout and "cepkit.core.events -> cepkit.api" in done.stdout, done.stdout + done.stderr
    assert "cepkit.core.units -> cepkit.newdoor" in done.stdout, done.stdout
    assert "cepkit.gpu.host -> cepkit.reference.afa.engine" in done.stdout, done.stdout   # not one of its parts
    assert "cepkit.gpu.host -> cepkit.reference.sql" not in done.stdout, done.stdout      # one of its parts
    assert "cepkit.optimized.kernel -> cepkit.reference.sql" in done.stdout, done.stdout  # no reference at all


# ------------------------------------------------------------------ underscore names of other modules

def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(path: Path, root: Path) -> list[str]:
    """`from M import _x` and `M._x` (M a project module the file imports) in one file, as 'file:line: what'.
    A module may use its own underscore names; dunder names are public."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[0] in MOVED:
        parts.insert(0, "cepkit")  # reference/x.py is cepkit.reference.x
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    here = ".".join(parts)
    package = parts if is_package else parts[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found, names = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                module = ".".join(package[: len(package) - node.level + 1] + ([module] if module else []))
            if module.split(".")[0] not in PROJECT or module == here:
                continue
            for alias in node.names:
                if _private(alias.name):
                    found.append((node.lineno, f"from {module} import {alias.name}"))
                else:
                    names[alias.asname or alias.name] = f"{module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PROJECT:
                    bound = alias.asname or alias.name.split(".")[0]
                    names[bound] = alias.name if alias.asname else bound
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain, value = [node.attr], node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in names and names[value.id] != here:
                found.append((node.lineno, f"{names[value.id]}.{'.'.join(reversed(chain))}"))
    return [f"{path.relative_to(root)}:{line}: {what}" for line, what in sorted(found)]


def test_no_module_imports_another_modules_underscore_name():
    found = [v for package in CHECKED for path in sorted((ROOT / package).rglob("*.py"))
             for v in private_imports(path, ROOT)]
    assert not found, "make these names public (drop the underscore) or keep them in their module:\n" + \
        "\n".join(found)


def test_the_underscore_check_finds_both_forms(tmp_path):
    package = tmp_path / "cepkit" / "reference"
    package.mkdir(parents=True)
    (tmp_path / "cepkit" / "__init__.py").touch()
    (package / "__init__.py").touch()
    (package / "helpers.py").write_text("def _util():\n    return 1\n\n\nX = _util()\n")
    user = package / "user.py"
    user.write_text("from cepkit.reference.helpers import _util, X\nimport cepkit.reference.helpers as H\n"
                    "from . import helpers\n\n\ndef f():\n    return H._util() + helpers._util() + X.__class__\n")
    assert private_imports(user, tmp_path) == [
        "cepkit/reference/user.py:1: from cepkit.reference.helpers import _util",
        "cepkit/reference/user.py:7: cepkit.reference.helpers._util",
        "cepkit/reference/user.py:7: cepkit.reference.helpers._util",
    ]
    assert private_imports(package / "helpers.py", tmp_path) == []


# ------------------------------------------------------------------ import circles

def circles(graph) -> list[list[str]]:
    """The import circles of a grimp graph: its strongly connected components of two or more modules
    (imports inside functions count: a circle hidden in a function is still a circle)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.find_modules_directly_imported_by(step)))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circles():
    import grimp

    found = circles(grimp.build_graph("cepkit", cache_dir=None))
    assert found == [], "break these import circles (move what both sides need into a lower module):\n" + \
        "\n".join(" <-> ".join(c) for c in found)


def test_the_circle_check_finds_a_circle_hidden_in_a_function(tmp_path):
    import grimp

    package = tmp_path / "circ"
    package.mkdir()
    (package / "__init__.py").touch()
    (package / "a.py").write_text("from circ import b\n")
    (package / "b.py").write_text("def f():\n    from circ import a\n    return a\n")
    (package / "c.py").write_text("from circ import a\n")
    done = subprocess.run([sys.executable, "-c", "import grimp, json, sys; sys.path.insert(0, sys.argv[1]); "
                           "from tests.test_import_contracts import circles; "
                           "print(json.dumps(circles(grimp.build_graph('circ', cache_dir=None))))", str(ROOT)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == '[["circ.a", "circ.b"]]'


# ------------------------------------------------------------------ imports inside functions

def _lazy_imports():
    import importlib.util

    spec = importlib.util.spec_from_file_location("lazy_imports", ROOT / "scripts" / "lazy_imports.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_import_inside_a_function_says_why_it_is_lazy():
    """An import of a cepkit module inside a function is lazy on purpose (start-up, an extra, the one
    language used) and says so with `# lazy: <reason>`; any other belongs at the top of its module."""
    lazy = _lazy_imports()
    found = [f for package in MOVED + ("cepkit",) for path in sorted((ROOT / package).rglob("*.py"))
             if not path.is_symlink() for f in lazy.unexplained(path)]
    assert not found, "hoist these imports to the module's top, or say why they are lazy (# lazy: ...):\n" + \
        "\n".join(found)


def test_the_lazy_import_check_finds_an_unexplained_one(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("def f():\n    # lazy: start-up\n    from cepkit.core import registry\n"
                    "    from cepkit.core import units\n    return registry, units\n\n\n"
                    "def g():\n    x = 1\n    from cepkit.core import errors\n    return x, errors\n\n\n"
                    "def h():\n    from cepkit.core import limits  # lazy: start-up\n    return limits\n")
    assert _lazy_imports().unexplained(path) == [f"{path}:10: cepkit.core"]


def test_the_lazy_only_libraries_are_imported_inside_functions():
    """tqdm (the progress bars) loads when a bar is drawn, never when a module is imported (issue 34)."""
    lazy = _lazy_imports()
    found = [f for package in MOVED + ("cepkit",) for path in sorted((ROOT / package).rglob("*.py"))
             if not path.is_symlink() for f in lazy.eager(path)]
    assert not found, "\n".join(found)


def test_the_eager_import_check_finds_a_module_level_one(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("import tqdm\nif True:\n    from tqdm.auto import tqdm as bar\n\n\n"
                    "def f():\n    from tqdm import tqdm\n    return tqdm\n")
    assert [f.split(" (")[0] for f in _lazy_imports().eager(path)] == [f"{path}:1: tqdm", f"{path}:3: tqdm.auto"]
