"""Parse MATCH_RECOGNIZE text into the AST (cepkit.front.sql.ast); every mistake is a QueryError with position."""
from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from lark import Lark, Token, v_args

from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A
from cepkit.front.language.limits import DepthLimited
from cepkit.front.language.sase import too_deep_to_read, transform_text
from cepkit.core.units import parse_unit
from cepkit.front.sql import ast as S
from cepkit.front.sql.grammar import GRAMMAR
from cepkit.front.sql.validate import validate
from cepkit.front.evaluate import reduce


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=False,
                start=["start", "expr_start"], cache=True)  # fast start: the parse tables from lark's cache file


def _pos(x) -> A.Pos:
    return A.Pos(getattr(x, "line", None) or 0, getattr(x, "column", None) or 0)


def _name(tok: Token) -> str:
    s = str(tok)
    return s[1:-1] if s.startswith('"') else s


def _var(tok: Token) -> str:
    """Pattern variable names are case-insensitive (upper-cased) unless quoted."""
    s = str(tok)
    return s[1:-1] if s.startswith('"') else s.upper()


def _toks(items, kind=None):
    return [t for t in items if isinstance(t, Token) and (kind is None or t.type == kind)]


class _Alias:
    """`[AS] name [(columns)]` after MATCH_RECOGNIZE (...)."""

    def __init__(self, name: Token, columns: list[str] | None, pos: A.Pos):
        self.name, self.columns, self.pos = name, columns, pos


class _Sub:
    """A subquery before WITH names are resolved: its items (None: *), input relation and WHERE."""

    def __init__(self, items, relation: "_Relation", where, pos: A.Pos):
        self.items, self.relation, self.where, self.pos = items, relation, where, pos


class _Relation:
    """A FROM item before WITH names are resolved: a table name, VALUES or a subquery, with its column list."""

    def __init__(self, body, columns: list[str] | None, pos: A.Pos):
        self.body, self.columns, self.pos = body, columns, pos

    def resolve(self, withs: dict, seen: tuple[str, ...] = ()):
        """The table name (str), S.Values or S.Subquery this relation reads."""
        body = self.body
        if isinstance(body, str):
            key = body.lower()
            if key in withs:
                if key in seen:
                    raise QueryError(f"WITH '{body}' refers to itself", self.pos.line, self.pos.column)
                return withs[key].resolve(withs, seen + (key,))
            return body
        if isinstance(body, S.Values):
            if self.columns is None:
                return body
            if len(self.columns) != len(body.columns):
                raise QueryError(f"the column list names {len(self.columns)} columns, but VALUES has "
                                 f"{len(body.columns)}", self.pos.line, self.pos.column)
            return S.Values(tuple(self.columns), body.rows, body.pos)
        items = body.items
        if self.columns is not None:
            if items is None:   # `*` over rows whose columns the query says (VALUES, a subquery's SELECT)
                known = _known_columns(body.relation.resolve(withs, seen))
                if known is None:
                    raise QueryError("a column list after (SELECT * FROM table) is not supported: the table's "
                                     "columns are known only when it is read; name them in the SELECT",
                                     self.pos.line, self.pos.column)
                items = [S.SubItem(c, c, body.pos) for c in known]
            if len(self.columns) != len(items):
                raise QueryError(f"the column list names {len(self.columns)} columns, but the subquery selects "
                                 f"{len(items)}", self.pos.line, self.pos.column)
            items = [S.SubItem(i.col, c, i.pos) for i, c in zip(items, self.columns)]
        return S.Subquery(body.relation.resolve(withs, seen), None if items is None else tuple(items),
                          body.where, body.pos)


def _known_columns(source) -> tuple[str, ...] | None:
    """The columns of a resolved relation where the query alone says them (None for a table name)."""
    if isinstance(source, S.Values):
        return source.columns
    if isinstance(source, S.Subquery):
        return _known_columns(source.input) if source.items is None else tuple(i.name for i in source.items)
    return None


def _base_table(source) -> str:
    """The table name a chain of subqueries reads ('' for VALUES)."""
    while isinstance(source, S.Subquery):
        source = source.input
    return source if isinstance(source, str) else ""


