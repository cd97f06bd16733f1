"""The AFA file format (YAML, or JSON): states, arcs with fences and transfers in the expression language.

    name: AB                      # optional
    window: 10                    # optional: RE = LE + window for events that give no `re`
    params: {k: 2}                # optional constants, read as p.k
    register: {n: 0}              # the register schema with the initial register Z
    states: [q0, q1, q2]
    start: q0
    final: [q2]
    arcs:
      - {name: a0, from: q0, to: q1, fence: "e.type = 'A'", transfer: {n: "r.n + e.v"}}
      - {name: a1, from: q1, to: q2, epsilon: true, fence: "r.n > 5"}
    standby_arcs: [...]           # optional: arcs a dynamic pattern may insert later (same form, plus
                                  # `final: true` to make a new destination state final)

Every value (window, params, register values, fences, transfers) is an expression. Every mistake is
a QueryError naming the line and column of the offending item.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from cepkit.front.afa.expr import (
    check_expression, compile_fence, compile_transfer, constant, is_boolean_shape, parse_expression,
)
from cepkit.front.afa.model import Afa, Arc
from cepkit.core.errors import QueryError
from cepkit.core.query_text import check_text, read_query_file
from cepkit.front.language.limits import MAX_DEPTH

_TOP = {"name", "window", "params", "register", "states", "start", "final", "arcs", "standby_arcs"}
_TOP_REQUIRED = ("states", "start", "final", "arcs")
_ARC = {"name", "from", "to", "fence", "transfer", "epsilon", "final"}


def _at(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _text_at(node: yaml.ScalarNode) -> tuple[int, int]:
    line, col = _at(node)
    if node.style in ("'", '"'):
        return line, col + 1
    if node.style in ("|", ">"):
        return line + 1, 1
    return line, col


def _mapping(node: yaml.Node, what: str, allowed: set[str] | None = None) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        raise QueryError(f"{what} must be a mapping", *_at(node))
    out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for k, v in node.value:
        if not isinstance(k, yaml.ScalarNode):
            raise QueryError(f"{what}: keys must be names", *_at(k))
        if k.value in out:
            raise QueryError(f"{what}: duplicate key '{k.value}'", *_at(k))
        if allowed is not None and k.value not in allowed:
            raise QueryError(f"{what}: unknown key '{k.value}'", *_at(k), expected=sorted(allowed))
        out[k.value] = (k, v)
    return out


def _scalar(node: yaml.Node, what: str) -> str:
    if not isinstance(node, yaml.ScalarNode) or node.value == "" and node.style is None:
        raise QueryError(f"{what} must be a single value", *_at(node))
    return node.value


def _list(node: yaml.Node, what: str) -> list[yaml.Node]:
    if not isinstance(node, yaml.SequenceNode):
        raise QueryError(f"{what} must be a list", *_at(node))
    return list(node.value)


def _bool(node: yaml.Node, what: str) -> bool:
    v = _scalar(node, what).lower()
    if v not in ("true", "false"):
        raise QueryError(f"{what} must be true or false", *_at(node))
    return v == "true"


def _expr(node: yaml.Node, what: str):
    return parse_expression(_scalar(node, what), *_text_at(node))


def _check_nesting(text: str) -> None:
    """QueryError for YAML / JSON collections nested more than MAX_DEPTH deep (PyYAML composes them by
    recursion); its event stream is read without."""
    depth = 0
    for ev in yaml.parse(text):
        if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise QueryError(f"YAML / JSON collections nested more than {MAX_DEPTH} levels deep",
                                 ev.start_mark.line + 1, ev.start_mark.column + 1)
        elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def loads_afa(text: str, source: str = "<afa>") -> Afa:
    """An AFA from the text of an AFA file."""
    check_text(text)
    try:
        _check_nesting(text)
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = (mark.line + 1, mark.column + 1)
        elif isinstance(getattr(exc, "position", None), int):  # a ReaderError: a character the reader refuses
            before = text[: exc.position]
            where = (before.count("\n") + 1, exc.position - (before.rfind("\n") + 1) + 1)
        else:
            where = (None, None)
        if isinstance(exc, yaml.reader.ReaderError):
            code = exc.character if isinstance(exc.character, int) else ord(exc.character[:1] or "\0")
            exc = f"character U+{code:04X} is not allowed in YAML"
        raise QueryError(f"{source} is not valid YAML/JSON: {getattr(exc, 'problem', None) or exc}", *where) \
            from None
    if root is None:
        raise QueryError(f"{source} is empty")
    top = _mapping(root, "the AFA file", _TOP)
    for key in _TOP_REQUIRED:
        if key not in top:
            raise QueryError(f"the AFA file has no '{key}'", *_at(root), expected=[key])

    name = _scalar(top["name"][1], "name") if "name" in top else Path(source).name
    params: dict[str, Any] = {}
    if "params" in top:
        for k, (kn, vn) in _mapping(top["params"][1], "params").items():
            e = _expr(vn, f"parameter '{k}'")
            check_expression(e, (), params, what=f"parameter '{k}'", line=_at(vn)[0], column=_at(vn)[1],
                             event=False)
            params[k] = constant(e, params)
    window = None
    if "window" in top:
        wn = top["window"][1]
        e = _expr(wn, "window")
        check_expression(e, (), params, what="window", line=_at(wn)[0], column=_at(wn)[1], event=False)
        window = constant(e, params)
        if isinstance(window, (bool, str)) or window is None or not window > 0:
            raise QueryError(f"the window must be a positive number, not {window!r}", *_at(wn))
    schema: tuple[str, ...] = ()
    initial: list[Any] = []
    if "register" in top:
        for k, (kn, vn) in _mapping(top["register"][1], "register").items():
            e = _expr(vn, f"register field '{k}'")
            check_expression(e, (), params, what=f"register field '{k}'", line=_at(vn)[0],
                             column=_at(vn)[1], event=False)
            initial.append(constant(e, params))
        schema = tuple(_mapping(top["register"][1], "register"))

    state_nodes = _list(top["states"][1], "states")
    states = [_scalar(n, "a state") for n in state_nodes]
    seen: set[str] = set()
    for n, s in zip(state_nodes, states):
        if s in seen:
            raise QueryError(f"state '{s}' is listed twice", *_at(n))
        seen.add(s)
    start_node = top["start"][1]
    start = _scalar(start_node, "start")
    if start not in seen:
        raise QueryError(f"the start state '{start}' is not in states", *_at(start_node), expected=states)
    finals = []
    for n in _list(top["final"][1], "final"):
        q = _scalar(n, "a final state")
        if q not in seen:
            raise QueryError(f"the final state '{q}' is not in states", *_at(n), expected=states)
        finals.append(q)

    names: set[str] = set()

    def arcs_of(key: str, standby: bool) -> list[Arc]:
        out = []
        for i, an in enumerate(_list(top[key][1], key) if key in top else []):
            out.append(_arc(an, i, standby, seen, schema, params, names, name))
        return out

    arcs = arcs_of("arcs", False)
    standby = arcs_of("standby_arcs", True)
    return Afa(states=tuple(states), start=start, finals=frozenset(finals), arcs=tuple(arcs),
               initial=tuple(initial), schema=schema, window=window, standby=tuple(standby), name=name)


def _arc(node: yaml.Node, i: int, standby: bool, states: set[str], schema: tuple[str, ...],
         params: dict[str, Any], names: set[str], afa_name: str) -> Arc:
    m = _mapping(node, f"arc {i + 1}", _ARC)
    line, col = _at(node)
    name = _scalar(m["name"][1], "arc name") if "name" in m else f"{'s' if standby else 'a'}{i}"
    if name in names:
        raise QueryError(f"two arcs are named '{name}'", *(_at(m["name"][1]) if "name" in m else (line, col)))
    names.add(name)
    what = f"arc '{name}'"
    for key in ("from", "to"):
        if key not in m:
            raise QueryError(f"{what} has no '{key}'", line, col, expected=[key])
    src, dst = _scalar(m["from"][1], f"{what}: from"), _scalar(m["to"][1], f"{what}: to")
    epsilon = _bool(m["epsilon"][1], f"{what}: epsilon") if "epsilon" in m else False
    is_final = _bool(m["final"][1], f"{what}: final") if "final" in m else False
    if "final" in m and not standby:
        raise QueryError(f"{what}: 'final' is only for standby arcs (a new state's final status)",
                         *_at(m["final"][0]))
    for key, q in (("from", src), ("to", dst)):
        if q not in states and not (standby and key == "to" and not epsilon):
            raise QueryError(f"{what} {'leaves' if key == 'from' else 'goes to'} unknown state '{q}'",
                             *_at(m[key][1]), expected=sorted(states))
    fence = None
    fence_text = "true"
    fence_expr = None
    if "fence" in m:
        fn = m["fence"][1]
        fence_text = _scalar(fn, f"{what}: fence")
        fl, fc = _text_at(fn)
        e = parse_expression(fence_text, fl, fc)
        check_expression(e, schema, params, what=f"{what}: fence", line=fl, column=fc, event=not epsilon)
        if not is_boolean_shape(e):
            raise QueryError(f"{what}: the fence '{fence_text}' is not a boolean expression", fl, fc)
        fence = compile_fence(e, schema, params)
        fence_expr = e
    transfer = None
    assign_text: dict[str, str] = {}
    assign_expr: dict[str, Any] = {}
    if "transfer" in m:
        assign = {}
        for f, (fk, fv) in _mapping(m["transfer"][1], f"{what}: transfer").items():
            if f not in schema:
                raise QueryError(f"{what}: transfer sets register field '{f}', which is not in the register "
                                 f"schema ({', '.join(schema) or 'empty'})", *_at(fk), expected=list(schema))
            t = _scalar(fv, f"{what}: transfer of '{f}'")
            tl, tc = _text_at(fv)
            e = parse_expression(t, tl, tc)
            check_expression(e, schema, params, what=f"{what}: transfer of '{f}'", line=tl, column=tc,
                             event=not epsilon)
            assign[f] = e
            assign_text[f] = t
        if assign:
            transfer = compile_transfer(assign, schema, params)
            assign_expr = assign
    return Arc(name, src, dst, fence, transfer, epsilon, is_final=is_final,
               text={"fence": fence_text, "transfer": assign_text, "line": line, "column": col,
                     # the expressions themselves, for engines that generate code from them (optimized/afa)
                     "fence_expr": fence_expr, "transfer_expr": assign_expr, "params": dict(params)})


def load_afa(path: str | Path) -> Afa:
    """An AFA from a .afa.yaml / .afa.yml / .afa.json file."""
    return loads_afa(read_query_file(path, "AFA file"), str(path))


def payload_dict(afa: Afa, register: Any) -> Any:
    """An output payload (a register) as a mapping field -> value when the AFA has a schema."""
    if afa.schema is not None and isinstance(register, tuple) and len(register) == len(afa.schema):
        return dict(zip(afa.schema, register))
    return register
