"""An AFA program's output as plain records (the `ChangeStream` capability of cepkit.core.contract): the
change stream in arrival order and the net result, with JSON-friendly values (infinity as "inf" / "-inf",
exact numbers through cepkit.core.match.plain, the register as a mapping field -> value when the AFA has a
schema). Both AFA programs (reference/afa/engine.py, optimized/afa/program.py) take it as a mixin: they give
`afa`, `outputs` (Output / OutPunctuation in arrival order) and `net_output()` ((register, le, re) -> count).
"""
from __future__ import annotations

import math
from typing import Any

from cepkit.core.match import plain
from cepkit.front.afa.afafile import payload_dict
from cepkit.front.afa.stream import Output


def value(v: Any) -> Any:
    """A JSON-friendly value: infinity as "inf" / "-inf", exact numbers as cepkit.core.match.plain gives them."""
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return plain(v)


def payload(afa: Any, register: Any) -> Any:
    """An output's register: a mapping field -> value when the AFA has a schema, else the register's value."""
    p = payload_dict(afa, register)
    return {k: value(x) for k, x in p.items()} if isinstance(p, dict) else value(p)


def change_records(afa: Any, outputs: list) -> list[dict]:
    """The change stream as records, in arrival order: {"op": "insert" | "retract", "le", "re", "payload"}
    for an output, {"op": "punctuate", "t"} for an output punctuation."""
    out = []
    for o in outputs:
        if isinstance(o, Output):
            out.append({"op": "insert" if o.sign > 0 else "retract", "le": value(o.le), "re": value(o.re),
                        "payload": payload(afa, o.payload)})
        else:
            out.append({"op": "punctuate", "t": value(o.t)})
    return out


def net_records(afa: Any, counts: Any) -> list[dict]:
    """The net result ((register, le, re) -> count) as records {"le", "re", "payload", "count"}, sorted by
    lifetime (LE, then RE), then by the register's repr."""
    keys = sorted(counts, key=lambda k: (k[1], k[2], repr(k[0])))
    return [{"le": value(le), "re": value(re_), "payload": payload(afa, r), "count": counts[(r, le, re_)]}
            for (r, le, re_) in keys]


class ChangeRecords:
    """`changes()` and `net()` (cepkit.core.contract.ChangeStream) for a program that has `afa`, `outputs`
    and `net_output()`. The change records are kept until the change stream grows (a summary and a writer
    asking in turn convert it once)."""

    _change_cache: tuple[int, list[dict]] | None = None

    def changes(self) -> list[dict]:
        """The change stream so far as records, in arrival order (change_records)."""
        outputs = self.outputs
        if self._change_cache is None or self._change_cache[0] != len(outputs):
            self._change_cache = (len(outputs), change_records(self.afa, outputs))
        return list(self._change_cache[1])

    def net(self) -> list[dict]:
        """The net result so far (output insertions minus retractions) as records, sorted by lifetime
        (net_records)."""
        return net_records(self.afa, self.net_output())