def _plain_select(outer: S.Outer) -> tuple[S.ColRef, ...] | None:
    """The outer SELECT as the plain column list of `MatchRecognize.select` (() for `*`), or None when it
    needs the outer step (expressions, renames, WHERE, ORDER BY, a column alias list, `*` with more)."""
    if outer.where is not None or outer.order_by or outer.columns is not None:
        return None
    items = outer.items
    if len(items) == 1 and items[0].expr is None:
        return () if items[0].name is None or items[0].name == outer.alias else None
    cols = []
    for item in items:
        e = item.expr
        if not isinstance(e, S.ColRef) or (e.var is not None and e.var != outer.alias):
            return None
        if item.name is not None and item.name != e.col:
            return None
        cols.append(S.ColRef(None, e.col, e.pos))
    return tuple(cols)


def _constant(e):
    """The exact value of a constant expression of a VALUES row (QueryError naming anything else)."""

    def leaf(x):
        if isinstance(x, (A.Const, A.BinOp, A.Neg, A.Compare, A.And, A.Or, A.Not)):
            return reduce(x, leaf, "three_valued")
        pos = getattr(x, "pos", A.NOPOS)
        raise QueryError("VALUES rows hold constants (numbers, text, TRUE, FALSE, NULL)", pos.line or None,
                         pos.column or None)
    try:
        return leaf(e)
    except QueryError:
        raise
    except Exception as exc:   # a constant that cannot be computed (1/0, 'a' + 1)
        pos = getattr(e, "pos", A.NOPOS)
        raise QueryError(f"VALUES: {exc}", pos.line or None, pos.column or None) from None


def _column_types(rows, located) -> tuple:
    """The rows, after checking that each column holds one kind of value (numbers, text or truth values)."""
    def kind(v):
        return None if v is None else "text" if isinstance(v, str) else "truth value" if isinstance(v, bool) \
            else "number"
    for c in range(len(rows[0]) if rows else 0):
        seen: dict[str, int] = {}
        for k, row in enumerate(rows):
            kd = kind(row[c])
            if kd is not None:
                seen.setdefault(kd, k)
        if len(seen) > 1:
            (k1, a), (k2, b) = sorted(seen.items(), key=lambda x: x[1])[:2]
            pos = located[b][1]
            raise QueryError(f"VALUES column {c + 1} mixes {k1} (row {a + 1}) and {k2} (row {b + 1})",
                             pos.line, pos.column)
    return rows


