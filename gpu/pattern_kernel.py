"""OpenCL C of the pattern kernels (spec/004 §4.6): one step function, run by `cepkit_seq_step` (one launch per
event, one work-item per partial match) and by `cepkit_seq_batch` (one launch per batch, one work-group
looping over the events, each work-item taking every L-th partial match).

Partial matches (PMs) live in arrays (structure of arrays): Glushkov position, window key of the first row,
last bound-row node and the slot values DEFINE conditions read (the window is a kernel argument, so one
build serves every WITHIN). A step reads the PMs in, evaluates the
predicate of every outgoing transition of each PM for the current row and appends the PMs out with an atomic
counter (the compaction: dropped PMs are simply not appended). Work-item 0 also starts PMs at the current row.
Table 4.1: contiguous moves/clones on every transition and drops the old PM; skip-till-any clones and keeps
the old PM while the window holds; skip-till-next moves along the first enabled transition, forward before
the self-loop, and keeps the PM unchanged when none is enabled. A PM at an accepting position appends its
node to the match list. Overflow of any array sets a flag bit; the host grows the arrays and replays.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Mapping

from cepkit.gpu.clexpr import PRELUDE, Operand, predicate
from cepkit.gpu.columns import DeviceColumn
from cepkit.gpu.pattern_plan import ENGINE, PatternPlan, Slot, refuse
from cepkit.front.sql import ast as S

OVF_PM, OVF_NODE, OVF_MATCH = 1, 2, 4
C_TYPES = {"long": "long", "double": "double", "code": "int"}


def col_name(plan: PatternPlan, col: str) -> str:
    return f"c{plan.columns.index(col)}"


def _or(a: str | None, b: str | None) -> str | None:
    return f"({a} || {b})" if a and b else a or b


def slot_shape(dc: DeviceColumn) -> DeviceColumn:
    """The column's structure with a null field at every level (a slot is null until a row is bound)."""
    return dataclasses.replace(dc, null=dc.null if dc.null is not None else _ONE,
                               number=None if dc.number is None else slot_shape(dc.number))


_ONE = __import__("numpy").ones(1, "uint8")


def fields(dc: DeviceColumn, name: str) -> list[tuple[str, str]]:
    """(C type, array name) of every array of a column, in DeviceColumn.params order."""
    out = [(C_TYPES[dc.kind], name)] + ([("uchar", f"{name}_null")] if dc.null is not None else [])
    out += [("long", f"{name}_dec")] if dc.decimal is not None else []   # the exact decimal (arithmetic)
    return out + (fields(dc.number, f"{name}_num") if dc.number is not None else [])


def at_row(dc: DeviceColumn, name: str, k: int) -> Operand:
    """The Operand of column `name` k rows before the current one (null before `lo`, the partition start)."""
    if k == 0:
        return dc.operand(name, "e")
    op = dc.operand(name, f"((e - {k}) < lo ? e : (e - {k}))")
    return _guard(op, f"((e - {k}) < lo)")


def _guard(op: Operand, cond: str) -> Operand:
    return dataclasses.replace(op, null=_or(cond, op.null),
                               number=None if op.number is None else _guard(op.number, cond),
                               exact=None if op.exact is None else _guard(op.exact, cond))


def copy_sources(dc: DeviceColumn, name: str, k: int) -> list[str]:
    """C values of the slot fields (slot_shape order) taken from the row k before the current one."""
    op = at_row(dc, name, k)
    out = []
    while True:
        out += [op.code, op.null or "0"] + ([op.exact.code] if op.exact is not None else [])
        if op.number is None:
            return out
        op = op.number


def predicates(plan: PatternPlan, columns: Mapping[str, DeviceColumn]) -> dict[str, str]:
    """The C predicate of every pattern variable (1 when its DEFINE condition is TRUE)."""
    out = {}
    for label in dict.fromkeys(plan.automaton.labels):
        cond = plan.query.define_map.get(label)

        def resolve(node, label=label) -> Operand:
            if isinstance(node, S.ColRef):
                return _ref(plan, columns, label, node.var, node.col, 0)
            if isinstance(node, S.Nav) and node.kind == "prev" and isinstance(node.arg, S.ColRef):
                return _ref(plan, columns, label, node.arg.var, node.arg.col, node.offset)
            raise refuse(f"{type(node).__name__} in DEFINE", node)

        out[label] = "1" if cond is None else predicate(cond, resolve, ENGINE, plan.query.conventions)
    return out


