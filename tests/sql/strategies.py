"""Hypothesis strategies for row patterns, and independent translations used by the differential tests."""
from __future__ import annotations

from itertools import permutations

from hypothesis import strategies as st

from cepkit.front.sql import ast as S

VARS = ("A", "B", "C")


def patterns(vars=VARS, anchors=True, extras=True, max_leaves=6, groups=True, reluctant=True, permute=None,
             var_weight=1):
    """Row patterns. `extras`: empty pattern, PERMUTE and exclusion; `groups`: quantifiers on compound
    items (else on variables only); `reluctant`: reluctant quantifiers; `permute` overrides `extras`;
    `var_weight`: how many times likelier a leaf is a variable than an anchor or ()."""
    permute = extras if permute is None else permute
    leaf = st.one_of(*[st.sampled_from(vars).map(S.PVar)] * var_weight)
    if anchors:
        leaf = leaf | st.sampled_from(["^", "$"]).map(S.PAnchor)
    if extras:
        leaf = leaf | st.just(S.PEmpty())
    bounds = st.sampled_from([(0, None), (1, None), (0, 1), (2, 2), (1, 2), (0, 2), (2, None)])
    flags = st.booleans() if reluctant else st.just(False)

    def quantified(items):
        return st.tuples(items, bounds, flags).map(lambda t: S.PQuant(t[0], t[1][0], t[1][1], t[2]))

    if not groups:
        leaf = leaf | quantified(st.sampled_from(vars).map(S.PVar))

    def grow(children):
        opts = [st.lists(children, min_size=2, max_size=3).map(lambda xs: S.PConcat(tuple(xs))),
                st.lists(children, min_size=2, max_size=3).map(lambda xs: S.PAlt(tuple(xs)))]
        if groups:
            opts.append(quantified(children))
        if permute:
            opts.append(st.lists(children, min_size=2, max_size=3).map(lambda xs: S.PPermute(tuple(xs))))
        if extras:
            opts.append(children.map(S.PExclude))
        return st.one_of(*opts)

    return st.recursive(leaf, grow, max_leaves=max_leaves)


def to_python_re(p: S.Pattern, atom) -> str:
    """The pattern as a Python `re` regex, given how one variable is written (`atom(var)`)."""
    if isinstance(p, S.PVar):
        return atom(p.name)
    if isinstance(p, S.PEmpty):
        return ""
    if isinstance(p, S.PAnchor):
        return r"\A" if p.kind == "^" else r"\Z"
    if isinstance(p, S.PConcat):
        return "".join(f"(?:{to_python_re(i, atom)})" for i in p.items)
    if isinstance(p, S.PAlt):
        return "|".join(f"(?:{to_python_re(i, atom)})" for i in p.items)
    if isinstance(p, S.PPermute):
        return "|".join("".join(f"(?:{to_python_re(p.items[i], atom)})" for i in order)
                        for order in permutations(range(len(p.items))))
    if isinstance(p, S.PExclude):
        return f"(?:{to_python_re(p.item, atom)})"
    if isinstance(p, S.PQuant):
        lo, hi = p.low, p.high
        q = "{%d,%s}" % (lo, "" if hi is None else hi)
        return f"(?:{to_python_re(p.item, atom)}){q}{'?' if p.reluctant else ''}"
    raise TypeError(p)


# ---------------------------------------------------------------------------------------------------------
# Whole MATCH_RECOGNIZE queries (as text) and the tables they read: integer columns x and y with nulls, a
# partition column k, the ordering column ts (strictly increasing) and, when drawn, an id column.

COLUMNS = ("x", "y")
COMPARISONS = ("=", "<>", "!=", "<", "<=", ">", ">=")
ROWS_PER_MATCH = ("", "ONE ROW PER MATCH", "ALL ROWS PER MATCH", "ALL ROWS PER MATCH SHOW EMPTY MATCHES",
                  "ALL ROWS PER MATCH OMIT EMPTY MATCHES", "ALL ROWS PER MATCH WITH UNMATCHED ROWS")
SMALL = st.integers(-1, 4).map(str)


