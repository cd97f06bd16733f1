"""`cepkit explain QUERY`: what a query of any language means and compiles to, as text."""
from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any


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
        elif value is not None:
            head.append(f"{name}={value.value if isinstance(value, Enum) else value!r}")
    return "\n".join([f"{pad}{type(node).__name__}({', '.join(head)})"] + children)


def _conventions(q: Any) -> str:
    """The query's conventions (null logic, window bound), as its front end set them."""
    from reference.language.printer import conventions_to_text

    return "-- conventions: " + conventions_to_text(q.conventions)


def _engines(language: str) -> str:
    from reference import registry

    lines = []
    for name in registry.engines_for(language):
        entry = registry.engine_entry(language, name)
        lines.append(f"  {name}: {entry.description}")
    return "\n".join(lines)


def explain_sase(text: str) -> str:
    from reference.nfab.compile import is_nfab_query
    from reference.language import parse
    from reference.language.constructs import constructs
    from reference.language.printer import query_to_text
    from reference.nfab.compile import compile_nfab, describe
    from reference.pattern.model import compile_pattern, describe_pattern

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
    from reference.sql import parse
    from reference.sql.printer import pattern_text

    q = parse(text)
    out = ["-- row pattern", pattern_text(q.pattern), _conventions(q), "-- AST", tree(q)]
    program = _sql_program(q)
    if program is not None:
        out += ["-- row-pattern program", program]
    out += ["-- engines (sql)", _engines("sql")]
    return "\n".join(out)


def _sql_program(q) -> str | None:
    """The instruction program of the row pattern (reference/sql/program.py), printed."""
    try:
        from reference.sql import program as P
    except ImportError:
        return None
    return P.compile_pattern(q.pattern).describe()


def explain_tpstream(text: str) -> str:
    from reference.tpstream.parser import parse_tpstream

    q = parse_tpstream(text)
    return "\n".join([_conventions(q), "-- AST", tree(q), "-- engines (tpstream)", _engines("tpstream")])


def explain_afa(text: str) -> str:
    from reference.afa.afafile import loads_afa

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
    from reference.windows.query import parse

    return "\n".join(["-- AST", tree(parse(text)), "-- engines (window)", _engines("window")])
