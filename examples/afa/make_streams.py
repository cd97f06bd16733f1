"""Regenerate the bundled example streams (deterministic): `python examples/afa/make_streams.py`.

For each example AFA, `<name>.events.csv` is the stream in order (LE ascending, a punctuation every
20 events) and `<name>.shuffled.csv` the same events in a random arrival order, with a few extra
events that are inserted and later retracted; both have the same net input, so the same net output.
"""
from __future__ import annotations

import csv
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def ticks(rnd: random.Random, n: int, patterns: list[list[int]], noise: list[int]) -> list[dict]:
    """Price ticks (cents): noise with the given change patterns embedded; price starts at 10000."""
    changes: list[int] = []
    while len(changes) < n:
        if rnd.random() < 0.3 and patterns:
            changes += rnd.choice(patterns)
        else:
            changes.append(rnd.choice(noise))
    price, rows = 10000, []
    for le, c in enumerate(changes, start=1):
        price += c
        rows.append({"le": le, "price": price, "change": c})
    return rows


def trades(rnd: random.Random, n: int) -> list[dict]:
    le, rows = 0, []
    for _ in range(n):
        le += rnd.randint(20, 90)
        rows.append({"le": le, "symbol": rnd.choice("AABCCD")})
    return rows


def write(name: str, rows: list[dict], rnd: random.Random) -> None:
    fields = ["kind"] + list(rows[0])
    in_order = []
    for i, r in enumerate(rows):
        if i and i % 20 == 0:
            in_order.append({"kind": "punctuate", "le": r["le"]})
        in_order.append({"kind": "insert", **r})
    shuffled = [{"kind": "insert", **r} for r in rows]
    rnd.shuffle(shuffled)
    used = {r["le"] for r in rows}
    for _ in range(4):  # junk events, inserted then retracted later
        le = max(used) + 1 + rnd.randint(0, 5)
        used.add(le)
        junk = dict(rows[rnd.randrange(len(rows))], le=le)
        i = rnd.randrange(len(shuffled) + 1)
        j = rnd.randrange(i, len(shuffled) + 1) + 1
        shuffled.insert(i, {"kind": "insert", **junk})
        shuffled.insert(j, {"kind": "retract", **junk})
    for suffix, data in (("events", in_order), ("shuffled", shuffled)):
        with open(HERE / f"{name}.{suffix}.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=fields, restval="")
            w.writeheader()
            w.writerows(data)


def main() -> None:
    rnd = random.Random(2010)
    v2 = [-100, -10, -10, 10, 10, -10, 10]  # a large drop then two balanced V patterns
    write("q1", ticks(rnd, 120, [v2, [-100, -10, 10, -10, 10]], [-10, 10, -30, 30]), rnd)
    q2 = [-50, -10, 30, -10, 50]  # drop, V, V that recovers the level before the drop
    write("q2", ticks(rnd, 120, [q2, [-40, -10, 10, -10, 60]], [-10, 10, -20, 20]), rnd)
    q3 = [10, 10, -10, 10, -10, -10, 10, -10]
    write("q3", ticks(rnd, 120, [q3], [-10, 10]), rnd)
    hs = [10, 10, -5, -5, 10, 10, -7, -7, 5, -6, -8]  # head and shoulders from its start price
    write("head_shoulders", ticks(rnd, 120, [hs], [-10, 10, -5, 5]), rnd)
    write("negative", trades(rnd, 120), rnd)


if __name__ == "__main__":
    main()
