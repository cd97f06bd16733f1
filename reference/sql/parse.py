"""Parse MATCH_RECOGNIZE text into the AST (reference.sql.ast); every mistake is a QueryError with position."""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from lark import Lark, Token, v_args

from reference.errors import QueryError
from reference.language import ast as A
from reference.language.limits import DepthLimited
from reference.language.sase import transform_text
from reference.language.units import parse_unit
from reference.sql import ast as S
from reference.sql.grammar import GRAMMAR
from reference.sql.validate import validate


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=False,
                start=["start", "expr_start"])


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


@v_args(meta=True)
class _ToAst(DepthLimited):
    clause_types = (S.MatchRecognize, S.Define, S.Measure, S.SortKey, S.Skip, S.Within, S.Subset, A.Conventions,
                    S.Conventions)

    # ------------------------------------------------------------------ query
    def start(self, meta, items):
        return items[0]

    def expr_start(self, meta, items):
        return items[0]

    def query(self, meta, items):
        select = items[1]
        table = _name(items[3])
        mr = items[4]
        within = mr.get("within")
        bound = "strict" if within is not None and within.exclusive else "inclusive"
        conventions = S.Conventions(S.SQL_CONVENTIONS.null_logic, bound)
        return S.MatchRecognize(table=table, select=select, pos=_pos(meta), conventions=conventions, **mr)

    def select_all(self, meta, items):
        return None

    def select_cols(self, meta, items):
        return tuple(S.ColRef(None, _name(t), _pos(t)) for t in _toks(items, "NAME"))

    def alias(self, meta, items):
        return None

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
    from reference.sql.validate import nodes

    e = transform_text(text, lambda t: _parser().parse(t, start="expr_start"), _transformer(text), _WORDS)
    for n in nodes(e):
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
    raw = transform_text(text, lambda t: _parser().parse(t, start="start"), _transformer(text), _WORDS)
    return validate(raw)


_WORDS = {"NAME": "a name", "INT": "a number", "STRING": "a string", "$END": "end of query",
          "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "CMP_OP": "a comparison", "STAR": "'*'"}
