"""Differential: the reference engine in the SASE 1.0 dialect against a second, Java-shaped model of SASE 1.0's
engine (github.com/haopeng/sase cd0bd56, Engine.java / Run.java) written here with its own control flow:
mutable runs with a current state, a run-level "closure started" flag, clones appended to the run lists,
deletions after each event, and the predicates as plain Python functions (not cepkit's evaluator). A second
partition attribute [g] is SASE 1.0's predicate `g = $1.g` (query/NFA.java addMorePartitionAttribute) on every
component after the first: the run's value vector holds the g of the last event its first component took
(Run.addEvent), and the lookup holds vacuously while the run is at that component (PredicateOptimized.evaluate).
"""
from __future__ import annotations

import copy
import os
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pandas as pd

import cepkit
from cepkit.conformance.adapters.sase1_jar import classpath, jar_matches, jeval_beside, missing
from cepkit.front.language import parse
from cepkit.core.readers import from_pandas
from cepkit.reference.sase1.stock_stream import StockStreamConfig, generate

# Query templates: (pattern, variables, types, kleene flags, WHERE predicates) and the same predicates as
# functions of (event, run) for the model: begin[j] and take[j] (take for the Kleene component only).
TEMPLATES = {
    "rise": ("SEQ(A+ a[], A b)", "a[i].v > a[i-1].v AND b.v > 3",
             [("A", True, lambda e, r: True, lambda e, r: e["v"] > r.previous["v"]),
              ("A", False, lambda e, r: e["v"] > 3, None)]),
    "even-start": ("SEQ(A+ a[], A b)", "a[1].v % 2 = 0 AND b.v > 3",
                   [("A", True, lambda e, r: e["v"] % 2 == 0, lambda e, r: True),
                    ("A", False, lambda e, r: e["v"] > 3, None)]),
    "middle": ("SEQ(A a, A+ b[], A c)", "b[i].v >= b[i-1].v AND c.v < 1",
               [("A", False, lambda e, r: True, None),
                ("A", True, lambda e, r: True, lambda e, r: e["v"] >= r.previous["v"]),
                ("A", False, lambda e, r: e["v"] < 1, None)]),
    "two-types": ("SEQ(A+ a[], B b)", "a[i].v > a[i-1].v AND b.v > 1",
                  [("A", True, lambda e, r: True, lambda e, r: e["v"] > r.previous["v"]),
                   ("B", False, lambda e, r: e["v"] > 1, None)]),
    "first-three": ("SEQ(A+ a[], A b, A c)", "a[i].v >= a[i-1].v AND b.v > 2",
                    [("A", True, lambda e, r: True, lambda e, r: e["v"] >= r.previous["v"]),
                     ("A", False, lambda e, r: e["v"] > 2, None),
                     ("A", False, lambda e, r: True, None)]),
}
STRATEGIES = ("partition-contiguity", "skip-till-next-match", "skip-till-any-match")


class JRun:
    """Run.java's fields: current state, per-state status, the selected events, closure started, start ts."""

    def __init__(self, n: int):
        self.cur, self.state, self.events, self.count = 0, [0] * n, [], 0
        self.kinit, self.full, self.start, self.pid = False, False, None, None
        self.g = [None]  # the value vector of a second partition attribute g: the first component's last g
        self.by_state: list[list] = [[] for _ in range(n)]

    @property
    def previous(self):
        return self.events[-1]

    def add(self, e, states, key):  # Run.addEvent
        if self.cur == 0:
            self.g[0] = e.get("g")
        self.events.append(e)
        self.by_state[self.cur].append(e["id"])
        self.count += 1
        if not states[self.cur][1]:
            self.state[self.cur] = 2
            if self.cur == len(states) - 1:
                self.full = True
            else:
                self.cur += 1
        else:
            self.kinit = True
            self.state[self.cur] = 3
        if self.count == 1:
            self.start, self.pid = e["ts"], e.get(key)

    def proceed(self, states):
        self.state[self.cur] = 2
        if self.cur == len(states) - 1:
            self.full = True
        else:
            self.cur += 1


