"""Properties of the AFA operator against the brute-force Definition 2 oracle (spec/003 §4.3, §9)."""
from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.reference.afa.driver import NetInput, core, make_operator
from cepkit.reference.afa.ignorable import IgnorableAfaOperator
from cepkit.reference.afa.operator import AfaOperator
from cepkit.reference.afa.oracle import oracle
from cepkit.reference.afa.seqop import SeqAfaOperator
from cepkit.front.afa.stream import Event, Insert, OutPunctuation, Output, Punctuate, Retract, net
from cepkit.core.errors import CepkitError
from tests.afa.strategies import afas, disordered_streams, dynamic_streams, event_pools, ignorable_afas

FEWER = settings(max_examples=max(50, settings().max_examples // 4), deadline=None)


def _state(op) -> tuple:
    c = core(op)
    return (c.entry_view(), Counter(c.net), len(c.outputs), c.t_e, c.t_p, list(c.arcs))


def _run_checking_prefix(afa, elements, flavor):
    """Feed every element; after each, the net output must equal the oracle on the net input so far."""
    op = make_operator(afa, flavor)
    net_in = NetInput()
    for x in elements:
        before = _state(op)
        try:
            op.feed(x)
        except CepkitError:
            assert _state(op) == before, "a refused element changed the state"
            continue
        net_in.apply(x)
        assert op.net_output() == net_in.oracle(afa, op), f"after {x}"
        assert net(op.outputs) == op.net_output()
    return op, net_in


@FEWER
@given(afas(), disordered_streams())
def test_prefix_property_basic(afa, elements):
    _run_checking_prefix(afa, elements, "basic")


@FEWER
@given(st.one_of(afas(), ignorable_afas()), disordered_streams())
def test_prefix_property_ignorable(afa, elements):
    _run_checking_prefix(afa, elements, "ignorable")


@FEWER
@given(afas(standby=True), st.data())
def test_prefix_property_dynamic_patterns(afa, data):
    """Arc insertions and deletions (default mode and explicit lifetimes), checked with resolved arcs."""
    elements = data.draw(dynamic_streams(afa))
    for flavor in ("basic", "ignorable"):
        _run_checking_prefix(afa, elements, flavor)


@FEWER
@given(afas(), event_pools(), st.randoms(use_true_random=False))
def test_every_permutation_gives_the_ordered_net_output(afa, pool, rnd):
    ordered = AfaOperator(afa)
    ordered.feed_all(Insert(e) for e in sorted(pool, key=lambda e: e.le))
    shuffled = list(pool)
    rnd.shuffle(shuffled)
    for flavor in ("basic", "ignorable"):
        op = make_operator(afa, flavor)
        op.feed_all(Insert(e) for e in shuffled)
        assert op.net_output() == ordered.net_output() == oracle(afa, pool)
    # the ordered run never retracts anything
    assert all(o.sign > 0 for o in ordered.outputs if isinstance(o, Output))


@FEWER
@given(afas(), disordered_streams())
def test_nothing_below_an_output_punctuation_changes(afa, elements):
    op = AfaOperator(afa)
    tp = None
    for x in elements:
        for o in op.feed(x):
            if isinstance(o, OutPunctuation):
                assert tp is None or o.t > tp
                tp = o.t
            elif tp is not None:
                assert o.le >= tp, f"output {o} below the output punctuation {tp}"


@FEWER
@given(afas(), disordered_streams())
def test_state_after_punctuation_is_cleaned(afa, elements):
    """(Cleanup): no entry before cover(t_p); the cover keeps its list but not its event."""
    op = AfaOperator(afa)
    for x in elements:
        op.feed(x)
        if isinstance(x, Punctuate) and op.t_p > -float("inf"):
            view = op.entry_view()
            below = [le for le, ev, nodes in view if le < op.t_p]
            assert len(below) <= 1, "entries other than the cover below t_p"
            if below:
                assert view[0][0] == below[0] and view[0][1] is None
            assert all(ev is not None for le, ev, nodes in view if le >= op.t_p)
            assert all(not a.lifetime.ended_by(op.t_p) for a in op.arcs)


@FEWER
@given(afas(), event_pools(), st.randoms(use_true_random=False), st.booleans())
def test_afa_plus_o_never_retracts_and_ends_at_the_oracle(afa, pool, rnd, punctuate):
    ordered = sorted(pool, key=lambda e: e.le)
    events = [Event(e.le, e.re, e.payload, seq) for seq, e in enumerate(ordered, start=1)]
    arrival = list(events)
    rnd.shuffle(arrival)
    op = SeqAfaOperator(afa)
    for i, e in enumerate(arrival):
        op.feed(Insert(e))
        if punctuate:
            op.feed(Punctuate(min(x.le for x in arrival[i:])))
    assert all(o.sign > 0 for o in op.outputs if isinstance(o, Output))
    assert op.net_output() == oracle(afa, events)


@FEWER
@given(afas(), disordered_streams(), st.sampled_from([0, 1, 3, 10, float("inf")]))
def test_cleanse_keeps_the_final_net_output(afa, elements, sigma):
    op = make_operator(afa, "cleanse", sigma)
    net_in = NetInput()
    for x in elements:
        op.feed(x)
        net_in.apply(x)
    last = max([x.event.le for x in elements if isinstance(x, (Insert, Retract))] + [0])
    op.feed(Punctuate(last + 1))  # releases everything still buffered
    assert op.net_output() == net_in.oracle(afa, op)


def test_random_long_streams_match_the_oracle():
    """A few longer streams (30 events, 25% retractions) from a seeded generator, checked at every step."""
    from tests.afa.test_examples import load_example

    rnd = random.Random(4)
    afa = load_example("q1")
    for _ in range(3):
        les = rnd.sample(range(200), 30)
        events = [Event.make(le, le + 7, {"change": rnd.choice([-100, -10, -10, 10, 10])}) for le in les]
        elements = []
        for e in events:
            elements.append(Insert(e))
            if rnd.random() < 0.25:
                elements.append(Retract(e))
        rnd.shuffle(elements)
        elements = [x for i, x in enumerate(elements)
                    if not isinstance(x, Retract) or Insert(x.event) in elements[:i]]
        _run_checking_prefix(afa, elements, "basic")


@FEWER
@given(ignorable_afas(), disordered_streams())
def test_ignorable_flavor_is_never_chattier_than_the_basic_operator(afa, elements):
    """Per input element, AFA+ignore emits at most as many output events as the basic AFA (spec/003 §7.3)."""
    basic, quiet = AfaOperator(afa), IgnorableAfaOperator(afa)
    for x in elements:
        assert len(quiet.feed(x)) <= len(basic.feed(x))
        assert quiet.net_output() == basic.net_output()
