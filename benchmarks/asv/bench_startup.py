"""asv: start-up, as a user meets it: the `cepkit` command of the environment, `cepkit --version` and a tiny
`cepkit run` (a two-event sequence over 10 events, CSV in, JSON lines out), each a fresh process. Where the
commit's CLI refuses the command line (exit 2: no such option or subcommand), the benchmark is skipped for
that commit. `StartUp` is in the history subset."""
from __future__ import annotations

import os
import subprocess
import tempfile

from ._kit import cepkit_script

QUERY = "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 5\n"
EVENTS = "id,ts,type,x\n" + "".join(f"{i},{i},{'AB'[i % 2]},{i % 3}\n" for i in range(10))


class StartUp:
    params = (["version", "tiny-run"],)
    param_names = ["command"]
    number = 1
    repeat = (4, 8, 10.0)
    warmup_time = 0.0
    timeout = 300

    def setup(self, command):
        script = cepkit_script()
        self.dir = tempfile.mkdtemp(prefix="cepkit-asv-start-")
        query, events = os.path.join(self.dir, "q.sase"), os.path.join(self.dir, "e.csv")
        with open(query, "w") as f:
            f.write(QUERY)
        with open(events, "w") as f:
            f.write(EVENTS)
        self.argv = ([str(script), "--version"] if command == "version"
                     else [str(script), "run", query, events, "--format", "jsonl"])
        probe = subprocess.run(self.argv, capture_output=True, text=True)
        if probe.returncode == 2:
            raise NotImplementedError(f"this commit's CLI refuses {self.argv[1:]}: {probe.stderr.strip()[-200:]}")
        if probe.returncode != 0:
            raise RuntimeError(f"{self.argv} exited {probe.returncode}: {probe.stderr[-500:]}")

    def teardown(self, command):
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)

    def time_command(self, command):
        subprocess.run(self.argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
