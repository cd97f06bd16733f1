"""java.util.Random and SASE 1.0's stock stream generator, against values Java itself printed.

The expected values were printed by OpenJDK 17.0.15 (`java.util.Random`) from tiny programs run outside the
repository: `new Random(42)` then nextInt(), nextInt(10), nextInt(1000), nextInt(1024), nextLong(),
nextBoolean(), nextDouble(); `new Random(10)` then eight nextInt(100); `new Random(-7)` then
nextInt(2147483647) and nextInt(1500000000) (bounds whose rejection step matters). The first, -1170105035,
is also the widely quoted first value of `new Random(42).nextInt()`. The stream hash was printed by a Java
program that repeats SASE 1.0's StreamController.generateStockEventsWithIncreaseProbability for Q1's
configuration (h = h*31 + symbol, then price, then volume, as a Java long).
"""
from __future__ import annotations

import pytest

from cepkit.core.errors import QueryError
from cepkit.reference.sase1.java_random import JavaRandom
from cepkit.reference.sase1.stock_stream import StockStreamConfig, generate, parse_config


def test_random_42_matches_java():
    r = JavaRandom(42)
    assert r.next_int() == -1170105035
    assert r.next_int(10) == 3
    assert r.next_int(1000) == 248
    assert r.next_int(1024) == 49  # a power of two takes the high bits
    assert r.next_long() == 5694868678511409995
    assert r.next_boolean() is False
    assert r.next_double() == 0.7077105889551186


def test_random_bounded_sequences_match_java():
    r = JavaRandom(10)
    assert [r.next_int(100) for _ in range(8)] == [13, 80, 93, 90, 46, 56, 97, 88]
    r = JavaRandom(-7)
    assert r.next_int(2147483647) == 577934662 and r.next_int(1500000000) == 1445645590


def test_random_refuses_a_bound_that_is_not_positive():
    with pytest.raises(ValueError):
        JavaRandom(1).next_int(0)


def test_q1_stream_is_the_one_java_generates():
    config = parse_config("streamSize = 100000\nmaxPrice=1000\nnumOfSymbol = 2\nrandomSeed = 10\n"
                          "increaseProbability = 70\nend\nignored = 5\n")
    assert config == StockStreamConfig(100000, 1000, 2, 1000, 10, 70)
    d = generate(config)
    h, mask = 0, (1 << 64) - 1
    for s, p, v in zip(d["symbol"], d["price"], d["volume"]):
        h = (((h * 31 + s) * 31 + p) * 31 + v) & mask
    assert h - (1 << 64) == -7190356850318834298
    assert d["id"] == d["ts"] == list(range(100000)) and set(d["type"]) == {"stock"}


def test_uniform_prices_above_100_percent():
    d = generate(StockStreamConfig(streamSize=200, maxPrice=50, numOfSymbol=3))
    assert set(d["type"]) <= {"stock1", "stock2", "stock3"}  # SASE 1.0 names the type by the symbol then
    assert all(1 <= p <= 50 for p in d["price"]) and all(1 <= v <= 1000 for v in d["volume"])
    assert [f"stock{s}" for s in d["symbol"]] == d["type"]


@pytest.mark.parametrize("text, words", [
    ("streamSize 10\nend\n", "line 1"),
    ("streamSize = ten\nend\n", "whole number"),
    ("colour = 3\nend\n", "unknown stream parameter"),
    ("maxPrice = 3000000000\nend\n", "outside Java's int"),      # looped forever (issue 30)
    ("maxPrice = 4294967296\nend\n", "outside Java's int"),      # wrote negative prices
    ("streamSize = -2147483649\nend\n", "outside Java's int"),
])
def test_bad_config_is_a_clear_error(text, words):
    with pytest.raises(QueryError, match=words):
        parse_config(text)


def test_writes_csv(tmp_path):
    from cepkit.reference.sase1.__main__ import main

    config = tmp_path / "s.stream"
    config.write_text("streamSize = 5\nrandomSeed = 3\nincreaseProbability = 50\nend\n")
    assert main([str(config), str(tmp_path / "out.csv")]) == 0
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0] == "id,ts,type,symbol,price,volume" and len(lines) == 6
    assert main([str(tmp_path / "missing.stream"), str(tmp_path / "x.csv")]) != 0


def test_the_largest_java_int_bound_and_a_config_that_is_not_utf8(tmp_path):
    from cepkit.reference.sase1.stock_stream import read_config

    prices = generate(parse_config("streamSize = 50\nmaxPrice = 2147483647\nend\n"))["price"]
    assert all(1 <= p <= 2147483647 for p in prices) and len(set(prices)) > 40
    path = tmp_path / "c.stream"
    path.write_bytes(b"streamSize = 10\n\xff\nend\n")
    with pytest.raises(QueryError, match="not UTF-8") as raised:
        read_config(path)
    assert (raised.value.line, raised.value.column) == (2, 1)


def test_the_stream_is_generated_piece_by_piece(tmp_path):
    """A stream of any size is written without holding it: pieces of at most `size` events that join into
    the one stream (a streamSize near 2^31 built lists of every event and the process was killed)."""
    from cepkit.reference.sase1.stock_stream import COLUMNS, chunks

    config = parse_config("streamSize = 25\nrandomSeed = 7\nincreaseProbability = 60\nend\n")
    pieces = list(chunks(config, size=10))
    assert [len(p["id"]) for p in pieces] == [10, 10, 5]
    whole = generate(config)
    assert {c: sum((p[c] for p in pieces), []) for c in COLUMNS} == {c: whole[c] for c in COLUMNS}