@v_args(meta=True)
class _ToAst(DepthLimited):
    clause_types = (S.MatchRecognize, S.Define, S.Measure, S.SortKey, S.Skip, S.Within, S.Subset, A.Conventions,
                    S.Conventions)

    # ------------------------------------------------------------------ query
    def start(self, meta, items):
        withs = items[0] if isinstance(items[0], dict) else {}
        build = next(i for i in items if callable(i))
        return build(withs)

    def expr_start(self, meta, items):
        return items[0]

    def query(self, meta, items):
        rest = [i for i in items if not isinstance(i, Token)]
        select, relation, mr = rest[0], rest[1], rest[2]
        alias = next((i for i in rest[3:] if isinstance(i, _Alias)), None)
        where = next((i[1] for i in rest[3:] if isinstance(i, tuple) and i[0] == "where"), None)
        order = next((i[1] for i in rest[3:] if isinstance(i, tuple) and i[0] == "order"), ())
        within = mr.get("within")
        bound = "strict" if within is not None and within.exclusive else "inclusive"
        conventions = S.Conventions(S.SQL_CONVENTIONS.null_logic, bound)
        pos = _pos(meta)

        def build(withs):
            source = relation.resolve(withs)
            table = source if isinstance(source, str) else _base_table(source)
            name = _var(alias.name) if alias is not None else None
            outer = S.Outer(tuple(select), where, tuple(order), name,
                            None if alias is None or alias.columns is None else tuple(alias.columns), pos)
            plain = _plain_select(outer)
            if plain is not None and not isinstance(source, (S.Values, S.Subquery)):
                outer_node, cols = None, plain or None
            else:
                outer_node, cols = outer, None
            return S.MatchRecognize(table=table, select=cols, pos=pos, conventions=conventions,
                                    outer=outer_node, source=None if isinstance(source, str) else source, **mr)
        return build

    def select_list(self, meta, items):
        return [i for i in items if isinstance(i, S.SelectItem)]

    def sel_star(self, meta, items):
        return S.SelectItem(None, None, _pos(meta))

    def sel_qstar(self, meta, items):
        return S.SelectItem(None, _var(items[0]), _pos(meta))   # `m.*`: name holds the qualifier to check

    def sel_expr(self, meta, items):
        names = [t for t in items[1:] if isinstance(t, Token) and t.type == "NAME"]
        return S.SelectItem(items[0], _name(names[0]) if names else None, _pos(meta))

    def alias(self, meta, items):
        names = _toks(items, "NAME")
        cols = next((i for i in items if isinstance(i, list)), None)
        return _Alias(names[0], cols, _pos(meta))

    def column_list(self, meta, items):
        return [_name(t) for t in _toks(items, "NAME")]

    def where_clause(self, meta, items):
        return ("where", items[1])

    def outer_order(self, meta, items):
        return ("order", tuple(i for i in items if isinstance(i, S.SortKey)))

    # ------------------------------------------------------------------ inputs: WITH, VALUES, subqueries
    def with_clause(self, meta, items):
        out: dict = {}
        for name, cols, body, pos in (i for i in items if isinstance(i, tuple)):
            key = _name(name).lower()
            if key in out:
                raise QueryError(f"WITH names '{_name(name)}' twice", pos.line, pos.column)
            out[key] = _Relation(body, cols, pos)
        return out

    def with_item(self, meta, items):
        cols = next((i for i in items if isinstance(i, list)), None)
        body = next(i for i in items if isinstance(i, (S.Values, _Sub)))
        return (items[0], cols, body, _pos(meta))

    def rel_table(self, meta, items):
        names = _toks(items, "NAME")
        cols = next((i for i in items if isinstance(i, list)), None)
        if cols is not None:
            raise QueryError("a column alias list after a table name is not supported (name the columns in a "
                             "subquery: (SELECT a AS x, ... FROM t))", meta.line, meta.column)
        return _Relation(_name(names[0]), None, _pos(meta))

    def rel_sub(self, meta, items):
        body = next(i for i in items if isinstance(i, (S.Values, _Sub)))
        cols = next((i for i in items if isinstance(i, list)), None)
        return _Relation(body, cols, _pos(meta))

    def values(self, meta, items):
        rows = [i for i in items if isinstance(i, tuple)]
        width = len(rows[0][0])
        for k, (row, pos) in enumerate(rows, 1):
            if len(row) != width:
                raise QueryError(f"VALUES row {k} has {len(row)} value{'s' if len(row) != 1 else ''}, but row 1 "
                                 f"has {width}", pos.line, pos.column)
        columns = tuple(f"_col{k}" for k in range(width))
        return S.Values(columns, tuple(_column_types(tuple(r for r, _ in rows), rows)), _pos(meta))

    def value_row(self, meta, items):
        return (tuple(_constant(e) for e in items if not isinstance(e, Token)), _pos(meta))

    def subselect(self, meta, items):
        rest = [i for i in items if not isinstance(i, Token)]
        where = next((i[1] for i in rest if isinstance(i, tuple) and i[0] == "where"), None)
        relation = next(i for i in rest if isinstance(i, _Relation))
        return _Sub(rest[0], relation, where, _pos(meta))

    def sub_all(self, meta, items):
        return None

    def sub_items(self, meta, items):
        return [i for i in items if isinstance(i, S.SubItem)]

    def sub_item(self, meta, items):
        e = items[0]
        names = [t for t in items[1:] if isinstance(t, Token) and t.type == "NAME"]
        if not isinstance(e, S.ColRef):
            raise QueryError("a subquery's SELECT takes columns (computed columns are not supported)",
                             meta.line, meta.column)
        return S.SubItem(e.col, _name(names[0]) if names else e.col, _pos(meta))

    def mr(self, meta, items):
        out = dict(partition_by=(), order_by=(), measures=(), rows="one", empty="show", strategy=None,
                   skip=None, within=None, subsets=(), define=())
        for item in items[1:]:
            if isinstance(item, Token):
                continue
            out.update(item)
        if out["skip"] is None:
            out["skip"] = S.Skip()
        return out

    def partition(self, meta, items):
        return {"partition_by": tuple(i for i in items if not isinstance(i, Token))}

    def order(self, meta, items):
        return {"order_by": tuple(i for i in items if isinstance(i, S.SortKey))}

    def sort_key(self, meta, items):
        return S.SortKey(items[0], len(items) > 1 and items[1].type == "DESC", _pos(meta))

    def measures(self, meta, items):
        return {"measures": tuple(i for i in items if isinstance(i, S.Measure))}

    def measure(self, meta, items):
        return S.Measure(items[0], _name(items[2]), _pos(meta))

    def one_row(self, meta, items):
        return {"rows": "one"}

    def all_rows(self, meta, items):
        empty = [i for i in items if isinstance(i, str) and not isinstance(i, Token)]
        return {"rows": "all", "empty": empty[0] if empty else "show"}

    def show_empty(self, meta, items):
        return "show"

    def omit_empty(self, meta, items):
        return "omit"

    def with_unmatched(self, meta, items):
        return "unmatched"

    def all_matches(self, meta, items):
        strat = [i for i in items if isinstance(i, str) and not isinstance(i, Token)]
        return {"rows": "all_matches", "strategy": strat[0] if strat else "contiguous"}

    def contiguous(self, meta, items):
        return "contiguous"

    def skip_till_next(self, meta, items):
        return "skip_till_next"

    def skip_till_any(self, meta, items):
        return "skip_till_any"

    def skip_past_last(self, meta, items):
        return {"skip": S.Skip("past_last", None, _pos(meta))}

    def skip_next_row(self, meta, items):
        return {"skip": S.Skip("next_row", None, _pos(meta))}

    def skip_first(self, meta, items):
        return {"skip": S.Skip("first", _var(_toks(items, "NAME")[0]), _pos(meta))}

    def skip_last(self, meta, items):
        return {"skip": S.Skip("last", _var(_toks(items, "NAME")[0]), _pos(meta))}

    def pattern_clause(self, meta, items):
        out = {"pattern": items[1]}
        if len(items) > 2:
            out["within"] = items[2]
        return out

    def within(self, meta, items):
        exclusive = items[-1].type == "EXCLUSIVE"
        items = [t for t in items if t.type != "EXCLUSIVE"]
        amount = int(items[1])
        unit = parse_unit(str(items[2]), _pos(items[2])) if len(items) > 2 else None
        return S.Within(amount, unit, exclusive, pos=_pos(meta))

    def within_interval(self, meta, items):
        exclusive = items[-1].type == "EXCLUSIVE"
        text = str(items[2])[1:-1].strip()
        if not text.isdigit():
            raise QueryError(f"INTERVAL needs a whole number, not '{text}'", items[2].line, items[2].column)
        return S.Within(int(text), parse_unit(str(items[3]), _pos(items[3])), exclusive, pos=_pos(meta))

    # ------------------------------------------------------------------ patterns
    def p_alt(self, meta, items):
        return items[0] if len(items) == 1 else S.PAlt(tuple(items), _pos(meta))

    def p_seq(self, meta, items):
        return items[0] if len(items) == 1 else S.PConcat(tuple(items), _pos(meta))

    def pquant(self, meta, items):
        low, high, reluctant = items[1]
        return S.PQuant(items[0], low, high, reluctant, _pos(meta))

    def quantifier(self, meta, items):
        toks = list(items)
        reluctant = False
        braces = "{" in self._text[meta.start_pos:meta.end_pos]   # {,}? holds one token, the reluctant '?'
        if toks and (len(toks) >= 2 or braces) and toks[-1].type == "QMARK":
            reluctant = True
            toks = toks[:-1]
        first = toks[0] if toks else None
        if first is not None and first.type in ("STAR", "PLUS", "QMARK") and len(toks) == 1:
            return {"STAR": (0, None), "PLUS": (1, None), "QMARK": (0, 1)}[first.type] + (reluctant,)
        # {n}, {n,}, {,m}, {n,m}: recover which bound is which from the source text
        ints = [int(t) for t in toks if t.type == "INT"]
        src = self._text[meta.start_pos:meta.end_pos]
        body = src[src.index("{") + 1:src.index("}")]
        if "," not in body:
            low = high = ints[0]
        else:
            lo_s, hi_s = (s.strip() for s in body.split(",", 1))
            low = int(lo_s) if lo_s else 0
            high = int(hi_s) if hi_s else None
        if high is not None and high < low:
            raise QueryError(f"quantifier {{{low},{high}}}: the upper bound is below the lower bound",
                             meta.line, meta.column)
        if high == 0:
            raise QueryError("quantifier with upper bound 0", meta.line, meta.column)
        return (low, high, reluctant)

    def p_var(self, meta, items):
        return S.PVar(_var(items[0]), _pos(meta))

    def p_empty(self, meta, items):
        return S.PEmpty(_pos(meta))

    def p_group(self, meta, items):
        return items[0]

    def p_anchor(self, meta, items):
        return S.PAnchor(str(items[0]), _pos(meta))

    def p_exclude(self, meta, items):
        return S.PExclude(items[1], _pos(meta))

    def p_permute(self, meta, items):
        return S.PPermute(tuple(i for i in items if not isinstance(i, Token)), _pos(meta))

    def subset(self, meta, items):
        return {"subsets": tuple(i for i in items if isinstance(i, S.Subset))}

    def subset_item(self, meta, items):
        names = _toks(items, "NAME")
        return S.Subset(_var(names[0]), tuple(_var(t) for t in names[1:]), _pos(names[0]))

    def define(self, meta, items):
        return {"define": tuple(i for i in items if isinstance(i, S.Define))}

    def define_item(self, meta, items):
        return S.Define(_var(items[0]), items[2], _pos(items[0]))

    # ------------------------------------------------------------------ expressions
    def or_(self, meta, items):
        parts = [i for i in items if not isinstance(i, Token)]
        return parts[0] if len(parts) == 1 else A.Or(tuple(parts), _pos(meta))

    def and_(self, meta, items):
        parts = [i for i in items if not isinstance(i, Token)]
        return parts[0] if len(parts) == 1 else A.And(tuple(parts), _pos(meta))

    def not_(self, meta, items):
        return A.Not(items[1], _pos(meta))

    def compare(self, meta, items):
        op = str(items[1])
        return A.Compare("!=" if op == "<>" else op, items[0], items[2], _pos(items[1]))

    def is_null(self, meta, items):
        return S.IsNull(items[0], False, _pos(meta))

    def is_not_null(self, meta, items):
        return S.IsNull(items[0], True, _pos(meta))

    def between(self, meta, items):
        x, lo, hi = items[0], items[2], items[4]
        return A.And((A.Compare(">=", x, lo, _pos(meta)), A.Compare("<=", x, hi, _pos(meta))), _pos(meta))

    def binop(self, meta, items):
        return A.BinOp(str(items[1]), items[0], items[2], _pos(items[1]))

    def neg(self, meta, items):
        return A.Neg(items[1], _pos(meta))

    def int_lit(self, meta, items):
        return A.Const(int(items[0]), _pos(meta))

    def dec_lit(self, meta, items):
        return A.Const(Fraction(str(items[0])), _pos(meta))

    def str_lit(self, meta, items):
        return A.Const(str(items[0])[1:-1].replace("''", "'"), _pos(meta))

    def true_lit(self, meta, items):
        return A.Const(True, _pos(meta))

    def false_lit(self, meta, items):
        return A.Const(False, _pos(meta))

    def null_lit(self, meta, items):
        return A.Const(None, _pos(meta))

    def col(self, meta, items):
        return S.ColRef(None, _name(items[0]), _pos(meta))

    def qcol(self, meta, items):
        return S.ColRef(_var(items[0]), _name(items[1]), _pos(meta))

    def nav(self, meta, items, final=False):
        kind = str(items[0]).lower()
        offset = int(items[2]) if len(items) > 2 else (1 if kind in ("prev", "next") else 0)
        return S.Nav(kind, items[1], offset, final, _pos(meta))

    def nav_sem(self, meta, items):
        final = str(items[0]).lower() == "final"
        kind = str(items[1]).lower()
        if kind in ("prev", "next"):
            raise QueryError(f"{str(items[0]).upper()} applies to FIRST, LAST and aggregates, not {kind.upper()}",
                             items[0].line, items[0].column)
        return self.nav(meta, items[1:], final)

    def classifier(self, meta, items):
        names = _toks(items, "NAME")
        return S.Classifier(_var(names[0]) if names else None, _pos(meta))

    def match_number(self, meta, items):
        return S.MatchNumber(_pos(meta))

    def agg(self, meta, items, final=False):
        func = str(items[0]).lower()
        kind, arg, var = items[1]
        if kind == "star" and func != "count":
            raise QueryError(f"{func.upper()}(*) is not allowed; only COUNT takes *", meta.line, meta.column)
        return S.SqlAgg(func, arg, var, final, _pos(meta))

    def agg_sem(self, meta, items):
        return self.agg(meta, items[1:], str(items[0]).lower() == "final")

    def agg_expr(self, meta, items):
        return ("expr", items[0], None)

    def agg_star(self, meta, items):
        return ("star", None, None)

    def agg_var_star(self, meta, items):
        return ("star", None, _var(items[0]))


