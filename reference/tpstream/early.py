"""The low-latency matcher (Algorithm 5.4, §5.8): a configuration is reported at the first event time
at which all its members are visible, every temporal constraint is certain whatever the ongoing
situations' end times turn out to be, and t - min(ts) <= WITHIN (spec/004 A4, option a).

New matches can only appear when a situation starts being visible or ends, and only where that start
or end can carry a detection time (tp_min, `detection.py`), so only those situations trigger a search.
Duplicates are excluded by a direct test instead of Algorithm 5.4's powersets of ongoing situations: a
configuration is new at t only if it was not already certain at the previous event time, and among the
situations that changed at t it is reported from the first one only.
"""
from __future__ import annotations

from cepkit.reference.tpstream.bind import Plan
from cepkit.reference.tpstream.buffer import Buffer
from cepkit.reference.tpstream.certainty import certain, known_te, visible
from cepkit.front.tpstream.detection import triggers
from cepkit.front.tpstream.order import evaluation_order
from cepkit.reference.tpstream.situations import Deriver, Situation


class EarlyMatcher:
    """One partition's low-latency matcher; reads the deriver's open runs as ongoing situations."""

    def __init__(self, plan: Plan, deriver: Deriver):
        self.plan = plan
        self.deriver = deriver
        self.buffers = [Buffer() for _ in plan.streams]
        self.orders = [evaluation_order(plan, i) for i in range(len(plan.streams))]
        self.prev: int | None = None
        self.on_start, self.on_end = triggers([s.dmin > 0 for s in plan.streams],
                                              [s.dmax is not None for s in plan.streams], plan.constraints)
        self.ongoing: list[Situation | None] = [None] * len(plan.streams)

    def update(self, t: int, finished: list[Situation]) -> list[tuple[Situation, ...]]:
        """The configurations that became certain at event time t (members' te None while ongoing)."""
        plan, prev = self.plan, self.prev
        self.prev = t
        bound = t - plan.window
        for b in self.buffers:
            b.purge(bound)
        changed: list[Situation] = []
        for s in finished:  # ends: te now known (or first visible, for a maximum duration)
            if s.ts >= bound:
                self.buffers[s.stream].add(s)
                if self.on_end[s.stream]:
                    changed.append(s)
        self.ongoing = []
        for i, stream in enumerate(plan.streams):
            s = self.deriver.ongoing(i)
            if s is not None and (s.ts < bound or not visible(s, stream, t)):
                s = None
            self.ongoing.append(s)
            if s is not None and self.on_start[i] and not (prev is not None and visible(s, stream, prev)):
                changed.append(s)  # a start (or a delayed start under AT LEAST)
        out: list[tuple[Situation, ...]] = []
        for rank, s in enumerate(changed):
            earlier = {(c.stream, c.ts) for c in changed[:rank]}
            self._perform(t, prev, {s.stream: s}, self.orders[s.stream], 0, earlier, out)
        return out

    def _perform(self, t, prev, ws: dict[int, Situation], steps, k: int, earlier: set, out: list) -> None:
        if k == len(steps):
            config = tuple(ws[i] for i in range(len(self.plan.streams)))
            if not self._was_certain(config, prev):
                out.append(config)
            return
        j, cons = steps[k]
        # finished candidates: an ongoing partner's end lies above every known endpoint, so t + 1 stands in
        query = [(rels, ws[p].ts, t + 1 if known_te(ws[p], t) is None else ws[p].te) for p, rels in cons]
        candidates = self.buffers[j].select(query)
        y = self.ongoing[j]
        if y is not None and all(certain(rels, ws[p], y, t) for p, rels in cons):
            candidates = candidates + [y]
        for y in candidates:
            if (y.stream, y.ts) in earlier:
                continue
            ws[j] = y
            self._perform(t, prev, ws, steps, k + 1, earlier, out)
            del ws[j]

    def _was_certain(self, config: tuple[Situation, ...], prev: int | None) -> bool:
        """Whether the configuration was already visible and certain at the previous event time."""
        if prev is None:
            return False
        streams = self.plan.streams
        if not all(visible(s, streams[s.stream], prev) for s in config):
            return False
        return all(certain(rels, config[i], config[j], prev) for i, rels, j in self.plan.constraints)

