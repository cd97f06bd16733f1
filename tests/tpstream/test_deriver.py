"""The deriver (Algorithm 5.1) against Def 5.2's enumeration of maximal runs."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.reference.tpstream import brute
from cepkit.reference.tpstream.bind import compile_stream
from cepkit.front.tpstream.reads import value_reader
from cepkit.front.tpstream.parser import parse_definitions
from cepkit.reference.tpstream.run import derive
from tests.tpstream.strategies import bounds, conditions, streams


@settings(max_examples=max(50, settings().max_examples // 4))
@given(st.lists(st.tuples(conditions(), bounds()), min_size=1, max_size=3), streams(True))
def test_deriver_equals_definition(defs, batch):
    text = ", ".join(f"S{i} AS {c}{b}" for i, (c, b) in enumerate(defs))
    definitions = parse_definitions(text)
    got = sorted((key, name, ts, te, ev) for key, name, ts, te, ev in derive(definitions, batch, ("p",))[0])
    value = value_reader(batch)
    want = []
    for p in (0, 1):
        pos = [i for i in range(len(batch)) if batch.exact_value("p", i) == p]
        ts = [int(batch.ts[i]) for i in pos]
        for d in definitions:
            for a, e, ev in brute.situations(compile_stream(d, batch, value), pos, ts):
                want.append(((p,), d.name, a, e, ev))
    assert got == sorted(want)
    for _key, _name, ts, te, ev in got:  # half-open: the terminating event is not inside
        assert ts < te and all(int(batch.ts[i]) < te for i in ev) and int(batch.ts[ev[0]]) == ts
