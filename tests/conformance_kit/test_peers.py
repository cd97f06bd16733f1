"""The kit against a real peer, pandas-match-recognize (the `peers` extra), on the sql vectors: every vector's
outcome is the committed one (docs/data/peers/pandas_mr.json), so a change of the kit, a vector or the peer shows;
every failure is classified and docs/peers.md is rendered from them. Skipped, saying why, without the peer."""
from __future__ import annotations

import importlib.util
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml

from cepkit.conformance.adapters import pandas_mr, report, results
from cepkit.conformance.kit import Unavailable, Vector
from tests.conformance_kit.kit_run import kit

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "data" / "peers"
COMMITTED = results.load(DATA / "pandas_mr.json")
CLASSIFIED = yaml.safe_load((DATA / "pandas_mr_failures.yaml").read_text())
PEER = importlib.util.find_spec("pandas_match_recognize") is not None


@pytest.mark.skipif(not PEER, reason="pandas-match-recognize is not installed (pip install 'cepkit[peers]')")
def test_pandas_mr_gives_the_committed_outcome_on_every_sql_vector(capsys, tmp_path):
    assert f"pandas-match-recognize {version('pandas-match-recognize')}" == COMMITTED["peer"], \
        "another version of the peer: rerun python scripts/peer_report.py --run"
    junit = tmp_path / "peer.xml"
    kit(capsys, "--adapter", "cepkit.conformance.adapters.pandas_mr:PandasMatchRecognize", "--language", "sql",
        "--timeout", "10", "-q", "--junitxml", str(junit))
    changed = results.differences(COMMITTED["vectors"], results.from_junit(junit))
    assert not changed, ("outcomes differ from docs/data/peers/pandas_mr.json (committed -> now); if the change is "
                         "right, rerun python scripts/peer_report.py --run and classify:\n" + "\n".join(changed))


def test_every_failure_of_the_peer_is_classified_and_the_page_is_current():
    # every failure is the peer's bug or a documented cepkit choice: none is the kit's or a vector's fault
    assert {v["class"] for v in CLASSIFIED["vectors"].values()} <= {"peer", "choice"}
    text, problems = report.page(ROOT / "docs" / "data" / "peers")   # both peers' sections
    assert not problems
    assert (ROOT / "docs" / "peers.md").read_text() == text, "docs/peers.md is stale: python scripts/peer_report.py"


def test_a_failure_left_unclassified_is_named():
    vectors_ = {"A": {"outcome": "failed"}, "B": {"outcome": "passed"}}
    found = report.problems(vectors_, {"bugs": {}, "vectors": {"B": {"class": "peer", "bug": "X"}}})
    assert found == ["A: failed, not classified", "B: classified, but passed", "B: peer bug 'X' is not listed under bugs"]
    trino = {"C": {"outcome": "failed", "origin": "trino T.java#m"}}
    assert report.problems(trino, {"bugs": {}, "vectors": {"C": {"class": "choice", "why": "w"}}}) == [
        "C: a cepkit choice is a vector of origin cepkit (this one: trino T.java#m)"]


def _vector(query: str, origin: str = "trino T.java#m", compares: bool = False) -> Vector:
    return Vector("v", "sql", query, {}, [], None, {}, origin, compares)


MR = "MATCH_RECOGNIZE (ORDER BY id PATTERN (A) DEFINE A AS true)"


@pytest.mark.parametrize("vector, construct", [
    (_vector(f"SELECT * FROM t {MR}", "extension ALL MATCHES, WITHIN; the expectation: cepkit SQ-N1"), "ALL MATCHES"),
    (_vector(f"WITH u AS (SELECT * FROM t) SELECT * FROM u {MR}"), "WITH"),
    (_vector(f"SELECT * FROM (SELECT * FROM t) {MR}"), "subquery"),
    (_vector(f"SELECT * FROM (VALUES 1, 2) {MR}"), "VALUES without column names"),
    (_vector(f"SELECT * FROM (VALUES (1, 2)) AS t {MR}"), "VALUES without column names"),
    (_vector(f"SELECT * FROM t {MR}", compares=True), "match bindings"),
])
def test_the_adapter_refuses_what_the_peer_does_not_read(vector, construct):
    assert pandas_mr.refusal(vector) == construct


@pytest.mark.parametrize("query", [f"SELECT * FROM t {MR}", f"SELECT * FROM (VALUES (1, 2)) t(id, v) {MR}",
                                   f"SELECT * FROM (VALUES (1, 2)) AS t (id, v) {MR}"])
def test_the_adapter_lets_the_peer_try_the_rest(query):
    assert pandas_mr.refusal(_vector(query)) is None


def test_without_the_package_the_adapter_is_unavailable(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas_match_recognize", None)
    with pytest.raises(Unavailable, match=r"not installed \(pip install 'cepkit\[peers\]'\)"):
        pandas_mr.PandasMatchRecognize()