@st.composite
def tables(draw, max_rows: int = 40, partitions: int = 3, low: int = 0, high: int = 4):
    """Rows as dicts: ts strictly increasing, k in [0, partitions), x and y in [low, high] or null (1 in
    6), and an `id` column unless the draw leaves ids positional."""
    n = draw(st.integers(0, max_rows) | st.integers(max_rows // 4, max_rows))
    parts = draw(st.integers(1, partitions))
    cell = st.integers(low - 1, high).map(lambda v: None if v < low else v)
    ts = 0
    ids = draw(st.booleans())
    rows = []
    for i in range(n):
        ts += draw(st.integers(1, 3))
        row = {"ts": ts, "k": draw(st.integers(0, parts - 1)), "x": draw(cell), "y": draw(cell)}
        rows.append({"id": 100 + i, **row} if ids else row)
    return rows


def column_refs(names):
    """x or y, bare or qualified by one of `names` (pattern variables and SUBSET names)."""
    return st.builds(lambda q, c: q + c, st.sampled_from(("",) + tuple(f"{n}." for n in names)),
                     st.sampled_from(COLUMNS))


def _semantics(final: bool):
    return st.sampled_from(("", "RUNNING ", "FINAL ") if final else ("", "RUNNING "))


def navigations(names, final: bool):
    """PREV / NEXT / FIRST / LAST with optional offsets, of a column or a column plus a constant, and
    FIRST / LAST nested in PREV / NEXT; FIRST / LAST RUNNING, or FINAL where `final` (MEASURES)."""
    offset = st.sampled_from(("", ", 0", ", 1", ", 2"))
    arg = column_refs(names) | st.builds(lambda c, k: f"{c} + {k}", column_refs(names), st.integers(0, 2))
    physical = st.builds(lambda f, a, o: f"{f}({a}{o})", st.sampled_from(("PREV", "NEXT")), arg, offset)
    logical = st.builds(lambda s, f, a, o: f"{s}{f}({a}{o})", _semantics(final),
                        st.sampled_from(("FIRST", "LAST")), arg, offset)
    nested = st.builds(lambda f, s, g, a, o, p: f"{f}({s}{g}({a}{o}){p})", st.sampled_from(("PREV", "NEXT")),
                       _semantics(final), st.sampled_from(("FIRST", "LAST")), column_refs(names), offset, offset)
    return physical | logical | nested


def aggregates(names, final: bool):
    """COUNT(*), COUNT(V.*) and SUM / AVG / MIN / MAX / COUNT of a column, RUNNING or FINAL."""
    star = st.sampled_from(["COUNT(*)"] + [f"COUNT({n}.*)" for n in names])
    of_column = st.builds(lambda f, c: f"{f}({c})", st.sampled_from(("SUM", "AVG", "MIN", "MAX", "COUNT")),
                          column_refs(names))
    return st.builds(lambda s, a: s + a, _semantics(final), star | of_column)


def values(names, measures: bool):
    """Numeric expressions: columns, constants, navigation, aggregates (MATCH_NUMBER() in MEASURES),
    combined with + - * /."""
    leaf = st.one_of(column_refs(names), SMALL, navigations(names, measures), aggregates(names, measures),
                     *([st.just("MATCH_NUMBER()")] if measures else []))
    return st.recursive(leaf, lambda c: st.builds(lambda a, op, b: f"({a} {op} {b})", c,
                                                   st.sampled_from("+-*/"), c), max_leaves=3)


def conditions(names):
    """DEFINE conditions: comparisons, IS [NOT] NULL, BETWEEN, CLASSIFIER tests, under AND / OR / NOT."""
    v = values(names, measures=False)
    atom = st.one_of(
        st.builds(lambda a, op, b: f"{a} {op} {b}", v, st.sampled_from(COMPARISONS), v),
        st.builds(lambda a, neg: f"{a} IS {neg}NULL", v, st.sampled_from(("", "NOT "))),
        st.builds(lambda a, lo, hi: f"{a} BETWEEN {lo} AND {hi}", v, SMALL, SMALL),
        st.builds(lambda c, op, var: f"{c} {op} '{var}'", st.sampled_from(("CLASSIFIER()", "PREV(CLASSIFIER())")),
                  st.sampled_from(("=", "<>")), st.sampled_from(VARS)))
    return st.recursive(atom, lambda c: st.one_of(
        st.builds(lambda a, op, b: f"({a} {op} {b})", c, st.sampled_from(("AND", "OR")), c),
        c.map(lambda a: f"NOT ({a})")), max_leaves=3)


def measure_exprs(names):
    """MEASURES expressions: numeric values and CLASSIFIER()."""
    return values(names, measures=True) | st.sampled_from(["CLASSIFIER()"] + [f"CLASSIFIER({n})" for n in names])


def skips(names):
    """AFTER MATCH SKIP, each mode about as likely (TO FIRST / TO LAST / TO of a drawn variable)."""
    fixed = st.sampled_from(("", "AFTER MATCH SKIP PAST LAST ROW", "AFTER MATCH SKIP TO NEXT ROW"))
    if not names:
        return fixed
    to = st.builds(lambda how, n: f"AFTER MATCH SKIP TO {how}{n}", st.sampled_from(("FIRST ", "LAST ", "")),
                   st.sampled_from(names))
    return st.one_of(fixed, fixed, fixed, to, to)


@st.composite
def queries(draw, pattern_st=None, condition_st=conditions, measure_st=measure_exprs, rows=ROWS_PER_MATCH,
            subsets=True, select=True, descending=True, skip=True):
    """A MATCH_RECOGNIZE query over `tables()`: random pattern, DEFINE, MEASURES m0.., rows per match,
    AFTER MATCH SKIP (unless `skip` is False: ALL MATCHES takes none), optional PARTITION BY k, SUBSET U and
    SELECT list."""
    from cepkit.front.sql.patterns import variables
    from cepkit.front.sql.printer import pattern_text

    pattern = draw(patterns(max_leaves=5, var_weight=4) if pattern_st is None else pattern_st)
    used = list(dict.fromkeys(v.name for v in variables(pattern)))
    subset = draw(st.lists(st.sampled_from(used), min_size=1, unique=True)) if subsets and used \
        and draw(st.booleans()) else []
    names = tuple(used) + (("U",) if subset else ())
    define = [(v, draw(condition_st(names))) for v in used if draw(st.booleans())]
    measures = draw(st.lists(measure_st(names), max_size=4))
    per_match = draw(st.sampled_from(rows))
    partition = draw(st.booleans())
    out = (["k"] if partition else []) + [f"m{i}" for i in range(len(measures))]
    if per_match.startswith("ALL ROWS"):
        out += ["ts", "x", "y"]
    columns = draw(st.lists(st.sampled_from(out), min_size=1, unique=True)) if select and out \
        and draw(st.booleans()) else ["*"]
    parts = [f"SELECT {', '.join(columns)} FROM t MATCH_RECOGNIZE ("]
    if partition:
        parts.append("PARTITION BY k")
    parts.append("ORDER BY ts" + (draw(st.sampled_from(("", " DESC"))) if descending else ""))
    if measures:
        parts.append("MEASURES " + ", ".join(f"{m} AS m{i}" for i, m in enumerate(measures)))
    parts += [per_match, draw(skips(names)) if skip else "", f"PATTERN ({pattern_text(pattern)})"]
    if subset:
        parts.append(f"SUBSET U = ({', '.join(subset)})")
    if define:
        parts.append("DEFINE " + ", ".join(f"{v} AS {c}" for v, c in define))
    return " ".join(p for p in parts if p) + ")"


def numbered_conditions(names):
    """DEFINE conditions that may also compare MATCH_NUMBER() (the number of the match being tried)."""
    number = st.builds(lambda op, k, v: f"(MATCH_NUMBER() {op} {k} OR {v})", st.sampled_from(COMPARISONS), SMALL,
                       conditions(names))
    return st.one_of(conditions(names), number)


def core_conditions(names):
    """A column of the current row compared with a constant or with PREV of a column."""
    prev = st.builds(lambda c, o: f"PREV({c}{o})", st.sampled_from(COLUMNS), st.sampled_from(("", ", 1", ", 2")))
    return st.builds(lambda c, op, r: f"{c} {op} {r}", st.sampled_from(COLUMNS), st.sampled_from(COMPARISONS),
                     SMALL | prev)


def core_measures(names):
    """FIRST / LAST / SUM of a column, COUNT(*), CLASSIFIER(), MATCH_NUMBER()."""
    return st.one_of(st.builds(lambda f, c: f"{f}({c})", st.sampled_from(("FIRST", "LAST", "SUM")),
                               column_refs(names)),
                     st.sampled_from(("COUNT(*)", "CLASSIFIER()", "MATCH_NUMBER()")))


def core_queries():
    """The scope every fast engine runs: variables with *, +, ?, {m,n}, concatenation, alternation,
    PERMUTE; core_conditions; ONE ROW PER MATCH with core_measures; every AFTER MATCH SKIP; PARTITION BY."""
    return queries(patterns(anchors=False, extras=False, max_leaves=5, groups=False, reluctant=False,
                            permute=True),
                   core_conditions, core_measures, rows=("ONE ROW PER MATCH",), subsets=False, select=False,
                   descending=False)
