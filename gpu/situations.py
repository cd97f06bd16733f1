"""TPStream situation derivation (spec/004 §5.6, Algorithm 5.1) on an OpenCL device, in chunks of events.

Events are taken partition by partition (the reference's partitions, in order of first event). Per chunk:
a kernel evaluates every situation condition on every event (one work-item per event); a run starts where
the condition holds and did not hold on the partition's previous event; an inclusive max-scan of the start
positions gives every event the start of its run; a scan over "run ends here" (the condition fails after
holding) compacts the finished situations whose duration te - ts lies in the inclusive bounds. The run
still open at the end of a chunk is carried into the next one. The result equals cepkit.reference.tpstream's
Deriver: situations with te = the time of the first event failing the condition, that event excluded.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from cepkit.gpu.clexpr import PRELUDE, predicate
from cepkit.gpu.columns import device_columns, raw_column
from cepkit.gpu.device import runtime
from cepkit.gpu.launch import kernel_ns
from cepkit.core.errors import EventError, Unsupported
from cepkit.front.language import ast as A
from cepkit.front.tpstream.query import SituationDef
from cepkit.reference.tpstream.situations import Situation
from cepkit.reference.tpstream.bind import partitions
from cepkit.front.tpstream.reads import check_columns
from cepkit.reference.tpstream.run import run_query as reference_run_query

ENGINE = "gpu"
CHUNK = 1 << 16
_I64_MAX = (1 << 63) - 1


def _attrs(defs: Sequence[SituationDef]) -> list[str]:
    return list(dict.fromkeys(n.attr for d in defs for n in d.condition.walk() if isinstance(n, A.AttrRef)))


def _bounds(d: SituationDef, ts_unit: str | None) -> tuple[int, int]:
    """Inclusive integer duration bounds (min, max; max -1: none) of a definition in timestamp ticks."""
    lo = d.at_least.ticks(ts_unit) if d.at_least is not None else 0
    hi = d.at_most.ticks(ts_unit) if d.at_most is not None else None
    lo_i = max(0, math.ceil(lo))
    hi_i = -1 if hi is None else math.floor(hi)
    if hi is not None and hi_i < lo_i:
        return 1, 0   # an empty range: every duration is at least 1 (distinct timestamps), none is <= 0
    return min(lo_i, _I64_MAX), min(hi_i, _I64_MAX)


_SCAN_PREAMBLE = """
#define END(k) end_of(k, n, off, flag, seg, runstart, t, copen, cstart, cts, dmin, dmax)
int end_of(long k, long n, long off, __global const uchar *flag, __global const uchar *seg,
           __global const long *runstart, __global const long *t, __global const uchar *copen,
           __global const long *cstart, __global const long *cts, __global const long *dmin,
           __global const long *dmax) {
    long s = k / n, i = k % n;
    if (flag[k]) return 0;
    int prev = seg[i] ? 0 : (i == 0 ? copen[s] : flag[k - 1]);
    if (!prev) return 0;
    long rs = i == 0 ? cstart[s] : runstart[k - 1];
    long ts = rs >= off ? t[rs - off] : cts[s];
    ulong d = (ulong)t[i] - (ulong)ts;                 /* t ascends in a partition */
    if (d < (ulong)dmin[s]) return 0;
    if (dmax[s] >= 0 && d > (ulong)dmax[s]) return 0;
    return 1;
}
"""


@dataclass
class _Programs:
    flags: object
    starts: object
    scan: object
    ends: object


_PROGRAMS: dict = {}   # (runtime, flags source) -> built kernels: the scans are built once per runtime


class DeviceDeriver:
    """The situations of definitions over an EventBatch, derived on the device."""

    def __init__(self, defs: Sequence[SituationDef], batch, device: str | None = None, chunk: int = CHUNK,
                 conventions: A.Conventions = A.TPSTREAM_CONVENTIONS):
        self.defs, self.batch, self.chunk = tuple(defs), batch, chunk
        self.conventions = conventions   # the query's: clexpr generates the conditions under its null logic
        self.rt = runtime(device)
        names = _attrs(self.defs)
        cols = device_columns([raw_column(batch, a) for a in names], ", ".join(names)) if names else []
        self.columns = dict(zip(names, cols))
        bounds = [_bounds(d, batch.ts_unit) for d in self.defs]
        self.dmin = np.array([lo for lo, _ in bounds], np.int64)
        self.dmax = np.array([hi for _, hi in bounds], np.int64)
        self.progs = self._build()
        self.kernel_s = 0.0

    def _build(self) -> _Programs:
        params = [p for a, dc in self.columns.items() for p in dc.params(f"c{list(self.columns).index(a)}")]
        names = list(self.columns)
        preds = []
        for d in self.defs:
            def resolve(node, d=d):
                if isinstance(node, A.AttrRef) and node.index is None:
                    return self.columns[node.attr].operand(f"c{names.index(node.attr)}", "i")
                pos = getattr(node, "pos", None)
                raise Unsupported(ENGINE, f"{type(node).__name__} in the condition of situation {d.name}",
                                  pos.line if pos else None, pos.column if pos else None)
            preds.append(predicate(d.condition, resolve, ENGINE, self.conventions))
        body = "\n".join(f"    flag[{k} * n + i] = {p};" for k, p in enumerate(preds))
        src = PRELUDE + "\n__kernel void cepkit_sit_flags(const long n, " + ", ".join(
            params + ["__global uchar *flag", "__global int *cepkit_err"]) + ") {\n" \
            "    long i = get_global_id(0);\n    if (i >= n) return;\n" + body + "\n}\n" + """
