"""The optimized TPStream engine returns a match from the feed in which its last situation ends, and
equals the reference on values the random streams do not draw: decimals, nulls, text, rationals."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cepkit
from cepkit.core.inputs import to_untyped_batch
from cepkit.core.match_table import MatchTable


def _rows(n: int, seed: int) -> pd.DataFrame:
    rnd = np.random.default_rng(seed)
    speed = np.repeat(rnd.choice([60.5, 70.25, 71.0, 88.125, np.nan], size=n), 1)[:n]
    kind = rnd.choice(["hard", "soft", "", "7"], size=n).astype(object)
    kind[rnd.random(n) < 0.1] = None
    return pd.DataFrame({"ts": np.arange(1, n + 1) * 2, "car": rnd.integers(0, 3, size=n),
                         "x": rnd.integers(-4, 5, size=n), "speed": speed, "kind": kind})


QUERIES = [
    """FROM s PARTITION BY car DEFINE A AS speed > 70.3, B AS kind = 'hard' OR kind = 7
       PATTERN A overlaps;during;meets;before;starts;equals B WITHIN 20
       RETURN avg(A.speed) AS avg_speed, first(B.kind) AS k, min(A.speed) AS low, count(A.speed) AS n""",
    """FROM s DEFINE A AS x / 3 > 1/2, B AS x % 2 = 1 AND NOT kind = '', C AS -x * 2 >= x - 3
       PATTERN A before;meets;overlaps B AND B before;after;during;contains C WITHIN 30
       RETURN sum(A.x) AS total, last(C.kind) AS k, max(B.x) AS top""",
]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("chunk", [1, 4, 1000])
def test_decimals_text_nulls_and_rationals_equal_the_reference(query, seed, chunk):
    batch = to_untyped_batch(_rows(120, seed))
    expected = cepkit.compile(query, language="tpstream", engine="reference").run(batch)
    program = cepkit.compile(query, language="tpstream", engine="optimized")
    tables = [program.feed(batch.slice(i, min(len(batch), i + chunk))) for i in range(0, len(batch), chunk)]
    got = MatchTable.concat(program.layout, tables + [program.close()])
    assert got.canonical() == expected.canonical()
    assert len(expected) > 0


def test_a_match_comes_with_the_event_that_ends_its_last_situation():
    """Fed one event at a time, each feed returns exactly the reference's matches detected at its time."""
    q = "FROM s PARTITION BY car DEFINE A AS x > 0, B AS x < 2 PATTERN A overlaps;before;meets B WITHIN 30"
    batch = to_untyped_batch(_rows(80, 5))
    expected = cepkit.compile(q, language="tpstream", engine="reference").run(batch)
    program = cepkit.compile(q, language="tpstream", engine="optimized")
    for i in range(len(batch)):
        got = program.feed(batch.slice(i, i + 1))
        now = [m for m in expected if m.ts == int(batch.ts[i])]
        assert got.canonical() == MatchTable.from_matches(expected.layout, now).canonical()
    assert len(program.close()) == 0   # runs still open at the end are no situations
    assert len(expected) > 0


EARLY_QUERIES = QUERIES + [
    # many buffered situations per step (binary searches), a delayed start, a maximum waiting for the end
    """FROM s PARTITION BY car DEFINE A AS x > 0 AT LEAST 4, B AS x < 2, C AS x % 2 = 0 AT MOST 6
       PATTERN A overlaps;before;meets;finished_by;contains B AND C before;after;overlapped_by;during A
       WITHIN 300 RETURN count(B.x) AS n, last(A.speed) AS s""",
    """FROM s DEFINE A AS x > 0, B AS x < 0 AT LEAST 3 PATTERN B after;met_by;overlapped_by;contains A WITHIN 300
       RETURN max(B.x) AS m""",
]


@pytest.mark.parametrize("query", EARLY_QUERIES)
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_early_output_equals_the_reference(query, seed, chunk):
    batch = to_untyped_batch(_rows(150, seed))
    expected = cepkit.compile(query, language="tpstream", engine="reference", mode="early").run(batch)
    program = cepkit.compile(query, language="tpstream", engine="optimized", mode="early")
    tables = [program.feed(batch.slice(i, min(len(batch), i + chunk))) for i in range(0, len(batch), chunk)]
    got = MatchTable.concat(program.layout, tables + [program.close()])
    assert got.canonical() == expected.canonical()
    assert any(dict(m.payload)[f"{n}.end"] is None for m in expected for n in ("A", "B"))   # ongoing members


def test_an_early_match_comes_with_the_event_at_its_detection_time():
    """Fed one event at a time, each feed returns exactly the reference's early matches detected at its time
    (an ongoing member's events up to then); close has none left."""
    q = "FROM s PARTITION BY car DEFINE A AS x > 0, B AS x < 2 PATTERN A overlaps;during;starts B WITHIN 30"
    batch = to_untyped_batch(_rows(80, 5))
    expected = cepkit.compile(q, language="tpstream", engine="reference", mode="early").run(batch)
    program = cepkit.compile(q, language="tpstream", engine="optimized", mode="early")
    for i in range(len(batch)):
        got = program.feed(batch.slice(i, i + 1))
        now = [m for m in expected if m.ts == int(batch.ts[i])]
        assert got.canonical() == MatchTable.from_matches(expected.layout, now).canonical()
    assert len(program.close()) == 0
    assert len(expected) > 0
