"""The vectors ship inside the installed package: the kit reads them through the package (importlib.resources),
every file the loaders read is package data in pyproject.toml, and the AFA automata the vectors name lie
beside them."""
from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import conformance
from conformance import afa_loader, loader
from conformance.kit import vectors

ROOT = Path(__file__).resolve().parents[2]


def test_the_kit_reads_the_vectors_from_the_package():
    package = Path(conformance.__file__).resolve().parent
    assert vectors.cases_dir().resolve() == package / "cases" == loader.CASES_DIR
    assert afa_loader.CASES_DIR.parent == loader.CASES_DIR


def test_every_vector_file_is_package_data():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["conformance"]
    package = Path(conformance.__file__).resolve().parent
    files = [p.relative_to(package).as_posix() for p in (package / "cases").rglob("*") if p.is_file()]
    assert len(files) > 30
    unshipped = [f for f in files if not any(fnmatch.fnmatch(f, p) and f.count("/") == p.count("/") for p in patterns)]
    assert unshipped == []


def test_the_afa_vectors_name_files_inside_the_package():
    for path in (loader.CASES_DIR / "afa").glob("*.yaml"):
        for line in path.read_text().splitlines():
            if "afa_file:" in line:
                name = line.split("afa_file:", 1)[1].strip()
                assert (path.parent / name).is_file(), (path, name)
                # the copy beside the vectors is the example the docs show
                assert (path.parent / name).read_text() == (ROOT / "examples" / "afa" / Path(name).name).read_text()