def model(states, strategy: str, window: int, partitioned: bool, events: list[dict], second: bool = False,
          shared: bool = False) -> Counter:
    """The matches SASE 1.0's engine outputs, as bindings keys (`second`: with [g] after [k]; `shared`: the runs
    skip-till-any-match splits share their value vector, as Run.clone's shallow copy makes SASE 1.0's do)."""
    out: Counter = Counter()
    runs: dict = {}
    key = "k" if partitioned else None

    def emit(r):
        out[tuple((v, tuple(ids)) for v, ids in zip("abc", r.by_state))] += 1

    def in_window(e, r):
        return e["ts"] - r.start <= window

    def add_to_run(r, e, dead):  # Engine.addEventToRun
        old = r.cur
        r.add(e, states, key)
        if old == r.cur and r.full and all(s == 2 for s in r.state):
            emit(r)
            dead.append(r)

    def same_g(e, r):  # g = $1.g on the edges after the first component; vacuous while the run is at it
        return not second or r.cur == 0 or e["g"] == r.g[0]

    def check_optimized(e, r):  # 0 no, 1 take or begin, 2 proceed
        etype, kleene, begin, take = states[r.cur]
        if e["type"] != etype:
            return 0
        if not kleene or not r.kinit:
            return 1 if begin(e, r) and same_g(e, r) else 0
        ntype, _, nbegin, _ = states[r.cur + 1]
        if e["type"] == ntype and nbegin(e, r) and same_g(e, r):
            return 2
        return 1 if take(e, r) and same_g(e, r) else 0

    def check_plain(e, r):
        etype, kleene, begin, take = states[r.cur]
        if e["type"] != etype:
            return False
        return (take if kleene and r.kinit else begin)(e, r)

    for e in events:
        k = e.get(key) if partitioned else None
        lst = runs.setdefault(k, [])
        dead: list = []
        for r in list(lst):
            if r.full:
                continue
            if partitioned:
                res = check_optimized(e, r)
                if res == 0:
                    if strategy == "partition-contiguity":
                        dead.append(r)
                    continue
                if res == 1 and not in_window(e, r):
                    dead.append(r)
                    continue
                if strategy == "skip-till-any-match":
                    lst.append(copy.deepcopy(r, {id(r.g): r.g} if shared else None))
                if res == 2:
                    r.proceed(states)
                add_to_run(r, e, dead)
            elif check_plain(e, r):
                if not in_window(e, r):
                    dead.append(r)
                    continue
                target = copy.deepcopy(r) if strategy == "skip-till-any-match" else r
                old = target.cur
                target.add(e, states, key)
                if strategy == "skip-till-any-match" and old != target.cur:
                    lst.append(target)
                elif target.full:
                    emit(target)
                    if target is r:
                        dead.append(r)
                else:  # a Kleene take: a copy stays in the closure, the run proceeds (empty proceed edge)
                    stay = copy.deepcopy(target)
                    lst.append(stay)
                    target.proceed(states)
                    if target is not r:
                        lst.append(target)
        for r in dead:
            lst[:] = [x for x in lst if x is not r]
        etype, _, begin, _ = states[0]
        if e["type"] == etype and begin(e, None):
            r = JRun(len(states))
            r.add(e, states, key)
            lst.append(r)
    return out


@lru_cache(maxsize=None)
def query(template: str, strategy: str, window: int, partitioned: bool, second: bool = False):
    pattern, where, _ = TEMPLATES[template]
    text = (f"PATTERN {pattern} WHERE {strategy}" + (" AND [k]" if partitioned else "")
            + (" AND [g]" if second else "") + f" AND {where} WITHIN {window}")
    return parse(text, dialect="sase1")


