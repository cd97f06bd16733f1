"""A fast first run: the columnar output rows equal the row-by-row ones, the session
settings, partition sizing, and the measure of what tasks compiled (cepkit.spark_jobs.warmup.counting)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cepkit.core.match import json_safe
from cepkit.core.match_table import unjson
from cepkit.spark_jobs import job as J
from cepkit.spark_jobs import session as S
from cepkit.spark_jobs import typed_output as TO
from cepkit.spark_jobs import warmup as W
from cepkit.core.match_json import float_json


def test_float_json_is_json_dumps_of_each_value():
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.standard_normal(5000) * 10.0 ** rng.integers(-9, 22, 5000),
                             [0.0, -0.0, 3.0, -7.0, 1e15, 1e16, 9999999999999998.0, 1e-4, 0.99999e-4, 2.0 ** 53,
                              1 / 3, np.inf, -np.inf, np.nan]])
    assert float_json(values).to_pylist() == [json.dumps(json_safe(float(v)), allow_nan=False) for v in values]


@pytest.mark.parametrize("values", ["typed", "exact-json"])
@pytest.mark.parametrize("engine", ["optimized", "reference"])
@pytest.mark.parametrize("id_is_int", [True, False])
def test_columnar_rows_equal_row_by_row_rows(engine, id_is_int, values):
    """A match table's rows written column by column equal its Match rows written one by one, ids and values
    (VALUE structs compared as the values they hold: a whole rational is its integer, either way)."""
    import cepkit
    from benchmarks import spark_demo as demo
    from benchmarks.workloads.stock import generate
    from cepkit.core.readers import from_pandas
    from cepkit.spark_jobs.tasks import TaskSpec, matches_to_arrow

    text = demo.QUERY3.read_text()
    program = cepkit.compile(text, engine=engine)
    table = program.run(from_pandas(generate(3000, symbols=2, seed=7, volume_max=1010), ts_unit="min"))
    assert len(table) > 100
    spec = TaskSpec(query=text, engine=engine, selection="all", ts_col="ts", id_col="id", type_col="type",
                    default_type=None, ts_unit="min", type_names=("stock",), group_cols=("symbol",),
                    variables=tuple(program.variables), returns=tuple(r.name for r in program.query.returns),
                    id_is_int=id_is_int, values=values)
    columnar, by_row = matches_to_arrow(spec, table), matches_to_arrow(spec, list(table))
    assert columnar.schema == by_row.schema
    for name in columnar.schema.names:
        a, b = columnar.column(name), by_row.column(name)
        if a.type == TO.VALUE:
            assert TO.struct_values(a) == TO.struct_values(b), name
        elif name in spec.returns:   # exact JSON text
            assert [unjson(json.loads(x)) for x in a.to_pylist()] == [unjson(json.loads(x)) for x in b.to_pylist()]
        else:
            assert a.equals(b), name


def test_partitions_follow_the_data_and_the_cores():
    assert J.partition_count(4_000, 2) == 1
    assert J.partition_count(200_000, 2) == 2
    assert J.partition_count(10_000_000, 2) == 2 * J.PARTITIONS_PER_CORE


def test_job_settings_reuse_warm_workers_and_share_the_caches():
    conf = S.job_settings("local[3,2]", {"NUMBA_CACHE_DIR": "/c/numba", "CEPKIT_CACHE": "/c/gen"})
    assert conf["spark.python.worker.reuse"] == "true"
    assert conf["spark.python.daemon.module"] == "cepkit.spark_jobs.worker_daemon"
    assert conf["spark.sql.shuffle.partitions"] == "6"
    assert conf["spark.executorEnv.NUMBA_CACHE_DIR"] == "/c/numba"
    assert conf["spark.executorEnv.CEPKIT_CACHE"] == "/c/gen"
    assert [S.master_cores(m) for m in ("local", "local[4]", "local[2,3]")] == [1, 4, 2]


def test_counting_adds_the_compilations_a_task_causes_not_cache_loads(spark):
    """W.counting: a task that compiles a new Numba function adds one compilation per signature to the
    accumulator, through a real Spark stage (mapInArrow) and called directly (a pandas group's result);
    a task that only calls an already compiled function adds none."""
    import pyarrow as pa
    from numba import njit

    def fresh(batches):
        double = njit(lambda x: 2 * x)   # a new function: compiled in the worker, once per signature
        for rb in batches:
            yield pa.RecordBatch.from_pydict({"v": [int(double(v)) for v in rb.column(0).to_pylist()]})
            double(1.5)

    compiled = spark.sparkContext.accumulator(0)
    df = spark.createDataFrame([(1,), (2,)], "v long").coalesce(1)
    rows = df.mapInArrow(W.counting(fresh, compiled), "v long").collect()
    assert sorted(r.v for r in rows) == [2, 4] and compiled.value == 2   # int64 and float64

    ready = njit(lambda x: x + 1)
    ready(1)
    local = spark.sparkContext.accumulator(0)
    assert W.counting(lambda frame: ready(frame), local)(41) == 42 and local.value == 0
    assert W.counting(lambda frame: njit(lambda x: x - 1)(frame), local)(43) == 42 and local.value == 1


def test_the_workers_started_early_serve_the_matching_stage(spark):
    """start_workers' job starts the Python workers a `mapInArrow` stage uses (Spark keeps one worker daemon
    per kind of Python job: the workers of an RDD job, which it ran before, did not serve the matching stage,
    whose first tasks then started a daemon and imported everything again)."""
    import os

    import pyarrow as pa

    thread = W.start_workers(spark)
    thread.join(timeout=120)
    assert thread.pids, "the warm-up job did not run"

    def pid(batches):
        for _ in batches:
            pass
        yield pa.RecordBatch.from_pydict({"pid": [os.getpid()]})

    cores = spark.sparkContext.defaultParallelism
    used = {r["pid"] for r in spark.range(4 * cores, numPartitions=cores).mapInArrow(pid, "pid long").collect()}
    assert used <= set(thread.pids), (used, thread.pids)


def test_the_worker_daemon_leaves_no_parser_to_build_and_numba_initialised():
    """worker_daemon.preload, in a fresh process (as the daemon the workers fork from): afterwards a task
    parsing its query in any language the jobs run builds no parser (lark), and Numba's extensions are
    initialised (a forked worker inherits both instead of paying for them in its first task)."""
    import subprocess
    import sys

    probe = ("import lark\n"
             "from cepkit.spark_jobs.worker_daemon import PARSED, preload\n"
             "preload()\n"
             "built = []\n"
             "init = lark.Lark.__init__\n"
             "lark.Lark.__init__ = lambda self, *a, **k: (built.append(1), init(self, *a, **k))[1]\n"
             "from cepkit.core import registry\n"
             "for lang, text in PARSED.items():\n"
             "    registry.parse(lang, text)\n"
             "from numba.core import entrypoints\n"
             "print(len(built), entrypoints._already_initialized, sorted(PARSED))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "True", "['sase',", "'sql',", "'tpstream']"]
