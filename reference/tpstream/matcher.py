"""The matcher without early output, Algorithms 5.2 / 5.3: each configuration is found once, when its
last situation finishes, and reported at that time (its largest end time, Def 5.7)."""
from __future__ import annotations

from cepkit.reference.tpstream.bind import Plan
from cepkit.reference.tpstream.buffer import Buffer
from cepkit.front.tpstream.order import evaluation_order
from cepkit.reference.tpstream.situations import Situation


class ExactMatcher:
    """One partition's matcher: a buffer per stream, purged to ts >= t - WITHIN."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.buffers = [Buffer() for _ in plan.streams]
        self.orders = [evaluation_order(plan, i) for i in range(len(plan.streams))]

    def update(self, t: int, finished: list[Situation]) -> list[tuple[Situation, ...]]:
        """UpdateMatcher(SF, t): the configurations completed by the situations finishing at t."""
        bound = t - self.plan.window
        for b in self.buffers:
            b.purge(bound)
        out: list[tuple[Situation, ...]] = []
        for s in finished:
            if s.ts < bound:  # longer than the window: in no configuration
                continue
            self.buffers[s.stream].add(s)
            self._perform({s.stream: s}, self.orders[s.stream], 0, out)
        return out

    def _perform(self, ws: dict[int, Situation], steps, k: int, out: list) -> None:
        """PerformMatch: extend the partial configuration `ws` along the evaluation order."""
        if k == len(steps):
            out.append(tuple(ws[i] for i in range(len(self.plan.streams))))
            return
        j, cons = steps[k]
        query = [(rels, ws[p].ts, ws[p].te) for p, rels in cons]
        for y in self.buffers[j].select(query):
            ws[j] = y
            self._perform(ws, steps, k + 1, out)
            del ws[j]
