"""A stateful hypothesis test: random operations, valid or not, on the AFA operator.

After every step the net output equals the oracle on the net input; a refused step (a protocol
violation) changes nothing.
"""
from __future__ import annotations

from collections import Counter

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from cepkit.reference.afa.driver import NetInput
from cepkit.reference.afa.ignorable import IgnorableAfaOperator
from cepkit.reference.afa.operator import AfaOperator, ProtocolError
from cepkit.front.afa.stream import Event, Insert, Punctuate, Retract
from tests.afa.strategies import TYPES, afas, ignorable_afas


class AfaMachine(RuleBasedStateMachine):
    @initialize(afa=st.one_of(afas(), ignorable_afas()), ignorable=st.booleans())
    def start(self, afa, ignorable):
        self.afa = afa
        self.op = IgnorableAfaOperator(afa) if ignorable else AfaOperator(afa)
        self.net_in = NetInput()
        self.tp = None

    def _state(self):
        return (self.op.entry_view(), Counter(self.op.net), len(self.op.outputs), self.op.t_e, self.op.t_p)

    def _apply(self, element):
        before = self._state()
        valid = self._valid(element)
        try:
            out = self.op.feed(element)
        except ProtocolError:
            assert not valid, f"refused a valid {element}"
            assert self._state() == before
            return
        assert valid, f"accepted an invalid {element}"
        self.net_in.apply(element)
        for o in out:
            if hasattr(o, "sign") and self.tp is not None:
                assert o.le >= self.tp
            elif not hasattr(o, "sign"):
                self.tp = o.t

    def _valid(self, element) -> bool:
        if isinstance(element, Punctuate):
            return True
        e = element.event
        if e.le < self.op.t_e:
            return False
        live = {x.le: x for x in self.net_in.events}
        if isinstance(element, Insert):
            return e.le not in live and e.le < e.re
        return live.get(e.le) == e

    @rule(le=st.integers(0, 15), width=st.integers(1, 8), etype=st.sampled_from(TYPES), v=st.integers(0, 3))
    def insert(self, le, width, etype, v):
        self._apply(Insert(Event.make(le, le + width, {"type": etype, "v": v})))

    @rule(data=st.data())
    def retract_live(self, data):
        if self.net_in.events:
            e = data.draw(st.sampled_from(sorted(self.net_in.events, key=lambda x: x.le)))
            self._apply(Retract(e))

    @rule(le=st.integers(0, 15), etype=st.sampled_from(TYPES))
    def retract_anything(self, le, etype):
        self._apply(Retract(Event.make(le, le + 3, {"type": etype, "v": 0})))

    @rule(t=st.integers(0, 12))
    def punctuate(self, t):
        self._apply(Punctuate(t))

    @invariant()
    def net_output_is_definition_2(self):
        if hasattr(self, "op"):
            assert self.op.net_output() == self.net_in.oracle(self.afa, self.op)


AfaMachine.TestCase.settings = settings(max_examples=max(30, settings().max_examples // 10),
                                        stateful_step_count=25, deadline=None)
TestAfaMachine = AfaMachine.TestCase
