"""Running a TPStream query over an event batch, per partition: deriver + matcher (or the brute force)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cepkit.core.events import EventBatch
from cepkit.core.match import json_safe
from cepkit.reference.tpstream import brute
from cepkit.reference.tpstream.bind import Plan, compile_plan, partitions
from cepkit.reference.tpstream.early import EarlyMatcher
from cepkit.reference.tpstream.matcher import ExactMatcher
from cepkit.front.tpstream.query import TPQuery
from cepkit.front.tpstream.reads import aggregate
from cepkit.reference.tpstream.situations import Deriver, Situation
from cepkit.reference.tpstream.bind import compile_stream
from cepkit.front.tpstream.reads import check_columns, value_reader

MODES = ("exact", "early")
ENGINES = ("matcher", "brute")


@dataclass(frozen=True)
class TPMatch:
    """One reported configuration. `situations` holds (name, ts, te) per pattern situation, te None
    when the situation was still ongoing at detection; `ts` is the detection time (in exact mode the
    largest end time, Def 5.7); `values` the RETURN aggregates over each situation's events so far;
    `events` per situation the batch positions of its events so far (not part of the match's identity)."""

    partition: tuple
    situations: tuple[tuple[str, int, int | None], ...]
    ts: int
    values: tuple[tuple[str, Any], ...] = ()
    events: tuple = field(default=(), compare=False, repr=False)

    def key(self) -> tuple:
        """Identity of the configuration: the partition and each situation's start."""
        return (self.partition, tuple((n, s) for n, s, _e in self.situations))

    def to_json(self, partition_by: tuple[str, ...] = ()) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if partition_by:
            out["partition"] = {a: json_safe(v) for a, v in zip(partition_by, self.partition)}
        out["situations"] = {n: [s, e] for n, s, e in self.situations}
        out["ts"] = self.ts
        for name, v in self.values:
            out[name] = json_safe(v)
        return out


def _match(plan: Plan, key: tuple, members: list[tuple[int, int | None, tuple[int, ...]]], t: int) -> TPMatch:
    sits = tuple((plan.streams[i].name, ts, te) for i, (ts, te, _ev) in enumerate(members))
    values = tuple((name, aggregate(func, [plan.value(p, attr) for p in members[i][2]]))
                   for name, func, i, attr in plan.returns)
    return TPMatch(key, sits, t, values, tuple(m[2] for m in members))


def run_query(query: TPQuery, batch: EventBatch, mode: str = "exact", engine: str = "matcher",
              derived=None) -> list[TPMatch]:
    """Every match of the query over the batch, sorted by (ts, partition order of first event, starts).

    `derived(definitions, batch, parts)`, if given (exact mode, matcher), derives the situations instead of
    the Deriver: per partition, [(position, [Situation])] in event order (e.g. cepkit.gpu.situations)."""
    if mode not in MODES or engine not in ENGINES:
        raise ValueError(f"mode must be one of {MODES} and engine one of {ENGINES}")
    if derived is not None and (mode, engine) != ("exact", "matcher"):
        raise ValueError("derived situations feed the exact matcher only")
    plan = compile_plan(query, batch)
    parts = partitions(batch, query.partition_by)
    steps = derived([query.definition(n) for n in query.streams], batch, parts) if derived is not None else None
    out: list[tuple[tuple, TPMatch]] = []
    for order, (key, positions) in enumerate(parts):
        if steps is not None:
            found = _match_finished(plan, key, batch, steps[order])
        else:
            found = (_run_brute if engine == "brute" else _run_matcher)(plan, key, positions, batch, mode)
        out += [((m.ts, order, tuple(s for _n, s, _e in m.situations)), m) for m in found]
    out.sort(key=lambda x: x[0])
    return [m for _k, m in out]


def _members(config: tuple[Situation, ...], t: int) -> list:
    return [(s.ts, s.te if s.te is not None and s.te <= t else None, s.events) for s in config]


def _run_matcher(plan: Plan, key, positions, batch: EventBatch, mode: str) -> list[TPMatch]:
    deriver = Deriver(plan.streams)
    matcher = EarlyMatcher(plan, deriver) if mode == "early" else ExactMatcher(plan)
    found = []
    for pos in positions:
        t = int(batch.ts[pos])
        finished = deriver.step(int(pos), t)
        if finished or mode == "early":
            found += [_match(plan, key, _members(c, t), t) for c in matcher.update(t, finished)]
    return found


def _match_finished(plan: Plan, key, batch: EventBatch, steps) -> list[TPMatch]:
    """The exact matcher fed with situations derived elsewhere: [(position, finished situations)]."""
    matcher = ExactMatcher(plan)
    found = []
    for pos, finished in steps:
        t = int(batch.ts[pos])
        found += [_match(plan, key, _members(c, t), t) for c in matcher.update(t, finished)]
    return found


def _run_brute(plan: Plan, key, positions, batch: EventBatch, mode: str) -> list[TPMatch]:
    pos = [int(p) for p in positions]
    ts = [int(batch.ts[p]) for p in pos]
    if mode == "exact":
        return [_match(plan, key, list(config), t) for config, t in brute.exact(plan, pos, ts)]
    found = []
    for config, t in brute.early(plan, pos, ts):
        members = [(a, e if e is not None and e <= t else None,
                    tuple(p for p in ev if int(batch.ts[p]) <= t)) for a, e, ev in config]
        found.append(_match(plan, key, members, t))
    return found


def derive(definitions, batch: EventBatch, partition_by: tuple[str, ...] = ()):
    """The situations of each definition alone (no pattern), and the runs still open at the end:
    ([(partition, name, ts, te, events)], [(partition, name, ts, events so far)])."""

    check_columns(batch, definitions, [(a, False, "PARTITION BY") for a in partition_by])
    value = value_reader(batch)
    streams = [compile_stream(d, batch, value) for d in definitions]
    finished, still_open = [], []
    for key, positions in partitions(batch, partition_by):
        deriver = Deriver(streams)
        for p in positions:
            for s in deriver.step(int(p), int(batch.ts[p])):
                finished.append((key, streams[s.stream].name, s.ts, s.te, s.events))
        for i, st in enumerate(streams):
            run = deriver.ongoing(i)
            if run is not None:
                still_open.append((key, st.name, run.ts, run.events))
    return finished, still_open
