"""asv: peak memory (the benchmark process's maximum resident set during the run, asv's peakmem_) of the
optimized SASE+ engine on Query 3 and the optimized MATCH_RECOGNIZE engine, warm, on the inputs of
bench_sase.py and bench_sql.py. Not in the history subset."""
from __future__ import annotations

from . import bench_sase, bench_sql


class PeakMemory:
    params = (["sase-optimized", "sql-optimized"],)
    param_names = ["subject"]
    timeout = 300

    def setup(self, subject):
        self.bench = bench_sase.SasePlusEngines() if subject.startswith("sase") else bench_sql.MatchRecognizeEngines()
        self.bench.setup("optimized")

    def peakmem_run(self, subject):
        self.bench.program.run(self.bench.batch)