__kernel void cepkit_sit_starts(const long n, const long off, __global const uchar *flag,
        __global const uchar *seg, __global const uchar *copen, __global const long *cstart,
        __global long *mark) {
    long k = get_global_id(0);
    long s = k / n, i = k % n;
    int prev = seg[i] ? 0 : (i == 0 ? copen[s] : flag[k - 1]);
    mark[k] = !flag[k] ? -1 : (!prev ? off + i : (i == 0 ? cstart[s] : -1));
}
"""
        key = (id(self.rt), src)
        if key not in _PROGRAMS:
            _PROGRAMS[key] = self._compile(src)
        return _PROGRAMS[key]

    def _compile(self, src: str) -> _Programs:
        from pyopencl.scan import GenericScanKernel

        prog = self.rt.build(src)
        ctx = self.rt.context
        scan = GenericScanKernel(ctx, np.int64, arguments="long seglen, __global const long *x, __global long *y",
                                 input_expr="x[i]", scan_expr="across_seg_boundary ? b : max(a, b)", neutral="-1",
                                 is_segment_start_expr="i % seglen == 0", output_statement="y[i] = item;")
        ends = GenericScanKernel(
            ctx, np.int32,
            arguments="long n, long off, __global const uchar *flag, __global const uchar *seg, "
                      "__global const long *runstart, __global const long *t, __global const uchar *copen, "
                      "__global const long *cstart, __global const long *cts, __global const long *dmin, "
                      "__global const long *dmax, __global long *out_end, __global long *out_start, "
                      "__global int *count",
            input_expr="END(i)", scan_expr="a + b", neutral="0", preamble=_SCAN_PREAMBLE,
            output_statement="if (prev_item != item) { out_end[item - 1] = i; "
                             "out_start[item - 1] = (i % n) == 0 ? cstart[i / n] : runstart[i - 1]; } "
                             "if (i == N - 1) count[0] = item;")
        import pyopencl as cl

        return _Programs(cl.Kernel(prog, "cepkit_sit_flags"), cl.Kernel(prog, "cepkit_sit_starts"), scan, ends)

    def derive(self, parts: Sequence[tuple[tuple, np.ndarray]]):
        """For partitions (key, batch positions), the finished situations of each, as [(position,
        [Situation])] in event order, and the runs open at its end as [(stream, ts, positions)]."""
        import pyopencl.array as cla

        q = self.rt.queue
        order = np.concatenate([p for _k, p in parts]) if parts else np.zeros(0, np.int64)
        seg = np.zeros(len(order), np.uint8)
        lasts, start = [], 0
        for _k, p in parts:
            seg[start] = 1
            start += len(p)
            lasts.append(start - 1)
        ts = np.asarray(self.batch.ts, np.int64)[order]
        cols = {a: dc.take(order) for a, dc in self.columns.items()}
        S = len(self.defs)
        copen = np.zeros(S, np.uint8)
        cstart = np.full(S, -1, np.int64)
        cts = np.zeros(S, np.int64)
        ends: list[tuple[int, int, int]] = []               # (end index, stream, start index)
        opened: dict[int, list[tuple[int, int]]] = {}        # last index of a partition -> (stream, start)
        dmin, dmax = cla.to_device(q, self.dmin), cla.to_device(q, self.dmax)
        err = cla.zeros(q, 1, np.int32)
        for off in range(0, len(order), self.chunk):
            n = min(self.chunk, len(order) - off)
            sl = slice(off, off + n)
            arrays = [cla.to_device(q, np.ascontiguousarray(a[sl])) for dc in cols.values() for a in dc.arrays()]
            flag = cla.empty(q, S * n, np.uint8)
            ev = self.progs.flags(q, (n,), None, np.int64(n), *[a.data for a in arrays], flag.data, err.data)
            seg_d, t_d = cla.to_device(q, seg[sl]), cla.to_device(q, ts[sl])
            copen_d, cstart_d, cts_d = cla.to_device(q, copen), cla.to_device(q, cstart), cla.to_device(q, cts)
            mark = cla.empty(q, S * n, np.int64)
            self.progs.starts(q, (S * n,), None, np.int64(n), np.int64(off), flag.data, seg_d.data,
                              copen_d.data, cstart_d.data, mark.data)
            runstart = cla.empty(q, S * n, np.int64)
            self.progs.scan(np.int64(n), mark, runstart, queue=q)   # segmented by stream
            out_end, out_start = cla.empty(q, S * n, np.int64), cla.empty(q, S * n, np.int64)
            count = cla.zeros(q, 1, np.int32)
            self.progs.ends(np.int64(n), np.int64(off), flag, seg_d, runstart, t_d, copen_d, cstart_d, cts_d, dmin,
                            dmax, out_end, out_start, count, queue=q, size=S * n)
            c = int(count.get()[0])
            e, st = out_end[:c].get() if c else [], out_start[:c].get() if c else []
            for k, rs in zip(np.asarray(e).tolist(), np.asarray(st).tolist()):
                ends.append((off + k % n, k // n, rs))
            # the runs open at the chunk's end and at the partition ends inside the chunk
            idx = [x - off for x in lasts if off <= x < off + n]
            if n - 1 not in idx:
                idx.append(n - 1)
            at = np.array([s * n + i for s in range(S) for i in idx], np.int64)
            at_d = cla.to_device(q, at)
            fl, rs = cla.take(flag, at_d, queue=q).get(), cla.take(runstart, at_d, queue=q).get()
            for (s, i), f, r in zip(((s, i) for s in range(S) for i in idx), fl.tolist(), rs.tolist()):
                if f and off + i in lasts:
                    opened.setdefault(off + i, []).append((s, r))
                if i == n - 1:
                    copen[s], cstart[s] = f, r
                    cts[s] = ts[r] if f else 0
            q.finish()
            self.kernel_s += kernel_ns([ev]) * 1e-9
        if int(err.get()[0]):
            raise EventError("integer overflow in a situation condition (engine gpu)")
        return self._split(parts, order, ts, ends, opened, lasts)

    def _split(self, parts, order, ts, ends, opened, lasts):
        ends.sort(key=lambda x: (x[0], x[1]))
        out, k = [], 0
        for (key, _p), last in zip(parts, lasts):
            steps: list[tuple[int, list[Situation]]] = []
            while k < len(ends) and ends[k][0] <= last:
                i, s, rs = ends[k]
                sit = Situation(s, int(ts[rs]), int(ts[i]), tuple(order[rs:i].tolist()))
                if steps and steps[-1][0] == int(order[i]):
                    steps[-1][1].append(sit)
                else:
                    steps.append((int(order[i]), [sit]))
                k += 1
            still = [(s, int(ts[r]), tuple(order[r:last + 1].tolist())) for s, r in sorted(opened.get(last, []))]
            out.append((steps, still))
        return out


def derive(definitions: Sequence[SituationDef], batch, partition_by: tuple[str, ...] = (),
           device: str | None = None, chunk: int = CHUNK, conventions: A.Conventions = A.TPSTREAM_CONVENTIONS):
    """cepkit.reference.tpstream.run.derive on the device: ([(partition, name, ts, te, events)],
    [(partition, name, ts, events so far)])."""

    check_columns(batch, definitions, [(a, False, "PARTITION BY") for a in partition_by])
    parts = partitions(batch, partition_by)
    derived = DeviceDeriver(definitions, batch, device, chunk, conventions).derive(parts)
    finished, still_open = [], []
    for (key, _p), (steps, still) in zip(parts, derived):
        for _pos, sits in steps:
            finished += [(key, definitions[s.stream].name, s.ts, s.te, s.events) for s in sits]
        still_open += [(key, definitions[s].name, t, ev) for s, t, ev in still]
    return finished, still_open


def device_derivation(device: str | None = None, chunk: int = CHUNK,
                      conventions: A.Conventions = A.TPSTREAM_CONVENTIONS):
    """The `derived` hook of cepkit.reference.tpstream.run.run_query: situations derived on the device, their
    conditions under the query's `conventions`."""
    def derived(definitions, batch, parts):
        deriver = DeviceDeriver(definitions, batch, device, chunk, conventions)
        return [steps for steps, _still in deriver.derive(parts)]
    return derived


def run_query(query, batch, device: str | None = None, chunk: int = CHUNK):
    """A TPStream query in exact mode: situations derived on the device, matched by the reference matcher."""

    return reference_run_query(query, batch, "exact", "matcher",
                               derived=device_derivation(device, chunk, query.conventions))
