"""Replay intervals (spec/004 §3.4.2, Algorithm 3.1): candidates from secondary-index results, one
closed time interval per candidate, merged into disjoint intervals.

A candidate picks one index result per selected BS such that (C1) each is in its BS's result,
(C2) last.t - first.t <= w (inclusive, A16), (C3) BSs of one basic block sit at their fixed sequence
offsets, and across a Kleene symbol the later BS is at least (BSs in between + 1) positions later
(the safe tightening of A19).
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Selected:
    position: int                     # 1-based position in the symbol sequence
    results: Sequence[tuple[int, int]]   # (seq, t), sorted by seq


def bs_between(kinds: Sequence[str], i: int, j: int) -> int:
    """⊕bs(i, j): the number of BSs among symbols i..j (1-based, inclusive; 0 if i > j)."""
    return sum(1 for p in range(i, j + 1) if 1 <= p <= len(kinds) and kinds[p - 1] == "BS")


def interval(kinds: Sequence[str], i1: int, ik: int, t1: int, tk: int, w: int, strict_ts: bool) -> tuple[int, int]:
    n = len(kinds)
    if i1 == 1 and ik < n:
        return (t1, t1 + w)                     # (S1)
    if i1 == 1 and ik == n:
        return (t1, tk)                         # (S2)
    if i1 > 1 and ik == n:
        return (tk - w, tk)                     # (S3)
    shift = 1 if strict_ts else 0               # consecutive match events are >= 1 tick apart
    return (tk - w + shift * bs_between(kinds, ik + 1, n), t1 + w - shift * bs_between(kinds, 1, i1 - 1))


def _blocks(kinds: Sequence[str], selected: Sequence[Selected]) -> list[list[Selected]]:
    """Selected BSs grouped into basic blocks (no KS between members)."""
    groups: list[list[Selected]] = []
    for s in selected:
        if groups and "KS" not in kinds[groups[-1][-1].position:s.position - 1]:
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


def _occurrences(group: list[Selected]) -> list[tuple[int, int, int, int]]:
    """(first seq, first t, last seq, last t) of every occurrence of a basic block's selected BSs."""
    base = group[0]
    others = [(s.position - base.position, {q: t for q, t in s.results}) for s in group[1:]]
    out = []
    for seq, t in base.results:
        last = (seq, t)
        ok = True
        for off, hits in others:
            if seq + off not in hits:
                ok = False
                break
            last = (seq + off, hits[seq + off])
        if ok:
            out.append((seq, t, last[0], last[1]))
    return out


def candidate_intervals(kinds: Sequence[str], selected: Sequence[Selected], w: int,
                        strict_ts: bool) -> list[tuple[int, int]]:
    """Every candidate's replay interval (unmerged)."""
    if not selected:
        return []
    groups = _blocks(kinds, selected)
    occs = [_occurrences(g) for g in groups]
    firsts = [[o[0] for o in occ] for occ in occs]
    i1, ik = selected[0].position, selected[-1].position
    out: list[tuple[int, int]] = []

    memo: dict[tuple[int, int, int], frozenset] = {}

    def completions(g: int, t_first: int, last_seq: int, last_t: int) -> frozenset:
        """The last t of every completion of groups g.. after a group ending at (last_seq, last_t)."""
        if g == len(groups):
            return frozenset([last_t])
        key = (g, t_first, last_seq)
        if key not in memo:
            gap = bs_between(kinds, groups[g - 1][-1].position + 1, groups[g][0].position - 1) + 1
            found: set[int] = set()
            for o in occs[g][bisect.bisect_left(firsts[g], last_seq + gap):]:
                if o[1] - t_first > w:
                    break
                if o[3] - t_first <= w:
                    found |= completions(g + 1, t_first, o[2], o[3])
            memo[key] = frozenset(found)
        return memo[key]

    for o in occs[0]:
        if o[3] - o[1] > w:
            continue
        for tk in completions(1, o[1], o[2], o[3]):
            out.append(interval(kinds, i1, ik, o[1], tk, w, strict_ts))
    return out


def merge(intervals: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Disjoint closed intervals; [a, b] and [c, d] merge when b + 1 >= c (A21)."""
    out: list[list[int]] = []
    for a, b in sorted(intervals):
        if a > b:
            continue
        if out and out[-1][1] + 1 >= a:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]
