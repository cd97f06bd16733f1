"""`cepkit explain QUERY`: what a query of any language means and compiles to, as text, or (`--format dot|svg`)
as a Graphviz graph of the compiled automaton or program."""
from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from cepkit.core import registry


def tree(node: Any, indent: int = 0) -> str:
    """An indented dump of an AST node (positions left out)."""
    pad = "  " * indent
    if not dataclasses.is_dataclass(node):
        return f"{pad}{node!r}"
    values = [(f.name, getattr(node, f.name)) for f in dataclasses.fields(node) if f.name != "pos"]
    head, children = [], []
    for name, value in values:
        if dataclasses.is_dataclass(value) or isinstance(value, tuple):
            items = value if isinstance(value, tuple) else (value,)
            if items:
                children.append(f"{pad}  {name}:")
                children += [tree(v, indent + 2) for v in items]
        elif isinstance(value, (set, frozenset)):  # sorted: a set's order changes with the hash seed
            head.append(f"{name}={type(value).__name__}({{{', '.join(sorted(map(repr, value)))}}})")
        elif value is not None:
            head.append(f"{name}={value.value if isinstance(value, Enum) else value!r}")
    return "\n".join([f"{pad}{type(node).__name__}({', '.join(head)})"] + children)


def _conventions(q: Any) -> str:
    """The query's conventions (null logic, window bound), as its front end set them."""
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.language.printer import conventions_to_text

    return "-- conventions: " + conventions_to_text(q.conventions)


def _engines(language: str) -> str:
    lines = []
    for name in registry.engines_for(language):
        entry = registry.engine_entry(language, name)
        lines.append(f"  {name}: {entry.description}")
    return "\n".join(lines)


def explain_sase(text: str) -> str:
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.nfab.compile import is_nfab_query
    from cepkit.front.language import parse
    from cepkit.front.language.constructs import constructs
    from cepkit.front.language.printer import query_to_text
    from cepkit.front.nfab.compile import compile_nfab, describe
    from cepkit.front.pattern.model import compile_pattern, describe_pattern

    q = parse(text)
    out = ["-- query (canonical text)", query_to_text(q)]
    if q.strategy_defaulted and q.dialect == "sase+":
        out.append(f"-- no strategy given: {q.strategy.value} is the default")
    out += [_conventions(q), "-- AST", tree(q)]
    if is_nfab_query(q):
        out += ["-- NFA^b", describe(compile_nfab(q))]
    else:
        out += ["-- pattern (spec/001 §2.7), one block per OR alternative", describe_pattern(compile_pattern(q))]
    out += ["-- constructs: " + ", ".join(sorted(constructs(q))), "-- engines (sase)", _engines("sase")]
    return "\n".join(out)


def explain_sql(text: str) -> str:
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.sql import parse
    from cepkit.front.sql.printer import pattern_text

    q = parse(text)
    out = ["-- row pattern", pattern_text(q.pattern), _conventions(q), "-- AST", tree(q)]
    program = _sql_program(q)
    if program is not None:
        out += ["-- row-pattern program", program]
    out += ["-- engines (sql)", _engines("sql")]
    return "\n".join(out)


def _sql_program(q) -> str | None:
    """The instruction program of the row pattern (front/sql/program.py), printed."""
    try:
        # lazy: `cepkit explain` loads the explained language's modules only
        from cepkit.front.sql import program as P
    except ImportError:
        return None
    return P.compile_pattern(q.pattern).describe()


def explain_tpstream(text: str) -> str:
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.tpstream.parser import parse_tpstream

    q = parse_tpstream(text)
    return "\n".join([_conventions(q), "-- AST", tree(q), "-- engines (tpstream)", _engines("tpstream")])


def explain_afa(text: str) -> str:
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.afa.afafile import loads_afa

    afa = loads_afa(text)
    out = [f"-- AFA {afa.name}: states {', '.join(map(str, afa.states))}; start {afa.start}; "
           f"final {', '.join(sorted(map(str, afa.finals)))}"]
    if afa.schema:
        out.append(f"-- register ({', '.join(afa.schema)}), initially {afa.initial!r}")
    if afa.window is not None:
        out.append(f"-- window {afa.window}")
    out.append("-- arcs")
    for arc in afa.arcs + afa.standby:
        kind = "ε-arc" if arc.epsilon else "arc"
        fence = arc.text.get("fence") or ("true" if arc.fence is None else "(fence)")
        assign = arc.text.get("transfer") or {}
        transfer = ", ".join(f"{f} := {t}" for f, t in assign.items()) if assign else \
            ("identity" if arc.transfer is None else "(transfer)")
        standby = " (standby: inserted by a dynamic pattern)" if arc in afa.standby else ""
        out.append(f"  {kind} {arc.name}: {arc.src} -> {arc.dst}  fence {fence}  transfer {transfer}{standby}")
    out += ["-- engines (afa)", _engines("afa")]
    return "\n".join(out)


