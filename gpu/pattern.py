"""Sequential pattern matching on an OpenCL device (spec/004 §4.6), one partition at a time, fed in batches.

The host keeps partial matches on the device between batches (three array sets: the batch's initial state is
only read, the steps ping-pong between the other two, so a batch whose arrays overflow is replayed from its
initial state with larger arrays; nothing is ever dropped or truncated). Bound rows are nodes of a
parent-pointer forest (row, position, parent), so Kleene variables of any length fit; the host mirrors the
nodes to rebuild each match and collects the nodes no partial match reaches any more.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from cepkit.gpu.device import Runtime
from cepkit.gpu.launch import kernel_ns
from cepkit.gpu.columns import DeviceColumn
from cepkit.gpu.pattern_kernel import OVF_MATCH, OVF_NODE, OVF_PM, fields, slot_shape, source
from cepkit.gpu.pattern_plan import PatternPlan
from cepkit.core.errors import EventError

Match = tuple[tuple[int, ...], tuple[str, ...]]   # partition rows and their variables


def _cl():
    import pyopencl as cl
    return cl


_KERNELS: dict = {}
LAUNCHES = ("batch", "event")
LAUNCH = "batch"      # the default: one launch per batch of events (docs/performance.md has the figures)
GROUP = 256           # work-items of the batch kernel's work-group (at most; the device may allow fewer)


def _kernels(program, launch: str) -> list:
    """Kernel instances of a built program, each keeping its own bound arguments. "event": three step
    kernels (first step, odd steps, even steps), so a launch within a batch only sets the step number;
    "batch": the one batch kernel."""
    k = _KERNELS.get((id(program), launch))
    if k is None:
        names = ["cepkit_seq_step"] * 3 if launch == "event" else ["cepkit_seq_batch"]
        k = _KERNELS[(id(program), launch)] = (program, [_cl().Kernel(program, name) for name in names])
    return k[1]


def group_size(rt: Runtime, kernel) -> int:
    """Work-items of the batch kernel's single work-group: GROUP or what the device and kernel allow."""
    cl = _cl()
    return max(1, min(GROUP, rt.device.max_work_group_size,
                      kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, rt.device)))


@dataclass
class _PMSet:
    """One set of partial-match arrays with room for `cap` PMs."""

    cap: int
    bufs: list = field(default_factory=list)