def _ref(plan, columns, label: str, var: str | None, col: str, k: int) -> Operand:
    dc = columns[col]
    labels = frozenset(plan.query.subset_map.get(var, (var,))) if var is not None else None
    if labels is None or label in labels:
        return at_row(dc, col_name(plan, col), k)
    slot = plan.slots.index(Slot(labels, col, k))
    return slot_shape(dc).operand(f"s{slot}", "0")


def source(plan: PatternPlan, columns: Mapping[str, DeviceColumn]) -> str:
    """The program of a plan over its columns (structure and dictionaries fixed): the step function
    `cepkit_seq_do` and the kernels `cepkit_seq_step` and `cepkit_seq_batch` that call it."""
    g = plan.automaton
    preds = predicates(plan, columns)
    sfields = [fields(slot_shape(columns[sl.col]), f"s{k}") for k, sl in enumerate(plan.slots)]
    args = ["const int j", "const int e0", "const int lo", "const long row0", "const int wmode", "const ulong wspan",
            "__global const long *key", "__global const char *keyn"]
    for c in plan.columns:
        args += columns[c].params(col_name(plan, c))
    args += ["__global int *cnt", "const int icap", "const int pcap"]

    def pm_set(side: str, const: str) -> list[str]:
        return [f"__global {const}int *{side}pos", f"__global {const}long *{side}start",
                f"__global {const}char *{side}startn", f"__global {const}int *{side}node"] + \
            [f"__global {const}{t} *{side}{f}" for sf in sfields for t, f in sf]
    tail = ["__global long *nrow", "__global int *npos", "__global int *npar", "const int ncap",
            "__global int *mnode", "const int mcap", "__global int *ctr"]
    args_in, args_out = pm_set("i", "const "), pm_set("o", "")
    # wmode 0: no WITHIN; 1: key span <= wspan; 2: never (negative span); 3: both keys present. The key is
    # ascending in a partition, so the unsigned difference is exact.
    win = ("(wmode == 0 || (wmode != 2 && !stn && !keyn[e] && "
           "(wmode == 3 || ((ulong)key[e] - (ulong)st) <= wspan)))")
    nxt = plan.strategy == 1

    def store(q: int) -> bool:
        return bool(g.follow[q]) and not (nxt and q in g.last)

    def take(q: int, from_pm: bool) -> str:
        label = g.labels[q]
        lines = ["{ int nn = atomic_inc(ncount);",
                 " if (nn >= ncap) atomic_or(flags, %d);" % OVF_NODE,
                 f" else {{ nrow[nn] = row; npos[nn] = {q}; npar[nn] = {'nd' if from_pm else '-1'}; }}"]
        if q in g.last:
            lines.append(" { int m = atomic_inc(mcount); if (m >= mcap) atomic_or(flags, %d); "
                         "else mnode[m] = nn; }" % OVF_MATCH)
        if store(q):
            lines += [" int o = atomic_inc(&cnt[j + 1]);",
                      " if (o >= pcap) atomic_or(flags, %d); else {" % OVF_PM,
                      f"  opos[o] = {q}; onode[o] = nn;",
                      "  ostart[o] = st; ostartn[o] = stn;" if from_pm else
                      "  ostart[o] = key[e]; ostartn[o] = keyn[e];"]
            for k, sl in enumerate(plan.slots):
                srcs = copy_sources(columns[sl.col], col_name(plan, sl.col), sl.offset) \
                    if label in sl.labels else [f"{f}[0]" for _t, f in sfields[k]]
                lines += [f"  o{f}[o] = {v};" for (_t, f), v in zip(sfields[k], srcs)]
            lines.append(" }")
        lines.append("}")
        return "\n".join("      " + x for x in lines)

    keep = ["{ int o = atomic_inc(&cnt[j + 1]);",
            " if (o >= pcap) atomic_or(flags, %d); else {" % OVF_PM,
            "  opos[o] = p; ostart[o] = st; ostartn[o] = stn; onode[o] = nd;"]
    keep += [f"  o{f}[o] = {f}[0];" for sf in sfields for _t, f in sf]
    keep = "\n".join("      " + x for x in keep + [" }", "}"])

    def pred(q: int, guard: str | None = None) -> str:
        c = preds[g.labels[q]]
        if c == "1":
            return guard or "1"
        return f"{guard} && ({c})" if guard else f"({c})"

    body = []
    # starts (work-item 0): no PM, so every slot is null
    body.append("  if (i == 0) {")
    body += [f"    {t} {f}[1] = {{{1 if t == 'uchar' else 0}}};" for sf in sfields for t, f in sf]
    body.append("    int started = 0;" if nxt else "")
    for q in sorted(g.first):
        cond = pred(q, "!started" if nxt else None)
        body.append(f"    if ({cond}) {{")
        if nxt:
            body.append("      started = 1;")
        body.append(take(q, False))
        body.append("    }")
    body.append("  }")
    body.append("  if (i >= cnt[j] || i >= icap) return;")
    body += ["  int p = ipos[i]; long st = istart[i]; char stn = istartn[i]; int nd = inode[i];"]
    body += [f"  {t} {f}[1] = {{i{f}[i]}};" for sf in sfields for t, f in sf]
    body.append(f"  int win = {win};")
    if nxt:
        body.append("  if (!win) return;")
    body.append("  switch (p) {")
    for p in range(len(g.labels)):
        if not store(p):
            continue
        body.append(f"  case {p}: {{")
        fol = sorted(g.follow[p])
        if nxt:
            order = [q for q in fol if q != p] + ([p] if p in fol else [])
            body.append("    int choice = -1;")
            for q in order:
                body.append(f"    if ({pred(q, 'choice < 0')}) choice = {q};")
            for q in order:
                body.append(f"    if (choice == {q})")
                body.append(take(q, True))
            body.append("    if (choice < 0)")
            body.append(keep)
        else:
            for q in fol:
                body.append(f"    if ({pred(q, 'win')})")
                body.append(take(q, True))
            if plan.strategy == 2:
                body.append("    if (win)")
                body.append(keep)
        body.append("    break; }")
    body.append("  }")
    head = ["  const int e = e0 + j; const long row = row0 + j;",
            "  __global int *ncount = ctr, *mcount = ctr + 1, *flags = ctr + 2, *cepkit_err = ctr + 3;"]
    step = args + args_in + args_out + tail
    return "\n".join([PRELUDE, "void cepkit_seq_do(" + ",\n    ".join(step + ["const int i"]) + ") {"]
                     + head + body + ["}", _step_kernel(step), _batch_kernel(args, args_in, pm_set, tail)])