def explain_window(text: str) -> str:
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.windows.query import parse

    return "\n".join(["-- AST", tree(parse(text)), "-- engines (window)", _engines("window")])


# ---------------------------------------------------------------------------------------------
# `cepkit explain --format dot|svg`: the compiled automaton or program as a Graphviz graph.

class Dot:
    """A Graphviz digraph written as text: nodes and edges with labels (quoted and escaped here)."""

    def __init__(self, name: str, label: str | None = None):
        self.name = name
        self.lines: list[str] = ['  rankdir=LR;', '  node [fontname="Helvetica", shape=circle];',
                                 '  edge [fontname="Helvetica", fontsize=10];']
        if label:
            self.lines.append(f"  label={quote(label)}; labelloc=t;")

    def node(self, ident: str, label: str | None = None, **attrs: str) -> None:
        attrs = {"label": label if label is not None else ident, **attrs}
        self.lines.append(f"  {quote(ident)} [{_attrs(attrs)}];")

    def edge(self, src: str, dst: str, label: str | None = None, **attrs: str) -> None:
        if label is not None:
            attrs = {"label": label, **attrs}
        tail = f" [{_attrs(attrs)}]" if attrs else ""
        self.lines.append(f"  {quote(src)} -> {quote(dst)}{tail};")

    def text(self) -> str:
        return f"digraph {quote(self.name)} {{\n" + "\n".join(self.lines) + "\n}\n"

