"""The engine registry and contract: languages, engines, refusals by construct, the feed / close loop."""
from __future__ import annotations

from pathlib import Path

import pytest

import cepkit
from cepkit.core import registry
from cepkit.core.errors import QueryError, Unsupported
from cepkit.core.readers import read_events
from cepkit.core.match_table import MatchTable

EX = Path(__file__).resolve().parents[2] / "examples"
QUERY3 = (EX / "query3.sase").read_text()
ANY_MATCH = "PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_any_match { [symbol] and b.price > a.price }\nWITHIN 1 h"


def test_unknown_language_names_the_known_ones():
    with pytest.raises(QueryError) as info:
        cepkit.compile(QUERY3, language="cobol")
    assert "unknown query language 'cobol'" in str(info.value)
    assert set(info.value.expected) == set(registry.LANGUAGES)


def test_unknown_engine_names_the_languages_engines():
    with pytest.raises(QueryError) as info:
        cepkit.compile(QUERY3, engine="quantum")
    assert "cannot run SASE+ queries" in str(info.value) and "optimized" in info.value.expected


@pytest.mark.parametrize("path, language", [
    ("query3.sase", "sase"), ("sase1_stock.query", "sase"), ("shoplifting.sase", "sase"),
    ("sql/v_shape.sql", "sql"), ("sql/crimes_listing31.sql", "sql"),
    ("tpstream/aggressive_drivers.tps", "tpstream"), ("afa/q1.afa.yaml", "afa"), ("afa/q3.afa.yaml", "afa"),
])
def test_language_from_text_and_suffix(path, language):
    assert registry.detect((EX / path).read_text()) == language
    assert registry.by_suffix(path) == language


def test_refusal_names_the_construct_its_position_and_the_engines_that_run_it():
    kleene = "PATTERN SEQ(Stock+ a[], Stock b)\nWHERE skip_till_any_match { b.price > a[a.LEN].price }"
    with pytest.raises(Unsupported) as info:
        cepkit.compile(kleene, engine="reference-tree")
    err = info.value
    assert err.construct == "Kleene closure" and (err.line, err.column) == (1, 13)
    assert "run it with: optimized, brute, optimized-eager, optimized-lazy, reference, reference-eager, reference-lazy" in str(err)
    with pytest.raises(Unsupported) as info:
        cepkit.compile(QUERY3, engine="reference-lazy")
    assert info.value.construct == "skip_till_next_match" and (info.value.line, info.value.column) == (3, 1)
    assert "reference-eager" not in str(info.value)  # eager runs Kleene closure, not skip_till_next_match


def test_every_registered_engine_of_a_language_is_an_engine_of_it():
    for (language, name), entry in registry.ENGINES.items():
        assert entry.language == language and entry.name == name
        assert registry.language(language)
        if language == "sase":
            engine = registry.get_engine(language, name)
            assert engine.name == name and engine.language == language


@pytest.mark.parametrize("engine", registry.engines_for("sase"))
def test_feed_in_pieces_equals_run(engine):
    batch = read_events(EX / "fig3_stream.csv")
    whole = cepkit.compile(ANY_MATCH, engine=engine).run(batch)
    program = cepkit.compile(ANY_MATCH, engine=engine)
    pieces = [program.feed(batch.slice(i, i + 3)) for i in range(0, len(batch), 3)] + [program.close()]
    assert all(isinstance(t, MatchTable) for t in pieces + [whole])
    assert MatchTable.concat(program.layout, pieces).canonical() == whole.canonical()
    assert len(whole) > 0


def test_language_option_must_match_the_engine():
    with pytest.raises(QueryError) as info:
        registry.get_engine("sase", "reference").compile(QUERY3, language="sql")
    assert "runs sase queries, not sql" in str(info.value)


def test_an_option_the_engine_does_not_take_is_a_query_error():
    with pytest.raises(QueryError) as info:
        cepkit.compile(QUERY3, engine="optimized", chunk_size=3)
    assert "engine 'optimized' has no option 'chunk_size'" in str(info.value) and "merge" in info.value.expected
    with pytest.raises(QueryError) as info:
        cepkit.compile((EX / "sql/v_shape.sql").read_text(), launch="batch")  # a gpu option
    assert "has no option 'launch' (it takes none)" in str(info.value)
