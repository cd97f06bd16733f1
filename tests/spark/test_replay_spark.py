"""Index-pruned offline replay on Spark (`cepkit spark index`, `cepkit spark replay`): its output equals a full
scan's on Spark, the reference replay's and the SQL reference engine's; it reads fewer row groups; a stale
side table and missing paths are clear errors (docs/semantics.md SP-R)."""
from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import cepkit
from cepkit.cli import main
from cepkit.core.match import canonical_key, json_safe
from cepkit.core.readers import from_pandas
from tests.spark.helpers import single_table, value_types

QUERY = """SELECT * FROM trades MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES A.ts AS a_ts, D.ts AS d_ts, COUNT(C.*) AS waited, PREV(A.p) AS before, NEXT(D.v) AS after
  ALL MATCHES CONTIGUOUS
  PATTERN (A B C* D) WITHIN 12
  DEFINE A AS p < 4, B AS v > 400, D AS p > 60
)"""


def rows_of(matches) -> list:
    """Matches (engine contract) as comparable rows: bindings, ts, payload as JSON."""
    return sorted((m.key(), int(m.ts), tuple(json.dumps(json_safe(v), default=str, allow_nan=False)
                                             for _, v in m.payload)) for m in matches)


def spark_rows(out_dir, variables=("A", "B", "C", "D"), returns=("a_ts", "d_ts", "waited", "before", "after")):
    """The replay's typed output (SP-R7) in rows_of' form (the typed cells as their values' JSON)."""
    from tests.spark.helpers import cell_json

    frame = pd.read_parquet(out_dir)
    return sorted((canonical_key({v: list(r[v]) for v in variables if r[v] is not None and len(r[v])}),
                   int(r["ts"]), tuple(cell_json(r[c]) for c in returns)) for r in frame.to_dict("records"))


@pytest.fixture(scope="module")
def store(tmp_path_factory, spark):
    """A reference store (5 files of 6 row groups of 10 events; ties in ts) with the Spark side table."""
    from cepkit.spark_replay_cli import spark_index
    from cepkit.reference.replay.store import write_store

    rng = np.random.default_rng(7)
    n = 300
    frame = pd.DataFrame({"ts": np.cumsum(rng.integers(0, 3, n)), "id": np.arange(5000, 5000 + n),
                          "p": rng.integers(0, 100, n), "v": rng.integers(0, 1000, n)})
    root = tmp_path_factory.mktemp("replay") / "store"
    write_store(from_pandas(frame, type_col=None, default_type="e"), root, block_size=10, blocks_per_file=6,
                secondary=["p"])
    spark_index(str(root), ["p"], spark=spark)
    return root, frame


def test_replay_equals_full_scan_and_reference_and_reads_fewer_blocks(store, tmp_path, spark, capsys):
    from cepkit.spark_replay_cli import spark_replay
    from cepkit.reference.replay.plan import plan
    from cepkit.reference.replay.store import Store

    root, frame = store
    query = tmp_path / "q.sql"
    query.write_text(QUERY)
    assert main(["spark", "replay", str(query), str(root), str(tmp_path / "out"), "--engine", "reference"]) == 0
    err = capsys.readouterr().err
    reference_plan = plan(QUERY, Store(root))
    total = len(reference_plan.store.blocks)
    assert f"index read {len(reference_plan.blocks)} of {total} blocks" in err
    assert len(reference_plan.blocks) < total
    full, _ = spark_replay(QUERY, str(root), str(tmp_path / "full"), method="none", engine="reference", spark=spark)
    assert full.mode == "full scan" and full.blocks_read == total

    replayed = spark_rows(tmp_path / "out")
    assert replayed == spark_rows(tmp_path / "full")
    single = cepkit.run(QUERY, frame, engine="reference")
    expected = rows_of(single)
    assert expected and replayed == expected
    # the values typed as `cepkit run --format parquet` types them (SP-R7), not JSON text
    returns = ["a_ts", "d_ts", "waited", "before", "after"]
    assert value_types(pq.read_table(tmp_path / "out"), returns) == value_types(single_table(single), returns)
    assert rows_of(cepkit.run(QUERY, str(root), engine="replay")) == expected


def test_a_changed_data_file_makes_the_index_stale(store, tmp_path):
    from cepkit.spark_replay_cli import spark_replay
    from cepkit.spark_jobs.index_files import StaleIndex

    root, _ = store
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)   # sizes and mtimes kept: the copy's index is fresh
    path = copy / "part-00002.parquet"
    table = pq.read_table(path)
    p = table.column("p").to_pylist()
    p[3] = (p[3] + 50) % 100
    pq.write_table(table.set_column(table.schema.get_field_index("p"), "p", [p]), path, row_group_size=10)
    with pytest.raises(StaleIndex, match="part-00002.parquet' changed since it was indexed"):
        spark_replay(QUERY, str(copy), str(tmp_path / "out"), engine="reference")
    assert not (tmp_path / "out").exists()


def test_missing_paths_and_unplannable_queries_are_clear_errors(store, tmp_path, capsys):
    root, _ = store
    query = tmp_path / "q.sql"
    query.write_text(QUERY)
    assert main(["spark", "index", str(tmp_path / "nowhere")]) == 3
    assert "does not exist" in capsys.readouterr().err
    unordered = tmp_path / "unordered"
    unordered.mkdir()
    pq.write_table(pa.table({"ts": [1, 3, 2], "id": [1, 2, 3], "p": [5, 6, 7]}), unordered / "a.parquet")
    assert main(["spark", "index", str(unordered)]) == 3
    assert "row group 0, row 3: events are not in timestamp order" in capsys.readouterr().err
    assert not (unordered / "_cepkit_index").exists()
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copy(root / "part-00000.parquet", bare / "part-00000.parquet")
    assert main(["spark", "replay", str(query), str(bare), str(tmp_path / "out")]) == 3
    assert "has no index: build it with `cepkit spark index" in capsys.readouterr().err
    one_row = tmp_path / "one.sql"
    one_row.write_text(QUERY.replace("ALL MATCHES CONTIGUOUS", "ONE ROW PER MATCH"))
    assert main(["spark", "replay", str(one_row), str(root), str(tmp_path / "out")]) == 2
    assert "spark replay cannot run this query: index-based replay needs ALL MATCHES" in capsys.readouterr().err
    numbered = tmp_path / "numbered.sql"
    numbered.write_text(QUERY.replace("A.ts AS a_ts", "MATCH_NUMBER() AS a_ts"))
    assert main(["spark", "replay", str(numbered), str(root), str(tmp_path / "out"), "--engine", "reference"]) == 2
    assert "does not support MATCH_NUMBER in MEASURES" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not os.path.exists(root / "_cepkit_index" / "out")