def parse_expression(text: str, variables: tuple[str, ...] = ()):
    """A standalone condition (for windowed filters and joins): no pattern functions or aggregates;
    qualified column references may only use `variables`."""
    e = transform_text(text, lambda t: _parser().parse(t, start="expr_start"), _transformer(text), _WORDS)
    for n in e.walk():
        if isinstance(n, (S.Nav, S.SqlAgg, S.Classifier, S.MatchNumber)):
            raise QueryError("a condition here cannot use navigation, aggregates or pattern functions",
                             n.pos.line, n.pos.column)
        if isinstance(n, S.ColRef) and n.var is not None and n.var not in variables:
            shown = ", ".join(variables) if variables else "none"
            raise QueryError(f"unknown qualifier '{n.var}' (allowed: {shown})", n.pos.line, n.pos.column)
    return e


def _transformer(text: str) -> "_ToAst":
    t = _ToAst()
    t._text = text
    return t


def parse(text: str) -> S.MatchRecognize:
    """Parse and validate a MATCH_RECOGNIZE query."""
    try:
        raw = transform_text(text, lambda t: _parser().parse(t, start="start"), _transformer(text), _WORDS)
    except QueryError as exc:
        raise refused(text, exc) or exc from None
    try:
        return validate(raw)
    except RecursionError:
        raise too_deep_to_read() from None


