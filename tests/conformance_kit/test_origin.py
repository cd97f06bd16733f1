"""Vectors say where they come from (issue 33, item 2): every vector of every loader carries a valid `origin`,
a vector without one is a load error naming its file and line, `--origin` selects, the summary counts per
origin, and the `extension` vectors are exactly those whose queries use cepkit-only syntax."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cepkit.conformance import (afa_loader, loader, origin, sase1_loader, sql_loader, tpstream_loader)
from cepkit.conformance.kit import vectors
from cepkit.core import registry
from cepkit.core.errors import CepkitError
from tests.conformance_kit.kit_run import kit

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "conformance" / "cases"
SEMANTICS = (ROOT / "docs" / "semantics.md").read_text(encoding="utf-8")


def every_vector() -> list:
    """Every vector every loader reads (those the kit runs and those only cepkit's own tests run)."""
    return (loader.load_cases() + sql_loader.load_sql_cases() + sql_loader.load_window_cases()
            + sql_loader.load_replay_cases() + tpstream_loader.load_cases() + afa_loader.load_cases()
            + sase1_loader.load_cases())


def test_every_vector_has_a_valid_origin():
    cases = every_vector()
    assert len(cases) > 450
    for c in cases:
        o = c.origin
        assert o is not None and o.kind in origin.KINDS, c.id
        if o.kind == "trino":
            assert re.search(r"Test\w+\.java#test\w+", o.detail), (c.id, o)
            assert o.detail.split("#")[1].split()[0] in c.source, (c.id, o, c.source)   # the source names it too
        if o.kind == "paper":
            assert o.detail.split()[0] in origin.PAPERS, (c.id, o)
        if o.kind == "cepkit":
            entry = re.escape(o.entry)
            assert re.search(rf"(^#+ {entry}[.\s])|(\*\*{entry}[.\s])", SEMANTICS, re.M), \
                f"{c.id}: docs/semantics.md has no entry {o.entry}"
        for peer, why in o.differs_from:
            assert o.kind == "cepkit" and peer in origin.PEERS and why, (c.id, o)


def _extension_syntax(language: str, query: str) -> set[str]:
    """The cepkit-only constructs a query uses: the language's own construct lister on the parsed query; for a
    query the parser refuses (an expected-error vector), its keywords outside string literals."""
    names = origin.EXTENSIONS.get(language, ())
    try:
        return set(registry.constructs(language, registry.parse(language, query))) & set(names)
    except CepkitError:
        text = re.sub(r"'[^']*'", "''", query).upper()
        return {n for n in names if re.search(r"\b" + n.replace(" ", r"\s+") + r"\b", text)}


def test_extension_vectors_are_exactly_those_using_cepkit_only_syntax():
    by_syntax, by_origin = set(), set()
    for c in vectors.all_cases():
        if c.variant_of is not None:
            continue
        if isinstance(c.query, str) and _extension_syntax(c.language, c.query):
            by_syntax.add(c.id)
        if c.origin.kind == "extension":
            by_origin.add(c.id)
    assert by_syntax, "no vector uses an extension: the scan is broken"
    assert by_origin - by_syntax == set(), "marked extension, but the query uses no cepkit-only syntax"
    assert by_syntax - by_origin == set(), "cepkit-only syntax, but the origin is not extension"


def test_the_scan_sees_each_extension_construct():
    query = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a ALL MATCHES SKIP_TILL_ANY_MATCH "
             "PATTERN (A B) WITHIN 5 DEFINE A AS true, B AS true)")
    assert {"ALL MATCHES", "WITHIN", "SKIP_TILL_ANY_MATCH"} <= _extension_syntax("sql", query)
    assert _extension_syntax("sql", query.replace("ALL MATCHES SKIP_TILL_ANY_MATCH", "ONE ROW PER MATCH")
                             .replace("WITHIN 5", "")) == set()


# a shipped file per loader, read back without the first case's origin
LOADERS = {
    "sase_cc05_seq_ab_strategies.yaml": lambda p: loader.load_file(p),
    "sql/standard.yaml": lambda p: sql_loader.load_sql_cases(p.parent),
    "windows/thesis_agg.yaml": lambda p: sql_loader.load_window_cases(p.parent),
    "replay/thesis_replay.yaml": lambda p: sql_loader.load_replay_cases(p.parent),
    "tpstream/tp_matching.yaml": lambda p: tpstream_loader.load_file(p),
    "afa/afa_spec_cases.yaml": lambda p: afa_loader.load_file(p),
    "sase1/sase1_rules.yaml": lambda p: sase1_loader.load_file(p),
}


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_a_vector_without_origin_is_a_load_error_naming_file_and_line(name, tmp_path):
    text = (CASES / name).read_text(encoding="utf-8")
    lines = text.split("\n")
    first_id = next(n for n, line in enumerate(lines, 1) if re.match(r"\s*- id:", line))
    drop = next(n for n, line in enumerate(lines) if re.match(r"\s+origin:", line))
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if name.startswith("afa/"):
        shutil.copytree(CASES / "afa" / "afas", path.parent / "afas")
    LOADERS[name](CASES / name)   # the shipped file loads
    path.write_text("\n".join(lines[:drop] + lines[drop + 1:]), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))}:{first_id}\b.*origin") as err:
        LOADERS[name](path)
    assert "missing" in str(err.value) or "must be one of" in str(err.value), err.value


