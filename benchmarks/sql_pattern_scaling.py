"""How SQL mode's pattern matching scales with rows: the pattern program run by the lockstep VM.

    python -m benchmarks.sql_pattern_scaling [--rows N ...] [--repeat R]

Patterns on which a backtracker takes exponential time when they fail: `(A+)+ B` over n - 1 rows of A
then one B, and `(A | B)* C` over alternating A/B rows then one C; each has one match over all n rows.
Per pattern and row count it prints the VM's thread-instruction steps and the seconds of the match from
the first row (the VM alone; best of R), the seconds of the whole query (run_rows: ONE ROW PER MATCH with
a COUNT(*) measure, parsing included), and the seconds of the whole query when the last row is neither B
nor C, so that no start row matches (every start is tried; the VM skips the states of failed starts).
Steps are deterministic; seconds depend on the machine.
"""
from __future__ import annotations

import argparse
import time

from cepkit.front.sql.parse import parse
from cepkit.front.sql.program import compile_pattern
from cepkit.reference.sql.run import run_rows
from cepkit.reference.sql.vm import VM

CASES = {
    "(A+)+ B": ("A AS k = 'a', B AS k = 'b'", lambda n: ["a"] * (n - 1) + ["b"]),
    "(A | B)* C": ("A AS k = 'a', B AS k = 'b', C AS k = 'c'",
                   lambda n: (["a", "b"] * n)[:n - 1] + ["c"]),
}


def query(pattern: str, define: str) -> str:
    return (f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n "
            f"PATTERN ({pattern}) DEFINE {define})")


def measure(pattern: str, n: int, repeat: int) -> tuple[int, float, float, float]:
    define, kinds = CASES[pattern]
    rows = [{"ts": i, "k": k} for i, k in enumerate(kinds(n))]
    text = query(pattern, define)
    q = parse(text)
    program = compile_pattern(q.pattern)
    vm_s = float("inf")
    for _ in range(repeat):
        vm = VM(program, q.define_map, {})
        t0 = time.perf_counter()
        end = vm.first(rows, 0)[0]
        vm_s = min(vm_s, time.perf_counter() - t0)
        assert end == n, (pattern, n, end)
    t0 = time.perf_counter()
    table = run_rows(text, ["ts", "k"], rows)
    query_s = time.perf_counter() - t0
    assert table.records() == [{"n": n}], table.records()
    rows[-1] = {"ts": n - 1, "k": "x"}
    t0 = time.perf_counter()
    table = run_rows(text, ["ts", "k"], rows)
    none_s = time.perf_counter() - t0
    assert table.records() == [], table.records()
    return vm.steps, vm_s, query_s, none_s


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000, 10_000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"{'pattern':<12} {'rows':>8} {'steps':>10} {'steps/row':>9} {'vm s':>9} {'query s':>9} "
          f"{'no-match query s':>16}")
    for pattern in CASES:
        for n in args.rows:
            steps, vm_s, query_s, none_s = measure(pattern, n, args.repeat)
            print(f"{pattern:<12} {n:>8} {steps:>10} {steps / n:>9.2f} {vm_s:>9.4f} {query_s:>9.4f} "
                  f"{none_s:>16.4f}")


if __name__ == "__main__":
    main()