# constructs a syntax error is put down to, by the word that starts them
_OUTSIDE = {"OVER": "a window function (OVER)", "JOIN": "JOIN", "GROUP": "GROUP BY", "HAVING": "HAVING",
            "UNION": "UNION", "INTERSECT": "INTERSECT", "EXCEPT": "EXCEPT", "LIMIT": "LIMIT", "OFFSET": "OFFSET",
            "FETCH": "FETCH FIRST", "DISTINCT": "DISTINCT", "LATERAL": "LATERAL", "UNNEST": "UNNEST",
            "WINDOW": "WINDOW", "QUALIFY": "QUALIFY", "INSERT": "INSERT", "UPDATE": "UPDATE", "DELETE": "DELETE",
            "CREATE": "CREATE"}
_UNSUPPORTED = {"CASE": "CASE", "CAST": "CAST", "IN": "IN (...)", "LIKE": "LIKE", "NULLS": "NULLS FIRST / LAST",
                "TIMESTAMP": "TIMESTAMP literals", "INTERVAL": "INTERVAL outside WITHIN", "EXISTS": "EXISTS"}
_WORD = re.compile(r"'(?:[^']|'')*'|\"[^\"]*\"|--[^\n]*|/\*.*?\*/|[A-Za-z_][A-Za-z_0-9]*", re.S)


