"""The TPStream engine (spec/004 §5) under the engine contract (core/contract.py).

    program = TPStreamEngine().compile(text, mode="exact" | "early")     # TPStreamBruteEngine: by enumeration
    program.feed(batch) ...; table = program.close()

A query binds to the columns and timestamp unit of the events (reference/tpstream/bind.compile_plan),
and situations hold batch positions, so the program buffers the batches it is fed (`feed` returns an
empty table) and derives and matches at `close` over all of them: feeding in pieces gives the same table
as running at once. Batches must follow one another in time.

Rows (docs/semantics.md "TPStream matches as a match table"): one per reported configuration. Each pattern
situation is a variable bound to the ids of its events (in early mode: its events up to the detection
time); `ts` and `detected` are both the match's detection time (in exact mode the largest end time, Def
5.7); the payload is the PARTITION BY attributes, each situation's interval as `NAME.start`, `NAME.end`
(end null while the situation is ongoing, early mode), then the RETURN values.
"""
from __future__ import annotations



from cepkit.core.contract import Engine, Program
from cepkit.core.errors import EventError, QueryError, ResourceLimit
from cepkit.core.events import EventBatch
from cepkit.core.match import Match
from cepkit.core.match_table import Layout
from cepkit.front.tpstream.query import TPQuery
from cepkit.reference.tpstream.run import MODES, run_query
from cepkit.core.events import concat_batches as concat


class TPStreamEngine(Engine):
    name = "reference"
    language = "tpstream"
    state_note = ("it buffers the batches and derives and matches situations at close; its state (the "
                  "situations of each partition) is not counted: bound the output with limit (--limit)")

    def build(self, query: TPQuery, mode: str = "exact") -> "TPStreamProgram":
        return TPStreamProgram(query, mode, "matcher")


class TPStreamBruteEngine(Engine):
    """The definitions by enumeration (reference/tpstream/brute.py): every run and configuration; its
    program refuses, at feed, an input of more than BRUTE_LIMIT events."""

    name = "brute"
    language = "tpstream"
    state_note = "it enumerates every configuration of at most BRUTE_LIMIT events at close; nothing is live"

    def build(self, query: TPQuery, mode: str = "exact") -> "TPStreamProgram":
        program = TPStreamProgram(query, mode, "brute")
        program.engine_name = self.name
        return program


BRUTE_LIMIT = 300  # events: the brute-force definition enumerates every run and configuration


class TPStreamProgram(Program):
    """A TPStream query over EventBatches: buffered by `feed`, derived and matched at `close`."""

    engine_name = "reference"
    language = "tpstream"

    def __init__(self, query: TPQuery, mode: str = "exact", matcher: str = "matcher", derived=None):
        if mode not in MODES:
            raise QueryError(f"unknown TPStream mode '{mode}'", expected=list(MODES))
        self.query = query
        self.mode = mode
        self.matcher = matcher
        self.derived = derived      # run_query's hook: situations derived elsewhere (the gpu engine)
        self.batches: list[EventBatch] = []
        self.events = 0
        self.closed = False
        payload = list(query.partition_by)
        for n in query.streams:
            payload += [f"{n}.start", f"{n}.end"]
        payload += [r.name for r in query.returns]
        self._layout = Layout(variables=tuple(query.streams), payload=tuple(payload), detection=True)

    @property
    def layout(self) -> Layout:
        return self._layout

    def _feed(self, batch: EventBatch, progress=None) -> list[Match]:
        if self.closed:
            raise EventError("the TPStream program is closed: feed comes before close")
        if not isinstance(batch, EventBatch):
            raise EventError(f"a TPStream program feeds on EventBatches (cepkit.core.inputs.to_batch), "
                             f"not {type(batch).__name__}")
        if len(batch) == 0:
            return []
        if self.batches and self.batches[-1].ts_unit != batch.ts_unit:
            raise EventError(f"the batches' timestamp units differ ({self.batches[-1].ts_unit} then "
                             f"{batch.ts_unit})", column="ts")
        if self.batches and int(batch.ts[0]) < int(self.batches[-1].ts[-1]):
            raise EventError(f"timestamp {int(batch.ts[0])} goes back in time (the previous batch ended at "
                             f"{int(self.batches[-1].ts[-1])})", row=int(batch.source_rows[0]), column="ts")
        if self.matcher == "brute" and self.events + len(batch) > BRUTE_LIMIT:
            raise ResourceLimit(f"engine 'brute' enumerates every configuration and takes at most {BRUTE_LIMIT} "
                                f"events (got {self.events + len(batch)}): use --engine optimized or reference for "
                                "this input")
        if batch.positional_ids and self.events:  # made-up row ids continue across batches
            batch = _shifted(batch, self.events)
        self.batches.append(batch)
        self.events += len(batch)
        if progress is not None:
            progress(self.events, self.events)
        return []

    def _close(self) -> list[Match]:
        if self.closed:
            return []
        self.closed = True
        if not self.batches:
            return []
        batch = concat(self.batches)
        self.batches = []
        return self.rows(run_query(self.query, batch, self.mode, self.matcher, derived=self.derived), batch)

    def rows(self, matches, batch: EventBatch) -> list[Match]:
        """The table rows of run_query's matches over the batch."""
        ids = batch.ids.tolist()
        out = []
        for m in matches:
            payload = list(zip(self.query.partition_by, m.partition))
            for name, start, end in m.situations:
                payload += [(f"{name}.start", start), (f"{name}.end", end)]
            payload += list(m.values)
            bindings = tuple((name, tuple(ids[p] for p in ev)) for (name, _s, _e), ev in zip(m.situations, m.events))
            out.append(Match(bindings, m.ts, tuple(payload), detected=m.ts))
        return out


def _shifted(batch: EventBatch, offset: int) -> EventBatch:
    from dataclasses import replace

    return replace(batch, ids=batch.ids + offset, source_rows=batch.source_rows + offset)
