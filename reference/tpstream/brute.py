"""The brute-force definition (Defs 5.2, 5.6-5.8, and §5.8's early-output rule), written independently
of the deriver and the matchers: it enumerates every run and every configuration."""
from __future__ import annotations

import itertools
from typing import Sequence

from cepkit.front.tpstream import allen
from cepkit.reference.tpstream.bind import Plan, Stream


def runs(stream: Stream, positions: Sequence[int], ts: Sequence[int]) -> list[tuple[int, int | None, tuple[int, ...]]]:
    """Every maximal run of events satisfying the condition: (ts, te or None if open at the end, events)."""
    n = len(positions)
    sat = [stream.test(p) for p in positions]
    out = []
    for i in range(n):
        for j in range(i, n):
            if not all(sat[i:j + 1]) or (i > 0 and sat[i - 1]) or (j + 1 < n and sat[j + 1]):
                continue
            te = ts[j + 1] if j + 1 < n else None
            out.append((ts[i], te, tuple(positions[i:j + 1])))
    return out


def situations(stream: Stream, positions: Sequence[int], ts: Sequence[int]) -> list[tuple[int, int, tuple[int, ...]]]:
    """Def 5.2: maximal runs closed by a non-satisfying event, with te - ts in the duration range."""
    return [(a, e, ev) for a, e, ev in runs(stream, positions, ts) if e is not None and stream.duration_ok(e - a)]


def exact(plan: Plan, positions: Sequence[int], ts: Sequence[int]):
    """Def 5.8: (configuration, result ts = max te) for every configuration satisfying P and the window."""
    per = [situations(s, positions, ts) for s in plan.streams]
    out = []
    for config in itertools.product(*per):
        if not all(any(allen.holds(r, config[i][:2], config[j][:2]) for r in rels)
                   for i, rels, j in plan.constraints):
            continue
        last = max(c[1] for c in config)
        if last - min(c[0] for c in config) <= plan.window:
            out.append((config, last))
    return out


def _known(run, t):
    return run[1] is not None and run[1] <= t


def _visible(run, stream: Stream, t) -> bool:
    if run[0] > t:
        return False
    if _known(run, t):
        return stream.duration_ok(run[1] - run[0])
    return stream.dmax is None and t - run[0] >= stream.dmin


def _certain(plan: Plan, config, t) -> bool:
    unknown = [k for k, r in enumerate(config) if not _known(r, t)]
    for ends in itertools.product((t + 1, t + 2), repeat=len(unknown)):
        te = [r[1] for r in config]
        for k, e in zip(unknown, ends):
            te[k] = e
        for i, rels, j in plan.constraints:
            if not any(allen.holds(r, (config[i][0], te[i]), (config[j][0], te[j])) for r in rels):
                return False
    return True


def early(plan: Plan, positions: Sequence[int], ts: Sequence[int]):
    """(configuration of runs, detection time t) for each configuration: t is the first event time with
    every member visible and every constraint certain for all completions; kept if t - min ts <= WITHIN."""
    per = [runs(s, positions, ts) for s in plan.streams]
    out = []
    for config in itertools.product(*per):
        for t in ts:
            if all(_visible(r, s, t) for r, s in zip(config, plan.streams)) and _certain(plan, config, t):
                if t - min(r[0] for r in config) <= plan.window:
                    out.append((config, t))
                break
    return out