@pytest.mark.parametrize("value, message", [
    ("upstream", "unknown origin 'upstream'"),
    ("trino testSimpleQuery", "File.java#method"),
    ("paper §4 Fig. 3", "names the paper"),
    ("paper sase-sigmod08", "names the paper"),
    ("cepkit because", "docs/semantics.md entry"),
    ("", "'origin' must be one of"),
])
def test_a_malformed_origin_says_what_it_needs(value, message, tmp_path):
    path = tmp_path / "one.yaml"
    path.write_text("cases:\n  - id: X1\n    title: t\n    source: s\n"
                    f"    origin: {value!r}\n"
                    "    language: sase\n    query: PATTERN SEQ(A a)\n"
                    "    events: [{id: x1, type: A, ts: 1}]\n    expected: [{a: [x1]}]\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))}:2: case 'X1': .*{re.escape(message)}"):
        loader.load_file(path)


@pytest.mark.parametrize("extra, message", [
    ("    origin: sql2016\n    differs_from: {trino: why}\n", "goes with origin cepkit"),
    ("    origin: cepkit A6 why\n    differs_from: {flink: why}\n", "unknown peer 'flink'"),
    ("    origin: cepkit A6 why\n    differs_from: {trino: ''}\n", "give the reason"),
])
def test_differs_from_is_a_cepkit_vector_naming_a_peer_and_why(extra, message, tmp_path):
    path = tmp_path / "one.yaml"
    path.write_text("cases:\n  - id: X1\n    title: t\n    source: s\n" + extra
                    + "    language: sase\n    query: PATTERN SEQ(A a)\n"
                    "    events: [{id: x1, type: A, ts: 1}]\n    expected: [{a: [x1]}]\n", encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)):
        loader.load_file(path)


def test_a_cepkit_vector_differing_from_trino_says_why():
    c = next(c for c in sql_loader.load_sql_cases() if c.id == "TL-duplicate-order-key-refused")
    assert c.origin.kind == "cepkit" and dict(c.origin.differs_from)["trino"]


def _collected(text: str, language: str) -> set[str]:
    return set(re.findall(rf"conformance/cases::{language}::(\S+)", text))


def test_origin_selects(capsys):
    want = {c.id for c in sql_loader.load_sql_cases() if c.origin.kind in ("trino", "sql2016")}
    code, text = kit(capsys, "--language", "sql", "--origin", "trino", "--origin", "sql2016", "--",
                     "--collect-only", "-q")
    assert code == 0, text
    assert _collected(text, "sql") == want and len(want) > 150
    code, text = kit(capsys, "--language", "sql", "--origin", "trino,sql2016", "--", "--collect-only", "-q")
    assert _collected(text, "sql") == want


def test_origin_selects_under_plain_pytest(tmp_path):
    want = {c.id for c in tpstream_loader.load_cases() if c.kind == "match" and c.origin.kind == "cepkit"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "cepkit.conformance.kit.plugin", "-p",
                           "no:cacheprovider", "--kit-language", "tpstream", "--kit-origin", "cepkit",
                           "--collect-only", "-q", str(vectors.cases_dir())],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = {name.split(":")[0] for name in _collected(proc.stdout, "tpstream")}
    assert got == want and want


def test_an_unknown_origin_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        kit(capsys, "--origin", "trino,flink")
    assert exc.value.code == 2
    assert "unknown origin flink" in capsys.readouterr().err


def test_the_summary_counts_per_origin(capsys):
    want = {k: sum(1 for c in vectors.all_cases(["sase"]) if c.variant_of is None and c.origin.kind == k)
            for k in ("cepkit", "paper")}
    code, text = kit(capsys, "--language", "sase", "--origin", "cepkit,paper", "-q")
    assert code == 0, text
    rows = dict(re.findall(r"^(cepkit|paper)\s+(\d+)\s+0\s+0\s+0$", text, re.M))
    assert {k: int(v) for k, v in rows.items()} == want


def test_the_origin_table_of_the_docs_counts_the_kit_vectors():
    """docs/conformance.md "Where each vector comes from": each origin's count and the per-language counts
    are the kit's vectors now (it said 0 sase1 vectors long after the jar's were added)."""
    from collections import Counter

    from cepkit.conformance.kit.protocol import vector_of

    found = [vector_of(c) for c in vectors.all_cases()]
    text = (ROOT / "docs" / "conformance.md").read_text()
    table = dict(re.findall(r"^\| `(\w+)` \|.*\| (\d+) \|$", text, re.M))
    assert {k: int(v) for k, v in table.items()} == Counter(v.origin.split(" ")[0] for v in found)
    per_language = Counter(v.language for v in found)
    said = re.search(r"The counts are the kit's (\d+) vectors on this commit, every language's: ([^;]+);", text)
    assert said and int(said.group(1)) == len(found)
    assert {k: int(n) for k, n in re.findall(r"(\w+) (\d+)", said.group(2).replace("\n", " "))} == per_language
