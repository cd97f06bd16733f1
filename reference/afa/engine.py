"""The AFA engine (spec/003) under the engine contract (core/contract.py).

    program = AfaEngine().compile(afa_text_or_Afa, flavor="basic", sigma=math.inf)
    table = program.feed(elements)    # (row, element) pairs, an AfaInput, an events path / DataFrame / Arrow table
    table = program.close()           # Cleanse releases what it still buffers

Rows (docs/semantics.md "AFA output as a match table"): each output of the operator is one row of a
speculative table: `sign` +1 (insertion) / -1 (retraction), `lifetime_start` / `lifetime_end` its lifetime
[LE, RE), `ts` = LE (an output's lifetime starts where the match completes), the payload = the final
register, one column per register field (a register that is not a tuple of the schema's fields: one column
`register`). There are no variable bindings (an AFA has no pattern variables). Output punctuations are not
rows: they are in `program.punctuations` (their times, in arrival order), and the whole change stream
(outputs and punctuations, in arrival order) is `program.outputs`; `program.changes()` and `program.net()` give
it and the net result as plain records (cepkit.core.contract.ChangeStream, front/afa/changes.py).
"""
from __future__ import annotations

import math
from typing import Any

from cepkit.front.afa.afafile import payload_dict
from cepkit.front.afa.changes import ChangeRecords
from cepkit.front.afa.constructs import FLAVORS, REFUSES, refused, runners, sigma_value
from cepkit.reference.afa.driver import make_operator
from cepkit.front.afa.eventfile import AfaInput, to_elements
from cepkit.front.afa.model import Afa
from cepkit.front.afa.stream import OutPunctuation, Output
from cepkit.core.contract import Engine, Program
from cepkit.core.errors import EventError, QueryError, Unsupported
from cepkit.core.match import Match
from cepkit.core.match_table import Layout


class AfaEngine(Engine):
    name = "reference"
    language = "afa"
    state_note = ("the AFA operator's live state (its speculative instances and registers) is not counted; "
                  "bound the output with limit (--limit)")

    def build(self, afa: Afa, flavor: str = "basic", sigma: Any = math.inf) -> "AfaProgram":
        return AfaProgram(afa, flavor, sigma)


class AfaProgram(ChangeRecords, Program):
    """One AFA operator of the chosen flavour; feed elements, get its outputs as table rows (the whole change
    stream: `changes()`, the net result: `net()`)."""

    engine_name = "reference"
    language = "afa"

    def __init__(self, afa: Afa, flavor: str = "basic", sigma: Any = math.inf):
        if flavor not in FLAVORS:
            raise QueryError(f"unknown AFA flavor '{flavor}'", expected=list(FLAVORS))
        self.afa = afa
        self.flavor = flavor
        self.sigma = sigma_value(sigma)
        self.operator = make_operator(afa, flavor, self.sigma)
        self._sent = 0          # outputs of the operator already returned as rows
        self.elements = 0       # input elements consumed
        self.closed = False
        schema = tuple(afa.schema or ())
        plain_register = not schema and tuple(afa.initial or ()) != ()   # an AFA built without a schema
        self._layout = Layout(payload=("register",) if plain_register else schema, speculative=True)

    @property
    def layout(self) -> Layout:
        return self._layout

    @property
    def query(self) -> Afa:
        """The AFA it runs (the registry's reader reads an events file with it: cepkit.front.afa.eventfile
        `read_input`)."""
        return self.afa

    @property
    def outputs(self) -> list:
        """The change stream so far: Output and OutPunctuation, in arrival order."""
        return self.operator.outputs

    @property
    def punctuations(self) -> list:
        """The output punctuations' times so far, in arrival order (they are not table rows)."""
        return [o.t for o in self.operator.outputs if isinstance(o, OutPunctuation)]

    def net_output(self):
        """(register, le, re) -> count: output insertions minus retractions."""
        return self.operator.net_output()

    # ------------------------------------------------------------------ the contract
    def _feed(self, batch: Any, progress=None) -> list[Match]:
        if self.closed:
            raise EventError("the AFA program is closed: feed comes before close")
        elements = batch.elements(self.afa) if isinstance(batch, AfaInput) else to_elements(batch, self.afa)
        for n, (row, element) in enumerate(elements, start=1):
            self._one(row, element)
            if progress is not None:
                progress(n, len(elements))
        return self._new_rows()

    def _close(self) -> list[Match]:
        if not self.closed and hasattr(self.operator, "flush"):
            try:
                self.operator.flush()  # end of input: Cleanse releases what it still holds
            except EventError as exc:
                raise EventError(f"at the end of input: {exc.message}", column=exc.column) from None
        self.closed = True
        return self._new_rows()

    def _one(self, row: Any, element: Any) -> None:
        try:
            self.operator.feed(element)
        except Unsupported as exc:
            raise self._refusal(exc, row) from None
        except EventError as exc:
            raise EventError(exc.message, row=row, column=exc.column) from None
        except QueryError as exc:
            raise QueryError(f"at input row {row}: {exc.message}", exc.line, exc.column) from None
        self.elements += 1

    def _refusal(self, exc: Unsupported, row: Any) -> Unsupported:
        """A flavour's refusal of what the input holds, by construct, with the row and the flavours that run it."""
        what = exc.construct
        construct = next((c for c in REFUSES.get(self.flavor, ()) if what.startswith(c)), what)
        out = Unsupported("reference", refused(construct, self.flavor) + what[len(construct):])
        out.message = f"{out.message}, at input row {row} (flavors that run it: {', '.join(runners(construct))})"
        out.args = (str(out),)
        return out

    def _new_rows(self) -> list[Match]:
        new = self.operator.outputs[self._sent:]
        self._sent = len(self.operator.outputs)
        return [self._row(o) for o in new if isinstance(o, Output)]

    def _row(self, o: Output) -> Match:
        p = payload_dict(self.afa, o.payload)
        payload = tuple(p.items()) if isinstance(p, dict) else (("register", p),)
        return Match((), o.le, payload, sign=o.sign, lifetime=(o.le, o.re))
