"""The vectors ship inside the installed package: the kit reads them through the package (importlib.resources),
every file the loaders read is package data in pyproject.toml, and the AFA automata the vectors name lie
beside them."""
from __future__ import annotations

import fnmatch
import subprocess
import tomllib
from pathlib import Path

import pytest

import cepkit.conformance as conformance
from cepkit.conformance import afa_loader, loader
from cepkit.conformance.kit import vectors

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("cepkit",) + tuple(sorted(p.name for p in (ROOT / "cepkit").iterdir() if p.is_symlink()))  # folders of the package


def test_the_kit_reads_the_vectors_from_the_package():
    package = Path(conformance.__file__).resolve().parent
    assert vectors.cases_dir().resolve() == package / "cases" == loader.CASES_DIR
    assert afa_loader.CASES_DIR.parent == loader.CASES_DIR


def _shipped(path: str, package_data: dict) -> bool:
    """Whether setuptools' package-data globs (pyproject.toml) put a repository file into the package."""
    for package, patterns in package_data.items():
        prefix = package.replace(".", "/") + "/"
        if prefix.split("/")[1] in PACKAGES[1:]:
            prefix = prefix.removeprefix("cepkit/")  # cepkit.conformance is the folder conformance/
        if path.startswith(prefix):
            rest = path[len(prefix):]
            if any(fnmatch.fnmatch(rest, p) and rest.count("/") == p.count("/") for p in patterns):
                return True
    return False


def test_every_data_file_is_package_data():
    """Every vector (and every grammar the parsers read) is in the package, not only in the source tree."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = subprocess.run(["git", "ls-files", *PACKAGES], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    data = [f for f in listed.stdout.splitlines()
            if not f.endswith((".py", "README.md")) and not (ROOT / f).is_symlink()]
    assert sum(f.startswith("conformance/cases/") for f in data) > 30
    assert [f for f in data if not _shipped(f, config["package-data"])] == []


def test_the_afa_vectors_name_files_inside_the_package():
    for path in (loader.CASES_DIR / "afa").glob("*.yaml"):
        for line in path.read_text().splitlines():
            if "afa_file:" in line:
                name = line.split("afa_file:", 1)[1].strip()
                assert (path.parent / name).is_file(), (path, name)
                # the copy beside the vectors is the example the docs show
                assert (path.parent / name).read_text() == (ROOT / "examples" / "afa" / Path(name).name).read_text()


VALID = """cases:
  - id: X1
    title: t
    source: s
    origin: cepkit A6 test
    language: sase
    query: PATTERN SEQ(A a)
    events: [{id: e1, type: A, ts: 1}]
    expected: [{a: [e1]}]
"""


@pytest.mark.parametrize("text, message", [
    (VALID + "  - id: X2\n    title: t\n    sourc: s\n", "bad.yaml:10: case 'X2': unknown key(s) sourc"),
    (VALID + "  - id: X2\n    title: [unclosed\n", "bad.yaml:12: invalid YAML"),
    (VALID.replace("ts: 1", "ts: one"), "bad.yaml:2: case 'X1': "),
])
def test_a_malformed_vector_file_names_the_file_and_the_line(tmp_path, text, message):
    (tmp_path / "bad.yaml").write_text(text)
    with pytest.raises(ValueError) as exc:
        loader.load_file(tmp_path / "bad.yaml")
    assert message in str(exc.value)
    assert len(loader.load_file(_write(tmp_path, VALID))) == 1


def _write(tmp_path, text):
    path = tmp_path / "good.yaml"
    path.write_text(text)
    return path


def test_a_malformed_sql_vector_names_the_line(tmp_path):
    from cepkit.conformance.sql_loader import load_sql_cases

    (tmp_path / "bad.yaml").write_text("cases:\n  - id: S1\n    title: t\n    source: s\n    query: SELECT 1\n"
                                       "    wrong: 1\n")
    with pytest.raises(ValueError, match=r"bad.yaml:2: case 'S1': "):
        load_sql_cases(tmp_path)