events_st = st.lists(st.tuples(st.sampled_from("AAAB"), st.sampled_from([0, 1, 1, 3]), st.sampled_from([1, 1, 2]),
                               st.integers(0, 5), st.sampled_from([1, 2])),
                     min_size=1, max_size=12)


@settings(max_examples=max(settings.default.max_examples // 2, 10))
@given(events=events_st, template=st.sampled_from(sorted(TEMPLATES)), strategy=st.sampled_from(STRATEGIES),
       window=st.sampled_from([3, 8]), partitioned=st.booleans(), second=st.booleans())
def test_reference_sase1_agrees_with_the_java_shaped_model(events, template, strategy, window, partitioned, second):
    if strategy == "partition-contiguity":
        partitioned = True  # SASE 1.0 needs the attribute (the dialect refuses it without)
    second = second and partitioned
    states = TEMPLATES[template][2]
    if second and strategy == "skip-till-any-match" and states[0][1] and len(states) > 2:
        return  # refused (docs/semantics.md S1.6): the model's runs do not share SASE 1.0's value vector
    rows, ts = [], 0
    for n, (etype, gap, k, v, g) in enumerate(events):
        ts += gap
        rows.append({"id": f"e{n}", "type": etype, "ts": ts, "k": k, "v": v, "g": g})
    want = model(states, strategy, window, partitioned, rows, second)
    got = Counter(m.key() for m in cepkit.compile(query(template, strategy, window, partitioned, second)).run(
        from_pandas(pd.DataFrame(rows))))
    want = Counter({tuple((v, tuple(f"{i}" for i in ids)) for v, ids in k): n for k, n in want.items()})
    assert got == want


def test_the_jars_split_runs_share_the_value_vector():
    """Why the dialect refuses a second [attr] after a Kleene closure first under skip-till-any-match
    (docs/semantics.md S1.6): the jar's matches are the model's with one value vector shared by the runs split
    from one first run, not the model's with a vector per run (cepkit's reading). Needs Java and the jar."""
    root = Path(__file__).resolve().parents[2]
    jar = Path(os.environ.get("CEPKIT_SASE1_JAR", str(root.parent / "shared" / "peers" / "sase1" / "sase.jar")))
    why = missing("java", jar, jeval_beside(jar))
    if why:
        pytest.skip(f"{why}; set CEPKIT_SASE1_JAR")
    query = ("PATTERN SEQ(stock+ a[], stock b, stock c)\nWHERE skip-till-any-match\nAND [symbol]\nAND [volume]\n"
             "AND a[1].price % 5 = 0\nAND a[i].price > a[i-1].price\nAND b.price % 3 = 0\nWITHIN 12\n")
    stream = {"streamSize": 1500, "maxPrice": 1000, "numOfSymbol": 2, "maxVolume": 4, "increaseProbability": 70,
              "randomSeed": 11}
    states = [("stock", True, lambda e, r: e["v"] % 5 == 0, lambda e, r: e["v"] > r.previous["v"]),
              ("stock", False, lambda e, r: e["v"] % 3 == 0, None),
              ("stock", False, lambda e, r: True, None)]
    cols = generate(StockStreamConfig.from_mapping(stream))
    rows = [{"id": i, "type": "stock", "ts": t, "k": k, "v": v, "g": g}
            for i, t, k, v, g in zip(cols["id"], cols["ts"], cols["symbol"], cols["price"], cols["volume"])]
    found = Counter(tuple(ids) for ids in jar_matches("java", classpath(jar, jeval_beside(jar)), query, stream))

    def flat(out: Counter) -> Counter:
        return Counter({tuple(i for _, ids in key for i in ids): n for key, n in out.items()})

    shared = flat(model(states, "skip-till-any-match", 12, True, rows, second=True, shared=True))
    own = flat(model(states, "skip-till-any-match", 12, True, rows, second=True))
    assert shared == found and sum(found.values()) == 1596
    assert sum(own.values()) == 1186