def _names(args: list[str]) -> list[str]:
    return [re.split(r"[ *]", a)[-1] for a in args]


def _step_kernel(step: list[str]) -> str:
    """`cepkit_seq_step`: one step (event j), one work-item per partial match of the step's input set."""
    return ("__kernel void cepkit_seq_step(" + ",\n    ".join(step) + ") {\n"
            f"  cepkit_seq_do({', '.join(_names(step))}, get_global_id(0));\n}}")


def _batch_kernel(args: list[str], args_in: list[str], pm_set, tail: list[str]) -> str:
    """`cepkit_seq_batch`: the steps of events 0..n-1 in one work-group, work-item lid taking PMs lid, lid+L,
    ...; the first step reads set i and writes set a, odd steps a -> b, even steps b -> a (as the step
    launches). A barrier separates the steps; an overflow flag stops the loop (the host grows and replays)."""
    set_a, set_b = pm_set("a", ""), pm_set("b", "")
    fixed = _names(args[1:])

    def call(src: list[str], dst: list[str], caps: str) -> str:
        names = ["j"] + fixed[:-2] + [caps] + _names(src + dst + tail) + ["i"]
        return f"cepkit_seq_do({', '.join(names)});"
    return "\n".join([
        "__kernel void cepkit_seq_batch(" + ",\n    ".join(["const int n"] + args[1:] + args_in + set_a + set_b
                                                             + tail) + ") {",
        "  __local int shared[2];",
        "  const int lid = get_local_id(0), size = get_local_size(0);",
        "  for (int j = 0; j < n; j++) {",
        "    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);",
        "    if (lid == 0) { shared[0] = ctr[2]; shared[1] = cnt[j]; }",
        "    barrier(CLK_LOCAL_MEM_FENCE);",
        "    if (shared[0]) break;",
        "    const int m = max(1, min(shared[1], j == 0 ? icap : pcap));",
        "    for (int i = lid; i < m; i += size) {",
        "      if (j == 0) " + call(args_in, set_a, "icap, pcap"),
        "      else if (j & 1) " + call(set_a, set_b, "pcap, pcap"),
        "      else " + call(set_b, set_a, "pcap, pcap"),
        "    }",
        "  }",
        "}"])
