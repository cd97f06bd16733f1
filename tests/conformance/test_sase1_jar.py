"""The SASE 1.0 jar's vectors (conformance/cases/sase1/sase1_jar.yaml, scripts/sase1_vectors.py) are the jar's
answers: one of each query is rerun on the jar where Java and the jar exist (skipped, saying why, elsewhere).
Every one of them runs on cepkit's reference and optimized engines in tests/conformance/test_all_engines.py."""
from __future__ import annotations

import importlib.util
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from cepkit.conformance.adapters import sase1_jar as SJ
from cepkit.conformance.loader import match_key
from cepkit.conformance.sase1_loader import load_cases

ROOT = Path(__file__).resolve().parents[2]
JAR = os.environ.get("CEPKIT_SASE1_JAR", str(ROOT.parent / "shared" / "peers" / "sase1" / "sase.jar"))
SPEC = importlib.util.spec_from_file_location("sase1_vectors", ROOT / "scripts" / "sase1_vectors.py")
script = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(script)
JAR_CASES = [c for c in load_cases() if c.origin.kind == "sase1" and c.id.startswith("S1-JAR-")]


def test_the_jar_vectors_cover_strategies_kleene_and_sizes():
    assert len(JAR_CASES) >= 30
    for strategy in script.STRATEGIES.values():
        assert any(strategy in c.query for c in JAR_CASES), strategy
    assert any("+" in c.query for c in JAR_CASES) and any("+" not in c.query for c in JAR_CASES)
    assert len({(c.stream["randomSeed"], c.stream["streamSize"]) for c in JAR_CASES}) >= 5


@pytest.mark.parametrize("name", sorted(script.QUERIES))
def test_a_vector_of_each_query_is_the_jars_answer(name):
    why = SJ.missing("java", JAR, SJ.jeval_beside(JAR))
    if why:
        pytest.skip(why)
    case = next(c for c in JAR_CASES if c.id.startswith(f"S1-JAR-{name}-") and len(c.expected) < 100)
    names = SJ.variables(case.query)
    path = SJ.classpath(JAR, SJ.jeval_beside(JAR))
    got = [SJ.bindings(names, ids) for ids in SJ.jar_matches("java", path, case.query, case.stream)]
    assert Counter(match_key(m) for m in got) == Counter(match_key(m) for m in case.expected)


# the driver over a vector's listed events (Sase1JarEvents.java): what it writes and what it refuses, no Java needed

QUERY = "PATTERN SEQ(A+ a[], A b)\nWHERE skip-till-next-match\nAND [symbol]\nAND b.price = 0\nWITHIN 5\n"


def test_the_events_file_holds_each_event_at_its_position_with_the_stock_attributes():
    events = [{"id": "a1", "type": "A", "ts": 0, "symbol": 1, "price": 7, "volume": 3},
              {"id": "b1", "type": "A", "ts": 9, "symbol": -2, "price": 0}]            # volume unread: 0
    assert SJ.events_text(events, QUERY) == "id,ts,type,symbol,price,volume\n0,0,A,1,7,3\n1,9,A,-2,0,0\n"
    whole = "PATTERN SEQ(stock a, stock b)\nWHERE skip-till-next-match\nWITHIN 5\n"    # reads no attribute
    assert SJ.events_text([{"id": 5, "ts": 1}], whole, None, "stock") == SJ.EVENTS_HEADER + "\n0,1,stock,0,0,0\n"


@pytest.mark.parametrize("event, named", [
    ({"k": 1}, "event attribute 'k'"),                                  # StockEvent has no field for it: it reads 0
    ({"symbol": "Goog"}, "symbol 'Goog' that is not a Java int"),
    ({"price": 1.5}, "price 1.5 that is not a Java int"),
    ({"price": True}, "price True that is not a Java int"),
    ({"price": 2 ** 31}, "that is not a Java int"),
    ({"ts": 1.5}, "a timestamp 1.5 that is not a Java int"),
    ({"price": None}, "an event without price, which the query reads"),
    ({"type": "A B"}, "event type 'A B'"),
])
def test_events_the_jars_stock_event_cannot_carry_are_refused_by_name(event, named):
    row = {"id": "e1", "type": "A", "ts": 1, "symbol": 1, "price": 1, **event}
    with pytest.raises(SJ.CannotCarry, match=re.escape(named)):
        SJ.events_text([row], QUERY)


def test_a_query_the_jars_line_parser_would_misread_is_refused_by_name():
    assert SJ.layout_refusal(QUERY, SJ.variables(QUERY)) is None
    one_line = "PATTERN SEQ(A+ a[], A b) WHERE skip-till-next-match AND [symbol] WITHIN 5"
    assert "one clause a line" in SJ.layout_refusal(one_line, SJ.variables(one_line))
    other_names = QUERY.replace("a[]", "x[]")
    assert "not named a, b, c" in SJ.layout_refusal(other_names, SJ.variables(other_names))


def test_a_listed_event_vector_is_refused_when_the_events_cannot_be_carried_or_no_javac(tmp_path, capsys):
    case = {"language": "sase1", "options": {"dialect": "sase1"}, "query": QUERY, "stream": None,
            "events": [{"id": "e1", "type": "A", "ts": 1, "k": 1}], "read_options": {"type_col": "type"}}
    jar = tmp_path / "sase.jar"
    jar.write_bytes(b"not read: hashed only")
    assert SJ.answer(case, "java", "cp", 10, jar, cache=tmp_path) == SJ.EXIT_REFUSED
    assert "event attribute 'k'" in capsys.readouterr().err
    case["events"] = [{"id": "e1", "type": "A", "ts": 1, "symbol": 1, "price": 0}]
    assert SJ.answer(case, "java", "cp", 10, jar, javac=str(tmp_path / "no-javac"), cache=tmp_path) == SJ.EXIT_REFUSED
    assert "no javac to compile Sase1JarEvents.java" in capsys.readouterr().err
    case["read_options"]["ts_unit"] = "min"
    assert SJ.answer(case, "java", "cp", 10, jar, cache=tmp_path) == SJ.EXIT_REFUSED
    assert "timestamps in min" in capsys.readouterr().err