def refused(text: str, exc: QueryError) -> QueryError | None:
    """For a syntax error: the construct outside R010 that the query uses (a window function, a JOIN, GROUP
    BY, ...), or one cepkit does not run at or before the error (CAST, CASE, ...), named with its line and
    column; else None."""
    for m in _WORD.finditer(text):
        word = m.group(0).upper()
        if word not in _OUTSIDE and word not in _UNSUPPORTED:
            continue
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - text.rfind("\n", 0, m.start())
        if word in _UNSUPPORTED and exc.line is not None and (line, column) > (exc.line, exc.column or 0):
            continue   # (a construct outside R010 is named wherever it is: `f(x) OVER` fails at the '(')
        if word == "INTERVAL" and re.search(r"WITHIN\s*$", text[:m.start()], re.I):
            continue
        if word in _OUTSIDE:
            return QueryError(f"{_OUTSIDE[word]} is outside SQL row pattern recognition (R010); cepkit runs "
                              "SELECT ... FROM ... MATCH_RECOGNIZE (...) over a table, VALUES, a subquery or a "
                              "WITH name, with an outer WHERE and ORDER BY", line, column)
        return QueryError(f"{_UNSUPPORTED[word]} is not supported in cepkit's SQL (see docs/language.md)",
                          line, column)
    return None


_WORDS = {"NAME": "a name", "INT": "a number", "STRING": "a string", "$END": "end of query",
          "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "CMP_OP": "a comparison", "STAR": "'*'"}