def quote(text: str) -> str:
    """A DOT string: double-quoted, backslashes and quotes escaped, line breaks as \\n."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attrs(attrs: dict) -> str:
    return ", ".join(f"{k}={quote(v)}" for k, v in attrs.items())


def _start(g: Dot, first: str) -> None:
    """The invisible point the start arrow comes from."""
    g.node("__start", "", shape="point")
    g.edge("__start", first)


def dot_sase(text: str) -> str:
    """NFA^b (flat SASE+ sequences): states a[1] / a[i] / b ... F with begin, take, ignore and proceed edges
    (spec/000 §3); any other query: its pattern model, one cluster per OR alternative, edges the order."""
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.language import ast as A
    from cepkit.front.language import parse
    from cepkit.front.language.printer import window_to_text
    from cepkit.front.nfab.compile import compile_nfab, is_nfab_query

    def _ignore_text(s, f) -> str:  # as `describe` (front/nfab/compile.py) prints the ignore edge
        return {A.Strategy.STRICT_CONTIGUITY: "False", A.Strategy.PARTITION_CONTIGUITY: "¬partition(e)",
                A.Strategy.SKIP_TILL_NEXT_MATCH: f"¬({f.text()})"}.get(s, "True")

    def _window_text(w) -> str:
        return "none" if w is None else window_to_text(w).replace("WITHIN ", "< ")

    q = parse(text)
    if not is_nfab_query(q):
        return _dot_pattern(q)
    nfa = compile_nfab(q)
    s = nfa.strategy
    g = Dot("NFA^b", f"NFA^b  strategy={s.value}  window={_window_text(nfa.window)}  "
                     f"partition={', '.join(nfa.partition_attrs) or 'whole stream'}"
                     + ("  (every edge also needs in_window)" if nfa.window else ""))
    states = []
    for j, c in enumerate(nfa.components):
        states.append([f"{c.var}[1]", f"{c.var}[i]"] if c.kleene else [c.var])
    for group in states:
        for name in group:
            g.node(name)
    g.node("F", shape="doublecircle")
    _start(g, states[0][0])
    for j, c in enumerate(nfa.components):
        nxt = states[j + 1][0] if j + 1 < nfa.n else "F"
        first = states[j][0]
        if j > 0 and _ignore_text(s, nfa.begin[j]) != "False":
            g.edge(first, first, f"ignore: {_ignore_text(s, nfa.begin[j])}", style="dashed")
        if c.kleene:
            loop = states[j][1]
            g.edge(first, loop, f"begin: {nfa.begin[j].text()}")
            g.edge(loop, loop, f"take: {nfa.take[j].text()}")
            if _ignore_text(s, nfa.take[j]) != "False":
                g.edge(loop, loop, f"ignore: {_ignore_text(s, nfa.take[j])}", style="dashed")
            g.edge(loop, nxt, f"proceed: {nfa.proceed[j].text()}", style="dotted")
        else:
            g.edge(first, nxt, f"begin: {nfa.begin[j].text()}")
    for k, neg in enumerate(nfa.negations):
        note = f"__neg{k}"
        g.node(note, f"!({neg.component.event_type} {neg.component.var}): no event with {neg.formula.text()}",
               shape="note")
        at = states[neg.gap][0] if neg.gap < nfa.n else "F"
        g.edge(note, at, style="dashed", arrowhead="none")
    return g.text()


def _dot_pattern(q) -> str:
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.language.printer import expr_to_text
    from cepkit.front.pattern.model import compile_pattern

    p = compile_pattern(q)
    g = Dot("pattern", "pattern model (spec/001 §2.7): an edge u -> v: every event of u precedes every event of v")
    for k, b in enumerate(p.branches, 1):
        g.lines.append(f"  subgraph {quote(f'cluster_{k}')} {{ label={quote(f'alternative {k}')};")
        for v in b.positives + b.negations:
            checks = [" and ".join(expr_to_text(c) for c in ch.clauses) for ch in b.checks if ch.var == v.name]
            if v.negated:
                checks = [" and ".join(expr_to_text(c) for c in b.neg_checks[v.name].clauses)]
            label = f"{'!' if v.negated else ''}{v.name}: {' | '.join(v.types)}{'+' if v.kleene else ''}"
            label += "".join(f"\n{c}" for c in checks if c)
            g.node(f"{k}.{v.name}", label, shape="box", **({"style": "dashed"} if v.negated else {}))
        g.lines.append("  }")
        pos = set(b.names)
        before = {(u, v) for u, v in b.before if u in pos and v in pos}
        direct = {(u, v) for u, v in before if not any((u, w) in before and (w, v) in before for w in pos)}
        for u, v in sorted(direct):
            g.edge(f"{k}.{u}", f"{k}.{v}")
        for n in b.negations:  # dashed: from the latest positives before it, to the earliest after it
            preds, succs = b.preds(n.name), b.succs(n.name)
            for u in sorted(u for u in preds if not any((u, w) in before for w in preds)):
                g.edge(f"{k}.{u}", f"{k}.{n.name}", style="dashed")
            for v in sorted(v for v in succs if not any((w, v) in before for w in succs)):
                g.edge(f"{k}.{n.name}", f"{k}.{v}", style="dashed")
    return g.text()


def dot_sql(text: str) -> str:
    """The row pattern's instruction program (front/sql/program.py): one node per instruction, edges to
    the instructions it goes on to (split: preferred branch first)."""
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.sql import parse
    from cepkit.front.sql import program as P
    from cepkit.front.sql.printer import pattern_text

    q = parse(text)
    prog = P.compile_pattern(q.pattern)
    g = Dot("row-pattern program", f"PATTERN ({pattern_text(q.pattern)})")
    for pc, ins in enumerate(prog.instructions):
        g.node(str(pc), f"{pc}: {ins}", shape="doublecircle" if ins.kind == P.DONE else
               ("box" if ins.kind == P.MATCH else "ellipse"))
    _start(g, "0")
    for pc, ins in enumerate(prog.instructions):
        if ins.kind == P.SPLIT:
            g.edge(str(pc), str(ins.a), "preferred")
            g.edge(str(pc), str(ins.b), "other", style="dashed")
        elif ins.kind == P.JUMP:
            g.edge(str(pc), str(ins.a))
        elif ins.kind == P.EXIT_IF_EMPTY:
            g.edge(str(pc), str(ins.a), "empty iteration", style="dashed")
            g.edge(str(pc), str(pc + 1))
        elif ins.kind != P.DONE and pc + 1 < len(prog):
            g.edge(str(pc), str(pc + 1), f"row matches {ins.label}" if ins.kind == P.MATCH else None)
    return g.text()


def dot_tpstream(text: str) -> str:
    """The Allen graph: one node per situation (its condition and duration bounds), one edge per temporal
    constraint labelled with its relations."""
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.language.printer import expr_to_text
    from cepkit.front.tpstream.parser import parse_tpstream

    q = parse_tpstream(text)

    def duration(d) -> str:
        return f"{d.amount}{' ' + d.unit if d.unit else ''}"

    part = f"  PARTITION BY {', '.join(q.partition_by)}" if q.partition_by else ""
    g = Dot("TPStream", f"FROM {q.source}{part}  WITHIN {duration(q.within)}")
    for name in q.streams:
        d = q.definition(name)
        bounds = [f"at least {duration(d.at_least)}" if d.at_least else "",
                  f"at most {duration(d.at_most)}" if d.at_most else ""]
        label = f"{name}\n{expr_to_text(d.condition)}" + "".join(f"\n{b}" for b in bounds if b)
        g.node(name, label, shape="box")
    for c in q.pattern:
        g.edge(c.left, c.right, " ; ".join(sorted(c.relations)))
    return g.text()


def dot_afa(text: str) -> str:
    """The AFA: its states (finals doubled), arcs labelled name: fence / transfer; ε-arcs dashed, standby arcs
    (inserted by a dynamic pattern) dotted."""
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.afa.afafile import loads_afa

    afa = loads_afa(text)
    label = f"AFA {afa.name}" + (f"  window {afa.window}" if afa.window is not None else "")
    if afa.schema:
        label += f"  register ({', '.join(afa.schema)}) = {afa.initial!r}"
    g = Dot(f"AFA {afa.name}", label)
    finals = set(map(str, afa.finals))
    for st in map(str, afa.states):
        g.node(st, shape="doublecircle" if st in finals else "circle")
    _start(g, str(afa.start))
    for arc in afa.arcs + afa.standby:
        fence = arc.text.get("fence") or ("true" if arc.fence is None else "(fence)")
        assign = arc.text.get("transfer") or {}
        transfer = ", ".join(f"{f} := {t}" for f, t in assign.items())
        style = "dotted" if arc in afa.standby else ("dashed" if arc.epsilon else "solid")
        g.edge(str(arc.src), str(arc.dst), f"{'ε ' if arc.epsilon else ''}{arc.name}: {fence}"
               + (f"\n{transfer}" if transfer else ""), style=style)
    return g.text()


def dot_window(text: str) -> str:
    """The operator plan: the input stream(s), the windowed operator, the output."""
    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.front.windows.query import parse

    q = parse(text)

    def window(w) -> str:
        if w is None:
            return ""
        slide = f" SLIDE {w.slide}" if w.slide != 1 else ""
        align = " ALIGN ZERO" if w.kind == "time" and w.align == "zero" else ""
        return f"{w.kind.upper()} {w.size}{slide}{align}"

    g = Dot("window plan", "windowed operator plan")
    if q.operator == "filter":
        g.node("events", shape="cds")
        g.node("op", f"FILTER\nWHERE {q.condition}", shape="box")
        g.edge("events", "op")
    elif q.operator == "aggregate":
        g.node("events", shape="cds")
        funcs = ", ".join(f"{f}({q.attr})" for f in q.funcs)
        g.node("op", f"AGGREGATE {funcs}\nOVER {window(q.window)}{' SKIP EMPTY' if q.skip_empty else ''}",
               shape="box")
        g.edge("events", "op")
    else:
        g.node("left", "left (L)", shape="cds")
        g.node("right", "right (R)", shape="cds")
        g.node("op", f"JOIN ON {q.condition}\nACTIVE {q.active.upper()}", shape="box")
        g.edge("left", "op", f"WINDOW {window(q.window)}")
        g.edge("right", "op", f"WINDOW {window(q.right_window or q.window)}")
    g.node("out", "output", shape="cds")
    g.edge("op", "out")
    return g.text()


DOT = {"sase": dot_sase, "sql": dot_sql, "tpstream": dot_tpstream, "afa": dot_afa, "window": dot_window}


def dot_of(language: str, text: str) -> str:
    """The query of `language` as Graphviz DOT text."""
    return DOT[language](text)


def svg(dot: str) -> str:
    """DOT drawn as SVG by Graphviz's `dot` program (a CepkitError naming what to install without it)."""
    import shutil
    import subprocess

    # lazy: `cepkit explain` loads the explained language's modules only
    from cepkit.core.errors import CepkitError

    exe = shutil.which("dot")
    if exe is None:
        raise CepkitError("--format svg needs Graphviz's `dot` program, which is not on PATH: install Graphviz "
                          "(apt install graphviz, brew install graphviz or conda install graphviz), or use "
                          "--format dot and draw it elsewhere")
    done = subprocess.run([exe, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True, timeout=60, check=False)
    if done.returncode != 0:
        raise CepkitError(f"Graphviz's dot failed: {done.stderr.decode('utf-8', 'replace').strip()}")
    return done.stdout.decode("utf-8")
