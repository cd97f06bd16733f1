"""Check that the tests can fail: apply one known mutation at a time to the reference engine and count
how many random examples of the NFA^b-vs-brute-force property, and how many conformance cases, see it.

Run from the repository root: .venv/bin/python scripts/mutation_check.py [EXAMPLES]
Each source file is restored after its mutant, also on error or Ctrl-C.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RUNS = "reference/nfab/runs.py"
MUTANTS = [
    ("unconstrained proceed (CC14's reading)", RUNS,
     "if peek or (not t and not g):", "if True:"),
    ("leading negation anchored on the first event", RUNS,
     "not self.window.inside_back(ts[lastp], lastp, ts[p], p)", "not self.window.inside_back(ts[first], first, ts[p], p)"),
    ("trailing negation never blocks", RUNS,
     "elif not any(self._blocks(neg, b, pos) for neg in self.nfa.negations if neg.gap == self.nfa.n):", "elif True:"),
    ("partition contiguity ignores everything", RUNS,
     "g = not self._partition(b, pos)", "g = True"),
    ("middle negation gap includes its left end", RUNS,
     "for p in range(b[neg.gap - 1][-1] + 1, b[neg.gap][0]):", "for p in range(b[neg.gap - 1][-1], b[neg.gap][0]):"),
    ("no-op (control: must be seen by nothing)", RUNS,
     "if j > 0 and self._ignore(run, bound, pos):", "if (j > 0) and self._ignore(run, bound, pos):"),
]

PROPERTY = """
import sys
from hypothesis import given, settings
from tests.reference.sase_strategies import STRATEGIES, cases
from tests.reference.test_nfab_vs_brute import _keys, with_strategy
seen = [0]
for strategy in STRATEGIES:  # as CI runs it: the examples once per strategy
    @settings(max_examples=int(sys.argv[1]), database=None, deadline=None)
    @given(case=cases())
    def check(case):
        pattern, frame = case
        text = with_strategy(pattern["text"], strategy)
        seen[0] += _keys("reference", text, frame) != _keys("brute", text, frame)
    check()
print(seen[0])
"""


def main() -> None:
    examples = sys.argv[1] if len(sys.argv) > 1 else "1000"
    py = sys.executable
    for name, path, old, new in MUTANTS:
        file = Path(path)
        source = file.read_text()
        if source.count(old) != 1:
            sys.exit(f"mutant '{name}' no longer applies to {path}: update scripts/mutation_check.py")
        file.write_text(source.replace(old, new))
        try:
            diff = subprocess.run([py, "-c", PROPERTY, examples], capture_output=True, text=True).stdout.strip()
            conf = subprocess.run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "conformance",
                                   "-k", "reference"], capture_output=True, text=True).stdout
            failed = conf.splitlines()[-1].split(" failed")[0].split()[-1] if " failed" in conf else "0"
        finally:
            file.write_text(source)
        print(f"{name:48s} differential: {diff}/{4 * int(examples)} examples   conformance: {failed} cases fail")


if __name__ == "__main__":
    main()