class DevicePatternMatcher:
    """All matches of a plan over one partition at a time, fed in batches of rows with state carried over."""

    def __init__(self, rt: Runtime, plan: PatternPlan, columns: Mapping[str, DeviceColumn],
                 within: tuple[int, bool] | None, pm_cap: int = 1024, node_cap: int = 1 << 14,
                 match_cap: int = 1024, launch: str = LAUNCH):
        """`columns`: the DEFINE columns (their structure and dictionaries fix the kernel); `within`:
        (amount in key ticks, exclusive) or None; `launch`: "batch" (one launch runs a batch's events in one
        work-group) or "event" (one launch per event, a work-item per partial match)."""
        if launch not in LAUNCHES:
            raise ValueError(f"launch must be one of {', '.join(LAUNCHES)}, got {launch!r}")
        self.rt, self.plan, self.launch = rt, plan, launch
        self.kernels = _kernels(rt.build(source(plan, columns)), launch)
        self.group = group_size(rt, self.kernels[0]) if launch == "batch" else 0
        self.window = window_args(within)
        dtypes = {"long": np.int64, "double": np.float64, "code": np.int32, "int": np.int32, "uchar": np.uint8}
        self.fields = [np.int32, np.int64, np.int8, np.int32]
        for sl in plan.slots:
            self.fields += [dtypes[t] for t, _f in fields(slot_shape(columns[sl.col]), "s")]
        self.caps = (pm_cap, node_cap, match_cap)
        self.kernel_s = 0.0                              # device time of the step kernels (profiling)
        self.state: Callable[[int], None] | None = None  # run(): told the live state (raises past the bound)
        self.held = 0                                    # run(): the matches found so far in the partition
        self.reset()

    def reset(self) -> None:
        """Forget every partial match (a new partition starts)."""
        pm_cap, node_cap, self.mcap = self.caps
        self.count = 0                                   # PMs in the initial set
        self.init = self._pmset(1)
        self.spare = [self._pmset(pm_cap), self._pmset(pm_cap)]
        self.ncap = node_cap
        self.nodes = [self._buf(np.int64, node_cap), self._buf(np.int32, node_cap), self._buf(np.int32, node_cap)]
        self.nused = 0
        self.host_nodes = (np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32))
        self.rows = 0                                    # partition rows fed so far

    def run(self, columns: Mapping[str, DeviceColumn], key: np.ndarray, keyn: np.ndarray,
            batch: int = 4096, state: Callable[[int], None] | None = None, want: int | None = None) -> list[Match]:
        """Every match over one partition's rows (columns as given to the constructor, over these rows),
        fed in batches of `batch` rows; window keys (ascending) and their nulls. `state(live)` is told the
        partial matches plus the matches held, after each batch and before an array grows past them (it raises
        ResourceLimit past the run's bound); `want`: only the first `want` matches are wanted, so batches start
        at one row and double (a batch's matches all end in it, so those found first sort first)."""
        self.reset()
        self.state, self.held = state, 0
        out: list[Match] = []
        start, size = 0, batch if want is None else 1
        while start < len(key):
            stop = min(len(key), start + size)
            out += self.feed(columns, key, keyn, start, stop)
            start = stop
            self.held = len(out)
            if state is not None:
                state(self.count + self.held)
            if want is not None:
                if len(out) >= want:
                    break
                size = min(batch, 2 * size)
        return out

    # ----------------------------------------------------------------- buffers
    def _buf(self, dtype, n: int):
        cl = _cl()
        return cl.Buffer(self.rt.context, cl.mem_flags.READ_WRITE, size=max(1, n) * np.dtype(dtype).itemsize)

    def _pmset(self, cap: int) -> _PMSet:
        return _PMSet(cap, [self._buf(t, cap) for t in self.fields])

    def _upload(self, arr: np.ndarray):
        cl = _cl()
        arr = np.ascontiguousarray(arr) if arr.size else np.zeros(1, arr.dtype)
        return cl.Buffer(self.rt.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=arr)

    def _read(self, buf, dtype, n: int, offset: int = 0) -> np.ndarray:
        cl = _cl()
        out = np.empty(n, dtype)
        if n:
            cl.enqueue_copy(self.rt.queue, out, buf, src_offset=offset * np.dtype(dtype).itemsize)
        return out

    def _grow_nodes(self, need: int) -> None:
        cl = _cl()
        cap = max(2 * self.ncap, 2 * need)
        new = [self._buf(t, cap) for t in (np.int64, np.int32, np.int32)]
        for old, nb, t in zip(self.nodes, new, (np.int64, np.int32, np.int32)):
            if self.nused:
                cl.enqueue_copy(self.rt.queue, nb, old, byte_count=self.nused * np.dtype(t).itemsize)
        self.nodes, self.ncap = new, cap

    # ----------------------------------------------------------------- feeding
    def feed(self, columns: Mapping[str, DeviceColumn], key: np.ndarray, keyn: np.ndarray, start: int,
             stop: int) -> list[Match]:
        """Advance over rows start..stop-1 of the partition (the rows before start were fed already); the
        matches whose last row is among them, deduplicated and in the reference's order."""
        n = stop - start
        if n <= 0:
            return []
        h = self.plan.history
        lo = h - min(h, start)                      # rows before the partition's first one are null
        sel = slice(start - (h - lo), stop)
        arrays = []
        for c in self.plan.columns:
            for arr in columns[c].arrays():
                arrays.append(self._upload(np.concatenate([np.zeros(lo, arr.dtype), arr[sel]])))
        kbuf = self._upload(np.concatenate([np.zeros(h, np.int64), key[start:stop]]))
        knbuf = self._upload(np.concatenate([np.ones(h, np.int8), keyn[start:stop]]))
        while True:
            result = self._run(n, h, lo, arrays, kbuf, knbuf)
            if result is not None:
                break
        self.rows += n
        return result

    def _run(self, n: int, h: int, lo: int, arrays, kbuf, knbuf) -> list[Match] | None:
        """Run the batch's steps; None after growing overflowed arrays (the caller replays)."""
        cl = _cl()
        q = self.rt.queue
        cnt = np.zeros(n + 1, np.int32)
        cnt[0] = self.count
        counters = np.array([self.nused, 0, 0, 0], np.int32)   # nodes used, matches, flags, cepkit_err
        cnt_buf = cl.Buffer(self.rt.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=cnt)
        ctr_buf = cl.Buffer(self.rt.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=counters)
        mnode = self._buf(np.int32, self.mcap)
        sets = [self.init, self.spare[0], self.spare[1]]
        common = (np.int32(h), np.int32(lo), np.int64(self.rows), *self.window, kbuf, knbuf, *arrays, cnt_buf)
        tail = (*self.nodes, np.int32(self.ncap), mnode, np.int32(self.mcap), ctr_buf)
        if self.launch == "batch":
            # one work-group runs every step: set 0 -> 1, then 1 -> 2 and 2 -> 1 alternately
            self.kernels[0].set_args(np.int32(n), *common, np.int32(sets[0].cap), np.int32(sets[1].cap),
                                     *sets[0].bufs, *sets[1].bufs, *sets[2].bufs, *tail)
            events = [cl.enqueue_nd_range_kernel(q, self.kernels[0], (self.group,), (self.group,))]
        else:
            events = self._launch_steps(n, sets, common, tail)
        cl.enqueue_copy(q, cnt, cnt_buf)
        cl.enqueue_copy(q, counters, ctr_buf)
        q.finish()
        self.kernel_s += kernel_ns(events) * 1e-9
        nused, nmatch, flags, err = (int(x) for x in counters)
        if err:
            raise EventError(f"integer overflow in a DEFINE condition at partition rows {self.rows + 1}.."
                             f"{self.rows + n} (engine gpu)")
        if flags:
            if self.state is not None:   # the arrays would grow past the run's bound: stop before they do
                self.state(max(int(cnt.max()), nmatch) + self.held)
            if flags & OVF_PM:
                cap = max(2 * self.spare[0].cap, 2 * int(cnt.max()))
                self.spare = [self._pmset(cap), self._pmset(cap)]
            if flags & OVF_NODE:
                self._grow_nodes(nused)
            if flags & OVF_MATCH:
                self.mcap = max(2 * self.mcap, 2 * nmatch)
            return None
        final = sets[1 + (n - 1) % 2]
        self.count = int(cnt[n])
        peak = int(cnt.max())
        if 4 * peak < final.cap and final.cap > self.caps[0]:
            # the batch's peak is far below the arrays: shrink them, so launches span fewer work-items
            cap = max(self.caps[0], 2 * peak)
            self.init, self.spare = self._pmset(cap), [self._pmset(cap), self._pmset(cap)]
            self._copy_pms(final, self.init)
        else:
            old = self.init if self.init.cap >= final.cap else self._pmset(final.cap)
            self.init, self.spare = final, [old, sets[1 + n % 2]]
        self._mirror(nused)
        out = self._matches(self._read(mnode, np.int32, nmatch))
        if self.nused > self.ncap // 2:
            self._collect()
        return out

    def _launch_steps(self, n: int, sets: list[_PMSet], common: tuple, tail: tuple) -> list:
        """Enqueue one step kernel per event (launch "event"); their OpenCL events."""
        cl = _cl()
        # kernel 0: the first step (initial set -> set 1); kernel 1 (2): odd (even) steps, set 1 -> 2 (2 -> 1)
        pairs = [(sets[0], sets[1]), (sets[1], sets[2]), (sets[2], sets[1])]
        for kern, (src, dst) in zip(self.kernels, pairs):
            kern.set_args(np.int32(0), *common, np.int32(src.cap), np.int32(dst.cap), *src.bufs, *dst.bufs, *tail)
        events = []
        sizes = [(max(src.cap, 1),) for src, _dst in pairs]
        for j in range(n):
            k = 0 if j == 0 else 1 + (j + 1) % 2
            self.kernels[k].set_arg(0, np.int32(j))
            events.append(cl.enqueue_nd_range_kernel(self.rt.queue, self.kernels[k], sizes[k], None))
        return events

    def _copy_pms(self, src: _PMSet, dst: _PMSet) -> None:
        """Copy the first `count` partial matches of one array set into another (device to device)."""
        cl = _cl()
        if self.count:
            for a, b, t in zip(src.bufs, dst.bufs, self.fields):
                cl.enqueue_copy(self.rt.queue, b, a, byte_count=self.count * np.dtype(t).itemsize)

    # ----------------------------------------------------------------- nodes and matches
    def _mirror(self, nused: int) -> None:
        new = [self._read(b, t, nused - self.nused, self.nused)
               for b, t in zip(self.nodes, (np.int64, np.int32, np.int32))]
        self.host_nodes = tuple(np.concatenate([old, x]) for old, x in zip(self.host_nodes, new))
        self.nused = nused

    def _matches(self, ids: np.ndarray) -> list[Match]:
        rows, pos, par = (a.tolist() for a in self.host_nodes) if len(ids) else ([], [], [])
        labels = self.plan.automaton.labels
        found = set()
        for m in ids.tolist():
            rs, ls = [], []
            while m >= 0:
                rs.append(rows[m])
                ls.append(labels[pos[m]])
                m = par[m]
            found.add((tuple(reversed(rs)), tuple(reversed(ls))))
        return sorted(found, key=lambda m: (m[0][-1], m[0][0], m[0], m[1]))

    def _collect(self) -> None:
        """Drop the nodes no partial match reaches; renumber the rest on the host and the device."""
        cl = _cl()
        node_buf = self.init.bufs[3]
        roots = self._read(node_buf, np.int32, self.count)
        rows, pos, par = self.host_nodes
        live = np.zeros(len(par), bool)
        front = roots[roots >= 0]
        while front.size:
            front = front[~live[front]]
            live[front] = True
            front = par[front]
            front = front[front >= 0]
        index = np.full(len(par) + 1, -1, np.int32)   # index[-1] = -1 keeps root parents
        keep = np.flatnonzero(live)
        index[keep] = np.arange(len(keep), dtype=np.int32)
        self.host_nodes = (rows[keep], pos[keep], index[par[keep]])
        self.nused = len(keep)
        if self.nused > self.ncap // 2:
            self.ncap = 4 * self.nused
            self.nodes = [self._buf(t, self.ncap) for t in (np.int64, np.int32, np.int32)]
        for b, a in zip(self.nodes, self.host_nodes):
            if len(a):
                cl.enqueue_copy(self.rt.queue, b, np.ascontiguousarray(a))
        if self.count:
            cl.enqueue_copy(self.rt.queue, node_buf, np.ascontiguousarray(index[roots]))


def window_args(within: tuple[int, bool] | None) -> tuple[np.int32, np.uint64]:
    """(wmode, wspan) kernel arguments of WITHIN (amount in key ticks, exclusive) or None."""
    if within is None:
        return np.int32(0), np.uint64(0)
    amount = within[0] - (1 if within[1] else 0)
    if amount < 0:
        return np.int32(2), np.uint64(0)
    if amount >= 1 << 64:
        return np.int32(3), np.uint64(0)
    return np.int32(1), np.uint64(amount)
