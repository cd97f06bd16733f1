"""The docs site (mkdocs.yml, `make docs`): every page of docs/ is in the navigation, every tutorial picture
is made by scripts/make_doc_pictures.py, and mkdocs builds the site with --strict."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _nav_pages(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [p for item in node for p in _nav_pages(item)]
    if isinstance(node, dict):
        return [p for v in node.values() for p in _nav_pages(v)]
    return []


def test_nav_lists_every_page():
    nav = _nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"])
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(nav) == pages


def test_tutorial_pictures_come_from_the_script():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from make_doc_pictures import PLOTS
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    shown = {p.name for md in (DOCS / "tutorial").glob("*.md") for p in map(Path, _images(md.read_text()))}
    shown |= {Path(p).name for p in _images((DOCS / "index.md").read_text())}
    made = {f"{name}{suffix}" for name in PLOTS for suffix in (".png", ".html")}
    tutorial = {n for n in shown if not n.startswith("performance")}
    assert len(tutorial) >= 5, shown
    assert tutorial <= made, tutorial - made
    for name in made:
        assert (DOCS / "img" / "tutorial" / name).is_file(), name


def _images(text: str) -> list[str]:
    import re

    return re.findall(r"\]\(\.?\.?/?img/([^)]+)\)", text)


def test_mkdocs_builds_strict(tmp_path):
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent)) or shutil.which("mkdocs")
    if mkdocs is None:
        pytest.skip("mkdocs is not installed (the test and docs extras install mkdocs-material)")
    done = subprocess.run([mkdocs, "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
                          env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "tutorial" / "sase.html").is_file()
    assert (tmp_path / "site" / "img" / "tutorial" / "sase_query3.png").is_file()
