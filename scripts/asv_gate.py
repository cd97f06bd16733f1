"""`make bench-check`: asv's own regression gate (`asv continuous`) between the merge base with main and the
working tree, on the gate subset of benchmarks/asv (docs/performance.md "Performance over time").

asv measures commits, not a working tree: the working tree (tracked changes and untracked files that git does
not ignore) is written as a commit object whose parent is HEAD, through a temporary index, and kept under
refs/asv/worktree (not a branch; HEAD, the index and the files are untouched). A clean tree is HEAD itself.
The gate's results go to .asv/gate-results (a configuration written beside asv.conf.json's, the same
environments under .asv/env), never into the committed history in benchmarks/results.

The timed parts are measured in the benchmark process's CPU time (CEPKIT_ASV_TIMER=cpu, benchmarks/asv/_kit.py):
the history is wall time, but on a shared 2-core machine the wall time of the same commit varies by 2x with
the other jobs' load, while the CPU time a change adds or removes stays put (a slowdown made of waiting, a
sleep, is not seen by this gate). Each benchmark takes 8 samples a side (-a repeat=8): asv calls a difference
only where the samples' Mann-Whitney test gives p < 0.002, which needs at least 7 a side; with fewer it
falls back to comparing 99 % intervals, which 3 noisy samples never separate.

Exit status: asv continuous's, non-zero when a benchmark of the subset got slower by more than FACTOR (and
beyond the noise of its samples); asv prints the table of the changed benchmarks, by name.

    python scripts/asv_gate.py [--base REF] [--factor 1.2] [--bench REGEX] [--machine NAME] [--asv PATH]
                               [--env-dir DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The gate subset: each language's engines, timed warm (about 2 minutes a commit here).
GATE_BENCH = (r"(SasePlusEngines|Sase1Engines|LazyEngines|AfaEngines|TPStreamEngines|MatchRecognizeEngines)"
              r"\.time_run")


def git(*args: str, env: dict | None = None) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def worktree_commit() -> str:
    """HEAD when the working tree is clean, else a commit of the working tree (parent HEAD), kept under
    refs/asv/worktree so that asv (and git gc) can reach it."""
    if not git("status", "--porcelain", "--untracked-files=normal"):
        return git("rev-parse", "HEAD")
    with tempfile.TemporaryDirectory(prefix="asv-gate-") as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=str(Path(tmp) / "index"))
        git("read-tree", "HEAD", env=env)
        git("add", "-A", env=env)
        tree = git("write-tree", env=env)
    commit = git("commit-tree", tree, "-p", "HEAD", "-m", "asv gate: the working tree")
    git("update-ref", "refs/asv/worktree", commit)
    return commit


def gate_config(env_dir: str | None = None) -> Path:
    """asv.conf.json with the gate's own results folder, every path absolute (asv reads paths relative
    to the configuration file)."""
    text = (ROOT / "asv.conf.json").read_text(encoding="utf-8")
    conf = json.loads(re.sub(r"^\s*//.*$", "", text, flags=re.M))
    for key in ("repo", "benchmark_dir", "env_dir", "html_dir"):
        conf[key] = str((ROOT / conf[key]).resolve())
    conf["results_dir"] = str(ROOT / ".asv" / "gate-results")
    if env_dir:
        conf["env_dir"] = str((ROOT / env_dir).resolve())
    path = ROOT / ".asv" / "gate.conf.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(conf, indent=2), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="the commit to compare against (default: the merge base of HEAD with main)")
    ap.add_argument("--factor", default="1.2", help="the slowdown that fails the gate (default 1.2: 20 %%)")
    ap.add_argument("--bench", default=GATE_BENCH, help="the benchmarks (asv --bench regex)")
    ap.add_argument("--repeat", default="8", help="samples of each benchmark on each side (default 8: asv calls a "
                    "difference only where its Mann-Whitney test gives p < 0.002, which 3 samples a side never can)")
    ap.add_argument("--machine", default=os.environ.get("ASV_MACHINE", "bench-2core"))
    ap.add_argument("--asv", default=str(Path(sys.executable).with_name("asv")))
    ap.add_argument("--env-dir", help="asv's environments for the gate (default: asv.conf.json's, .asv/env; another "
                    "folder lets the gate run while a history is being recorded there)")
    args = ap.parse_args(argv)
    base = args.base or git("merge-base", "main", "HEAD")
    head = worktree_commit()
    print(f"asv gate: {git('rev-parse', '--short', base)} (base) against {head[:8]} "
          f"({'HEAD' if head == git('rev-parse', 'HEAD') else 'the working tree'}), factor {args.factor}",
          flush=True)
    subprocess.run([args.asv, "machine", "--yes", "--machine", args.machine], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    os.environ["CEPKIT_ASV_TIMER"] = "cpu"
    cmd = [args.asv, "--config", str(gate_config(args.env_dir)), "continuous", "--factor", args.factor,
           "-a", f"repeat={args.repeat}", "--bench", args.bench, "--machine", args.machine, "--show-stderr", base, head]
    return subprocess.run(cmd, cwd=ROOT).returncode


if __name__ == "__main__":
    raise SystemExit(main())
