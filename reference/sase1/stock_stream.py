"""SASE 1.0's stock stream generator (its StreamController, as its command-line UI calls it), driven by a
`.stream` configuration file, so that the streams SASE 1.0's examples and tests ran on are rebuilt exactly.

A `.stream` file holds `name = value` lines up to a line `end`: streamSize, maxPrice, numOfSymbol,
maxVolume, randomSeed, increaseProbability (defaults 10000, 100, 10, 1000, 11, 101). Event i has id and
timestamp i. With increaseProbability <= 100 each symbol's price walks: it starts at nextInt(1000), and an
event of the symbol raises it by 1..3 with that probability (percent), lowers it by 1..3 when the draw is
above (100 + increaseProbability) / 2, else keeps it; every event has type `stock`. Above 100 the prices
are uniform in [1, maxPrice] and the type is `stock<symbol>`.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Iterator

from cepkit.core.errors import QueryError
from cepkit.core.query_text import read_query_file
from cepkit.reference.sase1.java_random import JavaRandom

COLUMNS = ("id", "ts", "type", "symbol", "price", "volume")
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1   # Java's int: every parameter is one


@dataclass(frozen=True)
class StockStreamConfig:
    """The generator's parameters, named as in SASE 1.0's `.stream` files."""

    streamSize: int = 10000
    maxPrice: int = 100
    numOfSymbol: int = 10
    maxVolume: int = 1000
    randomSeed: int = 11
    increaseProbability: int = 101

    @classmethod
    def from_mapping(cls, values: dict) -> "StockStreamConfig":
        known = {f.name.lower(): f.name for f in fields(cls)}
        changes = {}
        for key, value in values.items():
            name = known.get(str(key).strip().lower())
            if name is None:
                raise QueryError(f"unknown stream parameter '{key}'", expected=sorted(known.values()))
            if isinstance(value, bool) or not isinstance(value, int):
                raise QueryError(f"stream parameter {name} must be a whole number, not {value!r}")
            if not INT_MIN <= value <= INT_MAX:   # SASE 1.0 reads each with Java's Integer.parseInt
                raise QueryError(f"stream parameter {name} = {value} is outside Java's int, which SASE 1.0 reads it "
                                 f"as ({INT_MIN} .. {INT_MAX})")
            changes[name] = value
        return replace(cls(), **changes)


def parse_config(text: str, source: str = "stream config") -> StockStreamConfig:
    """A `.stream` file's text (lines `name = value`, up to `end`) as a configuration."""
    values: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip().lower() == "end":
            break
        if not line.strip():
            continue
        name, eq, value = line.partition("=")
        try:
            if not eq:
                raise ValueError
            values[name.strip()] = int(value.strip())
        except ValueError:
            raise QueryError(f"{source} line {number}: expected 'name = whole number', got {line.strip()!r}",
                             number, 1) from None
    return StockStreamConfig.from_mapping(values)


def read_config(path: str | Path) -> StockStreamConfig:
    """A `.stream` file's configuration (QueryError, with line and column, for a file that is not UTF-8)."""
    return parse_config(read_query_file(path, "stream config"), str(path))


def chunks(config: StockStreamConfig, size: int = 65536) -> Iterator[dict[str, list]]:
    """The stream in pieces of at most `size` events, column by column (COLUMNS), exactly as SASE 1.0
    generates it: a stream of any size is written without holding it (streamSize may be 2^31 - 1)."""
    if config.numOfSymbol <= 0 or config.maxVolume <= 0 or config.maxPrice <= 0 or config.streamSize < 0:
        raise QueryError("streamSize must be >= 0 and numOfSymbol, maxVolume, maxPrice positive")
    rnd = JavaRandom(config.randomSeed)
    walk = config.increaseProbability <= 100
    if walk:
        level = [rnd.next_int(1000) for _ in range(config.numOfSymbol)]
        down_above = (100 + config.increaseProbability) // 2
    else:
        rnd.next_int(100)  # SASE 1.0 draws a first price it never uses
    for start in range(0, config.streamSize, size):
        n = min(size, config.streamSize - start)
        symbols, prices, volumes, types = [0] * n, [0] * n, [0] * n, ["stock"] * n
        for i in range(n):
            symbol = rnd.next_int(config.numOfSymbol) + 1
            if walk:
                draw = rnd.next_int(100) + 1
                if draw <= config.increaseProbability:
                    level[symbol - 1] += rnd.next_int(3) + 1
                elif draw > down_above:
                    level[symbol - 1] -= rnd.next_int(3) + 1
                prices[i] = level[symbol - 1]
            else:
                prices[i] = rnd.next_int(config.maxPrice) + 1
                types[i] = f"stock{symbol}"
            volumes[i] = rnd.next_int(config.maxVolume) + 1
            symbols[i] = symbol
        ids = list(range(start, start + n))
        yield {"id": ids, "ts": list(ids), "type": types, "symbol": symbols, "price": prices, "volume": volumes}


def generate(config: StockStreamConfig) -> dict[str, list]:
    """The stream, column by column (COLUMNS), exactly as SASE 1.0 generates it."""
    out: dict[str, list] = {name: [] for name in COLUMNS}
    for piece in chunks(config):
        for name in COLUMNS:
            out[name] += piece[name]
    return out


def to_frame(config: StockStreamConfig):
    import pandas as pd

    return pd.DataFrame(generate(config), columns=list(COLUMNS))


def write_csv(config: StockStreamConfig, path: str | Path) -> int:
    """Write the stream as CSV (COLUMNS), piece by piece; the number of events written."""
    count = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(COLUMNS) + "\n")
        for piece in chunks(config):
            f.writelines(",".join(map(str, row)) + "\n" for row in zip(*(piece[name] for name in COLUMNS)))
            count += len(piece["id"])
    return count
