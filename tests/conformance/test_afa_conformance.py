"""AFA conformance: every case in conformance/cases/afa/ on the reference AFA operator flavors.

For the maximally speculative flavors (basic, ignorable) the harness also checks, after every input
element, that the net output equals Definition 2 (the brute-force oracle) on the net input so far
(spec/003 §9 harness rule); for AFA+O and Cleanse only the final net output is compared with it.
"""
from __future__ import annotations

import re
from collections import Counter

import pytest

from cepkit.conformance.afa_loader import AfaCase, freeze, load_cases, load_file
from cepkit.front.afa.afafile import payload_dict
from cepkit.reference.afa.driver import NetInput, core, make_operator
from cepkit.front.afa.stream import Output
from cepkit.core.errors import CepkitError

CASES = load_cases()


def _key(afa, o) -> tuple:
    return (freeze(payload_dict(afa, o.payload)), o.le, o.re)


def _net(afa, counter: Counter) -> dict:
    return {(freeze(payload_dict(afa, r)), le, re): n for (r, le, re), n in counter.items()}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_afa_case(case: AfaCase) -> None:
    op = make_operator(case.afa, case.flavor, case.sigma)
    net_in = NetInput()
    stream: list = []
    for i, element in enumerate(case.elements, start=1):
        if case.error is not None and case.error["at"] == i:
            before = (core(op).entry_view(), Counter(op.net_output()), len(op.outputs))
            with pytest.raises(CepkitError, match=case.error["message"]):
                op.feed(element)
            assert (core(op).entry_view(), Counter(op.net_output()), len(op.outputs)) == before, \
                f"{case.id}: a refused element changed the operator's state"
            continue
        for o in op.feed(element):
            stream.append((("insert" if o.sign > 0 else "retract"),) + _key(case.afa, o)
                          if isinstance(o, Output) else ("punctuate", o.t))
        net_in.apply(element)
        if case.flavor in ("basic", "ignorable"):
            assert _net(case.afa, op.net_output()) == _net(case.afa, net_in.oracle(case.afa, op)), \
                f"{case.id}: after input row {i} the net output differs from Definition 2"
    if case.stream is not None:
        assert stream == case.stream, f"{case.id} ({case.source}): output stream"
    assert _net(case.afa, op.net_output()) == case.net, f"{case.id} ({case.source}): net output"
    assert case.net == _net(case.afa, net_in.oracle(case.afa, op)), \
        f"{case.id}: the vector's net output is not Definition 2 on its input"


def test_every_spec_case_is_covered() -> None:
    named = {m for c in CASES for m in re.findall(r"\bCC(\d+b?)\b", c.source)}
    missing = [n for n in [str(i) for i in range(1, 18)] + ["7b"] if n not in named]
    assert not missing, f"no vector for spec/003 §9 CC{', CC'.join(missing)}"


@pytest.mark.parametrize("text, message", [
    ("cases: []", "non-empty"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, afa_file: examples/afa/ab.afa.yaml, input: [{le: 1}], net: [], bogus: 1}",
     "unknown key"),
    ("cases:\n  - {id: x, id: y}", "duplicate key"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, afa_file: examples/afa/ab.afa.yaml, input: [{le: 1.5}], net: []}",
     "float"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, afa_file: examples/afa/ab.afa.yaml, input: [{kind: bogus, le: 1}], net: []}",
     "unknown kind"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, afa_file: examples/afa/ab.afa.yaml, input: [{le: 1}], net: []}\n"
     "  - {id: x, title: t, source: s, origin: sql2016, afa_file: examples/afa/ab.afa.yaml, input: [{le: 1}], net: []}",
     "duplicate id"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, afa: nope, input: [{le: 1}], net: []}", "unknown afa"),
])
def test_loader_is_strict(tmp_path, text: str, message: str) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_file(p)


def _plain_cases():
    from cepkit.front.afa.stream import ArcDelete, ArcInsert, ArcPunctuate

    for case in CASES:
        dynamic = any(isinstance(x, (ArcInsert, ArcDelete, ArcPunctuate)) for x in case.elements)
        if case.flavor == "basic" and case.error is None:
            yield pytest.param(case, "ignorable", None, id=f"{case.id}::ignorable")
            if not dynamic:
                for sigma in (0, 3):
                    yield pytest.param(case, "cleanse", sigma, id=f"{case.id}::cleanse-{sigma}")


@pytest.mark.parametrize("case, flavor, sigma", list(_plain_cases()))
def test_other_flavors_reach_the_same_net_output(case: AfaCase, flavor: str, sigma) -> None:
    """The ignorable flavor and Cleanse(σ) (flushed at the end) give every basic vector's net output."""
    op = make_operator(case.afa, flavor, sigma if sigma is not None else 0)
    for element in case.elements:
        op.feed(element)
    if hasattr(op, "flush"):
        op.flush()
    assert _net(case.afa, op.net_output()) == case.net
