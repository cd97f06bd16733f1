"""ONE ROW PER MATCH output under AFTER MATCH SKIP PAST LAST ROW / TO NEXT ROW against a driver built on
Python's `re` (independent of the matcher): random patterns, row-local DEFINEs, random rows."""
from __future__ import annotations

import re

from hypothesis import given, settings

from cepkit.front.sql.patterns import variables
from cepkit.front.sql.printer import pattern_text
from cepkit.reference.sql.run import run_rows
from tests.sql.strategies import VARS, patterns, to_python_re
from tests.sql.test_matcher_differential import local_defines, rows_st

from hypothesis import strategies as st


def _define_text(allowed):
    parts = []
    for var, vals in sorted(allowed.items()):
        cond = " OR ".join(f"v = {x}" for x in sorted(vals)) or "v < 0"
        parts.append(f"{var} AS {cond}")
    return ("DEFINE " + ", ".join(parts)) if parts else ""


@settings(deadline=None, max_examples=max(50, settings().max_examples // 2))
@given(patterns(), local_defines, rows_st, st.sampled_from(["PAST LAST ROW", "TO NEXT ROW"]))
def test_one_row_per_match_equals_re_driver(pattern, allowed, values, skip):
    used = {v.name for v in variables(pattern)}
    allowed = {k: v for k, v in allowed.items() if k in used}
    width = len(VARS) + 2
    text = "".join("<" + "".join(var if (var not in allowed or x in allowed[var]) else "." for var in VARS) + ">"
                   for x in values)

    def atom(var):
        k = VARS.index(var)
        return "<" + "[^>]" * k + var + "[^>]" * (len(VARS) - k - 1) + ">"

    rx = re.compile(to_python_re(pattern, atom))
    want, pos, number = [], 0, 1
    while pos < len(values):
        m = rx.match(text, pos * width)
        if m is None:
            pos += 1
            continue
        end = m.end() // width
        want.append((number, pos if end > pos else None, end - 1 if end > pos else None, end - pos))
        number += 1
        pos = pos + 1 if end == pos or skip == "TO NEXT ROW" else end
    query = (f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY i MEASURES MATCH_NUMBER() AS mn, FIRST(i) AS s, "
             f"LAST(i) AS e, COUNT(*) AS n ONE ROW PER MATCH AFTER MATCH SKIP {skip} "
             f"PATTERN ({pattern_text(pattern)}) {_define_text(allowed)})")
    got = run_rows(query, ["i", "v"], [{"i": i, "v": x} for i, x in enumerate(values)])
    assert list(got.rows) == want, query
