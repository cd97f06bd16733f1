"""asv: the output writers, `cepkit.output.write_matches` (what `cepkit run --format F -o FILE` calls, in every
commit since the CLI's first) writing an output-heavy Kleene query's matches (benchmarks/output_heavy.py's
query, 60,000 stock events, 4 symbols; the reference engine's matches, made in setup) to a file as JSON lines,
CSV and Parquet. `Writers` is in the history subset."""
from __future__ import annotations

import os
import tempfile

from ._kit import compile_program, events, size, source, stock

EVENTS = 60_000
_MATCHES: dict = {}   # made once per process (asv redoes setup before every sample)


class Writers:
    params = (["jsonl", "csv", "parquet"],)
    param_names = ["format"]
    number = 1
    repeat = (3, 8, 8.0)
    warmup_time = 0.0
    timeout = 300

    def setup(self, fmt):
        try:
            from cepkit.output import write_matches
        except ImportError as exc:
            raise NotImplementedError(f"no cepkit.output.write_matches: {exc}") from exc
        QUERY = source("benchmarks/output_heavy.py").QUERY

        self.write = write_matches
        if not _MATCHES:
            program = compile_program(QUERY, "sase", "reference")
            _MATCHES["run"] = program, program.run(events(stock(size(EVENTS), symbols=4, seed=7), "sase",
                                                            "reference", program))
        self.program, self.matches = _MATCHES["run"]
        self.dir = tempfile.mkdtemp(prefix="cepkit-asv-out-")
        self.path = os.path.join(self.dir, f"matches.{fmt}")
        self.write(self.matches, fmt, self.path, self.program)   # first write: imports, lazy set-up

    def teardown(self, fmt):
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)

    def time_write(self, fmt):
        self.write(self.matches, fmt, self.path, self.program)

    def track_matches_per_s(self, fmt):
        from ._kit import best_seconds

        return len(self.matches) / best_seconds(lambda: self.write(self.matches, fmt, self.path, self.program))

    track_matches_per_s.unit = "matches/s"
