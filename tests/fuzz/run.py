"""`make fuzz`: N generated inputs across every language and input kind, with counts of what came back.

    python -m tests.fuzz.run --inputs 10000 [--save DIR] [--seed S]
    python -m tests.fuzz.run --replay tests/fuzz/reproducers

Prints inputs per language / kind / events format, the exit-code histogram, and each distinct failure
(traceback, hang, memory, unnamed error, bad exit code, silently changed answer, non-JSON output) with
its count and first input; exits 1 if there is any. `--save` writes the first input of each failure as a
reproducer folder (query, events, case.json); `--replay` reruns such folders and prints what they give now.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed as hyp_seed, settings

from tests.fuzz.driver import ROW_OR_COLUMN, TIME_LIMIT_S, Outcome, run_cli
from tests.fuzz.properties import not_json, refused, usage_refused, well_handled
from tests.fuzz.seeds import LANGS, SUFFIX
from tests.fuzz.strategies import Case, changed_cases, event_cases, option_cases, query_cases

KINDS = {"query": (query_cases, well_handled, 1.0), "events": (event_cases, well_handled, 1.0),
         "options": (option_cases, usage_refused, 0.5), "changed": (changed_cases, refused, 1.0)}


class Tally:
    def __init__(self) -> None:
        self.inputs: Counter = Counter()
        self.formats: Counter = Counter()
        self.exits: Counter = Counter()
        self.kinds: Counter = Counter()
        self.failures: Counter = Counter()
        self.first: dict[str, tuple[Case, Outcome]] = {}
        self.file_only: Counter = Counter()     # exit 3 messages naming neither a row nor a column
        self.seconds = 0.0

    def add(self, group: str, case: Case, out: Outcome, problem: str | None) -> None:
        self.inputs[group] += 1
        self.formats[case.events_name.removeprefix("events.")] += 1
        self.exits[out.code if out.code is not None else out.kind] += 1
        self.kinds[out.kind] += 1
        self.seconds += out.seconds
        if out.code == 3 and not ROW_OR_COLUMN.search(out.stderr):
            text = out.stderr.strip().splitlines()[-1].split(": ", 2)[-1] if out.stderr.strip() else ""
            self.file_only[re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'…'", text))[:100]] += 1
        if problem is not None:
            self.failures[problem] += 1
            old = self.first.get(problem)
            if old is None or len(case.query) + len(case.events) < len(old[0].query) + len(old[0].events):
                self.first[problem] = (case, out)


def fuzz(total: int, seed: int, langs: list[str], kinds: list[str]) -> Tally:
    tally = Tally()
    weights = {(lang, k): KINDS[k][2] for lang in langs for k in kinds}
    unit = total / sum(weights.values())
    done = 0.0
    for (lang, kind), w in weights.items():
        strategy, prop, _ = KINDS[kind]
        n = max(1, round(done + unit * w) - round(done))   # the counts add up to `total`
        done += unit * w

        @hyp_seed(seed)
        @settings(max_examples=n, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(strategy(lang))
        def one(case: Case) -> None:
            out, problem = prop(case)
            tally.add(f"{lang} {kind}", case, out, problem)

        start = time.monotonic()
        try:
            one()
        except KeyboardInterrupt:
            print("  interrupted: the counts below are those of the inputs run so far", flush=True)
            break
        print(f"  {lang:8} {kind:8} {tally.inputs[f'{lang} {kind}']:6} inputs {time.monotonic() - start:7.1f} s",
              flush=True)
    return tally


def expectation(problem: str) -> dict:
    if problem.startswith(("silently", "changed")):
        return {"exit": [3], "or_unchanged": True}
    if problem.startswith("usage"):
        return {"exit": [2]}
    if problem.startswith("output is not JSON"):
        return {"exit": [0, 2, 3, 4], "strict_json": True}
    return {"exit": [0, 2, 3, 4]}


def save(folder: Path, problem: str, case: Case, out: Outcome) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"query{SUFFIX[case.lang]}").write_bytes(case.query)
    (folder / case.events_name).write_bytes(case.events)
    (folder / "case.json").write_text(json.dumps({
        "lang": case.lang, "query": f"query{SUFFIX[case.lang]}", "events": case.events_name,
        "args": list(case.args), "defect": problem, "how": case.how, "expect": expectation(problem),
        "observed": {"exit": out.code, "kind": out.kind, "error": out.error, "stderr": out.stderr[-500:]}},
        indent=2, ensure_ascii=False) + "\n")


def report(t: Tally, wall: float) -> int:
    print(f"\n{sum(t.inputs.values())} inputs in {wall:.0f} s ({t.seconds:.0f} s inside the CLI)")
    print("by language and kind: " + ", ".join(f"{k} {v}" for k, v in sorted(t.inputs.items())))
    print("events formats: " + ", ".join(f"{k} {v}" for k, v in sorted(t.formats.items())))
    print("exit codes: " + ", ".join(f"{k}: {v}" for k, v in sorted(t.exits.items(), key=str)))
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(t.kinds.items())))
    groups = Counter()
    for problem, n in t.failures.items():
        head = problem.split(" ")[0] if not problem.startswith(("silently", "changed", "output")) else \
            problem.split(" (")[0]
        groups[head] += n
    if t.file_only:
        print(f"exit 3 naming only the file ({sum(t.file_only.values())}; accepted, listed for review):")
        for text, n in t.file_only.most_common(8):
            print(f"  {n:5}  {text}")
    print("failures: " + (", ".join(f"{k} {v}" for k, v in sorted(groups.items())) or "none"))
    for problem, n in t.failures.most_common():
        case, out = t.first[problem]
        print(f"  {n:5}  {problem}\n         e.g. {case.lang}: {case.how[:160]}")
    return 1 if t.failures else 0


def run_saved(d: Path, c: dict, events: str) -> Outcome:
    query = (d / c["query"]).read_bytes().decode("utf-8", "replace")
    return run_cli(["run", str(d / c["query"]), str(d / events), "--no-progress", *c["args"]], query,
                   timeout=c.get("timeout_s", TIME_LIMIT_S))


def holds(d: Path, c: dict, out: Outcome) -> bool:
    """Whether a reproducer's run meets its `expect`: an exit code of `exit` with a message naming what is
    wrong, or (`or_unchanged`) exit 0 with the answer of the unchanged events (`unchanged`, else none
    checked), or (`or_stdout_contains`) exit 0 with that text in the output; `stdout_empty`, `strict_json`
    add conditions."""
    e = c["expect"]
    if out.failed:
        return False
    if e.get("stdout_empty") and out.stdout:
        return False
    if e.get("strict_json") and not_json(out, tuple(c["args"])) is not None:
        return False
    if out.code in e["exit"]:
        return True
    if out.code == 0 and e.get("or_stdout_contains"):
        return e["or_stdout_contains"] in out.stdout
    if out.code == 0 and e.get("or_unchanged") and c.get("unchanged"):
        base = run_saved(d, c, c["unchanged"])
        return base.code == 0 and base.stdout == out.stdout
    return False


def replay(folder: Path) -> int:
    """Rerun saved reproducers; exit 1 if any still shows its defect."""
    bad = 0
    for case_file in sorted(folder.glob("*/case.json")):
        c = json.loads(case_file.read_text())
        out = run_saved(case_file.parent, c, c["events"])
        ok = holds(case_file.parent, c, out)
        bad += not ok
        last = out.stderr.strip().splitlines()[-1][:150] if out.stderr.strip() else ""
        print(f"{'fixed' if ok else 'STILL'}  {case_file.parent.name}: exit {out.code} ({out.kind}) "
              f"{out.error[:100]} {last}")
    print(f"{bad} of {len(list(folder.glob('*/case.json')))} reproducers still show their defect")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz.run", description=__doc__.splitlines()[0])
    p.add_argument("--inputs", type=int, default=10000, help="how many inputs in all (default 10000)")
    p.add_argument("--seed", type=int, default=14, help="random seed (default 14)")
    p.add_argument("--langs", default=",".join(LANGS), help=f"languages (default {','.join(LANGS)})")
    p.add_argument("--kinds", default=",".join(KINDS), help=f"input kinds (default {','.join(KINDS)})")
    p.add_argument("--save", type=Path, help="write the first input of each failure here")
    p.add_argument("--replay", type=Path, help="rerun the reproducer folders under this folder instead")
    a = p.parse_args(argv)
    if a.replay:
        return replay(a.replay)
    start = time.monotonic()
    tally = fuzz(a.inputs, a.seed, a.langs.split(","), a.kinds.split(","))
    code = report(tally, time.monotonic() - start)
    if a.save:
        for i, (problem, (case, out)) in enumerate(sorted(tally.first.items())):
            save(a.save / f"{i:02d}-{case.lang}", problem, case, out)
        print(f"reproducers: {a.save}")
    return code


if __name__ == "__main__":
    sys.exit(main())
