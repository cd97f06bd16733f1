"""Hypothesis strategies: mutated and deeply nested queries of every language, malformed event files
(CSV, JSON lines, gzip, Parquet), odd option values, and one-cell changes of valid inputs."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.fuzz.formats import FORMATS, MISSING, Line, Raw, serialize
from tests.fuzz.seeds import LANGS, Seed, Table, seeds_for

TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
HUGE = ["9" * 40, str(2**63), str(2**64), str(-2**63 - 1), str(10**32 - 1), "1e309", "1e-400", "1e400",
        "1_000", "0x10", "NaN", "inf", "-0", "0.000000000000000000001", "1000000 days", "99999999999 hours"]
ODD_TOKENS = ["(", ")", "[", "]", "{", "}", ",", ";", ".", "'", '"', "`", "--", "/*", "*/", "//", "#", "\\",
              "\x00", "\ufeff", "é", "\u202e", "\t", "\r", "\n", ":", "- ", "NOT", "AND", "OR", "WITHIN",
              "SEQ(", "PATTERN", "DEFINE", "|", "&", "*", "+", "?", "{0,}", "{3,1}", "!", "~", "%", "..", "=="]
ODD_BYTES = [b"\xff", b"\xfe\xff", b"\xc3(", b"\x00", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\x80\x80", b"\r",
             b"\xf4\x90\x80\x80"]
DEPTHS = [5, 40, 120, 300, 600, 1200, 3000]

# Deeply nested queries, `{n}` levels: (language, template builder).
NESTING = {
    "sase": [lambda n: f"PATTERN SEQ(A a, B b) WHERE a.x > {'- ' * n}1 WITHIN 10",
             lambda n: f"PATTERN SEQ(A a, B b) WHERE {'(' * n}a.x > b.x{')' * n} WITHIN 10",
             lambda n: f"PATTERN SEQ(A a, B b) WHERE {'NOT ' * n}a.x > 1 WITHIN 10",
             lambda n: f"PATTERN {'SEQ(' * n}A a, B b{')' * n} WITHIN 10",
             lambda n: f"PATTERN SEQ(A a, {'~(' * n}B b{')' * n}, C c) WITHIN 10",
             lambda n: f"PATTERN SEQ(A a, B b) WHERE a.x = {'1 + (' * n}1{')' * n}"],
    "sase1": [lambda n: f"PATTERN SEQ(stock a, stock b) WHERE {'(' * n}a.price > b.price{')' * n} WITHIN 5",
              lambda n: f"PATTERN SEQ(stock a, stock b) WHERE a.price > {'-' * n}1 WITHIN 5"],
    "sql": [lambda n: "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.ts AS a PATTERN ("
                      f"{'(' * n}A B{')' * n}) DEFINE A AS p > 10, B AS p < 40)",
            lambda n: f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS {'(' * n}p > 1{')' * n})",
            lambda n: f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS {'NOT ' * n}p > 1)",
            lambda n: f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS p > {'- ' * n}1)",
            lambda n: f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A{'+' * n}) DEFINE A AS p > 1)",
            # WITH names each reading the one before, and subqueries in FROM, n deep (issue 30, item 7)
            lambda n: ("WITH " + ", ".join(["w0 AS (SELECT * FROM t)"] + [f"w{i} AS (SELECT * FROM w{i - 1})"
                                                                        for i in range(1, n)])
                       + f" SELECT * FROM w{n - 1} MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS p > 1)"),
            lambda n: (f"SELECT * FROM {'(SELECT * FROM ' * n}t{')' * n} MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) "
                       "DEFINE A AS p > 1)")],
    "tpstream": [lambda n: f"FROM s DEFINE A AS {'(' * n}x > 0{')' * n}, B AS y > 0 PATTERN A before B WITHIN 100",
                 lambda n: f"FROM s DEFINE A AS {'NOT ' * n}x > 0, B AS y > 0 PATTERN A before B WITHIN 100",
                 lambda n: f"FROM s DEFINE A AS x > {'- ' * n}0, B AS y > 0 PATTERN A before B WITHIN 100"],
    "window": [lambda n: f"FILTER WHERE {'(' * n}v > 3{')' * n}",
               lambda n: f"FILTER WHERE {'NOT ' * n}v > 3",
               lambda n: f"FILTER WHERE v > {'- ' * n}3",
               lambda n: f"AGGREGATE sum({'(' * n}v{')' * n}) OVER COUNT 3"],
    "afa": [lambda n: _afa(f"{'(' * n}e.v > 0{')' * n}"),
            lambda n: _afa(f"{'not ' * n}e.v > 0"),
            lambda n: _afa("e.v > " + "- " * n + "1"),
            lambda n: _afa("e.v > 0", "[" * n + "0" + "]" * n)],
}

ODD_CELLS = ["", "abc", "1e309", "-1e309", "1e400", "1e-400", "1_000", "inf", "-inf", "nan", "NaN", "Infinity",
             str(10**32 - 1), str(2**64), str(2**64 + 1), str(-2**63 - 1), str(2**63), "0x10", "١٢", "½", "1,5",
             "\x00", "x" * 3000, "true", "[1]", "{}", " 7", "+7", "-0", "1.", ".5", "5e", "\ufeff1", "\udcff",
             "2008-06-10T09:01:00", "NULL", '"', "1\n2"]
JSON_KINDS = ["true", "false", "null", "[1, 2]", "[]", '{"a": 1}', "1e309", "-1e309", "NaN", "Infinity", "-Infinity",
              str(10**32 - 1), str(2**64), str(-2**63 - 1), "1.0", '"12"', '"abc"', "0.1e1", "-0", '""', "1E400"]
JSON_LINES = ["[1, 2]", "3", '"x"', "null", "{}", "{", "", "}", '{"ts": }', "true", "{\"ts\": 1}{\"ts\": 2}"]
GARBAGE = ["abc", "12abc", "1e", "--5", "5.5.5", "x1", "½", "1 2", "#", "1..2"]
JSON_GARBAGE = ["true", '"abc"', "[1]", '{"v": 1}', "false", '"12x"']


def _afa(fence: str, register: str = "0") -> str:
    return ("name: X\nwindow: 10\nregister: {n: %s}\nstates: [q0, q1]\nstart: q0\nfinal: [q1]\narcs:\n"
            "  - {name: a0, from: q0, to: q1, fence: \"%s\", transfer: {n: \"r.n + 1\"}}\n" % (register, fence))


@dataclass(frozen=True)
class Case:
    """One input: what `cepkit run` gets and how it was made."""

    lang: str
    query: bytes
    events_name: str
    events: bytes
    args: tuple[str, ...]
    how: str                         # the mutations, for reports
    seed: Seed | None = None

    def __repr__(self) -> str:
        return f"Case({self.lang}: {self.how}; query {len(self.query)} B, {self.events_name} {len(self.events)} B)"


# ---------------------------------------------------------------- queries

@st.composite
def mutated_text(draw, text: str, vocab: list[str]) -> tuple[str, list[str]]:
    """The text with 1-4 token or character edits (delete, insert, duplicate, swap, odd numbers, long names)."""
    toks = TOKEN.findall(text) or [""]
    how = []
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "swap", "replace", "number", "ident",
                                   "char-delete", "char-insert"]))
        i = draw(st.integers(0, max(len(toks) - 1, 0)))
        if op == "delete" and len(toks) > 1:
            del toks[i]
        elif op == "insert":
            toks.insert(i, draw(st.sampled_from(vocab + ODD_TOKENS)) + draw(st.sampled_from(["", " "])))
        elif op == "duplicate":
            j = draw(st.integers(i, min(i + 8, len(toks))))
            toks[j:j] = toks[i:j] * draw(st.integers(1, 3))
        elif op == "swap":
            j = draw(st.integers(0, len(toks) - 1))
            toks[i], toks[j] = toks[j], toks[i]
        elif op == "replace":
            toks[i] = draw(st.sampled_from(vocab + ODD_TOKENS))
        elif op == "number":
            nums = [k for k, t in enumerate(toks) if t.isdigit()] or [i]
            toks[draw(st.sampled_from(nums))] = draw(st.sampled_from(HUGE))
        elif op == "ident":
            idents = [k for k, t in enumerate(toks) if t[:1].isalpha()] or [i]
            toks[draw(st.sampled_from(idents))] = "x" * draw(st.sampled_from([64, 1000, 20000]))
        elif op == "char-delete":
            t = toks[i]
            k = draw(st.integers(0, max(len(t) - 1, 0)))
            toks[i] = t[:k] + t[k + 1:]
        else:
            toks[i] = toks[i] + draw(st.characters(codec="utf-8"))
        how.append(op)
    return "".join(toks), how


@st.composite
def odd_bytes(draw, data: bytes) -> tuple[bytes, str]:
    """Sometimes: raw bytes (not UTF-8, NUL, BOM) inserted, or the text in another encoding."""
    choice = draw(st.sampled_from(["none"] * 9 + ["insert", "utf-16", "latin-1-é"]))
    if choice == "insert":
        k = draw(st.integers(0, len(data)))
        return data[:k] + draw(st.sampled_from(ODD_BYTES)) + data[k:], "odd-bytes"
    if choice == "utf-16":
        return data.decode("utf-8", "replace").encode("utf-16"), "utf-16"
    if choice == "latin-1-é":
        return data.replace(b"\n", "\n-- é\n".encode("latin-1"), 1) + "é".encode("latin-1"), "latin-1"
    return data, ""


def vocabulary(lang: str) -> list[str]:
    words = sorted({t for s in seeds_for(lang) for t in TOKEN.findall(s.query) if not t.isspace()})
    return words or ["x"]


@st.composite
def query_cases(draw, lang: str) -> Case:
    """A seed's query mutated (or, one time in eight, a deeply nested query), run on the seed's events."""
    seed = draw(st.sampled_from(seeds_for(lang)))
    if draw(st.integers(0, 7)) == 0:
        n = draw(st.sampled_from(DEPTHS))
        text, how = draw(st.sampled_from(NESTING[lang]))(n), [f"nesting {n}"]
    else:
        text, how = draw(mutated_text(seed.query, vocabulary(lang)))
    data, odd = draw(odd_bytes(text.encode("utf-8", "surrogatepass")))
    return Case(lang, data, "events.csv", serialize(seed.events, "csv"), seed.args,
                f"{seed.name}: query {' '.join(how + ([odd] if odd else []))}", seed)


# ---------------------------------------------------------------- event files

def _set(t: Table, r: int, c: int, v: Any) -> Table:
    rows = [list(x) for x in t.rows]
    rows[r] += [MISSING] * (c + 1 - len(rows[r]))   # a row shorter than the header (after duplicate-header)
    rows[r][c] = v
    return Table(t.header, tuple(tuple(x) for x in rows))


@st.composite
def mutated_table(draw, t: Table, fmt: str) -> tuple[Table, list[str]]:
    how = []
    for _ in range(draw(st.integers(1, 3))):
        ops = ["cell", "cell", "cell", "ragged", "extra", "drop-column", "rename", "header-only", "swap",
               "duplicate-row"]
        if fmt.startswith("jsonl"):
            ops += ["json-kind", "json-kind", "json-line"]
        if fmt == "csv":
            ops += ["duplicate-header", "empty-header"]
        op = draw(st.sampled_from(ops))
        if not t.rows and op not in ("drop-column", "rename", "duplicate-header", "empty-header"):
            continue
        r = draw(st.integers(0, max(len(t.rows) - 1, 0)))
        c = draw(st.integers(0, max(len(t.header) - 1, 0)))
        if op == "cell":
            v = draw(st.one_of(st.sampled_from(ODD_CELLS), st.text(max_size=12),
                               st.integers(-2**70, 2**70), st.floats()))
            t = _set(t, r, c, v)
        elif op == "json-kind":
            t = _set(t, r, c, Raw(draw(st.sampled_from(JSON_KINDS))))
        elif op == "json-line":
            rows = list(t.rows)
            rows.insert(r, (Line(draw(st.sampled_from(JSON_LINES))),) + (MISSING,) * (len(t.header) - 1))
            t = Table(t.header, tuple(rows))
        elif op == "ragged":
            t = _set(t, r, c, MISSING)
        elif op == "extra":
            rows = list(t.rows)
            rows[r] = rows[r] + ("extra",)
            t = Table(t.header, tuple(rows))
        elif op == "drop-column" and t.header:
            t = Table(t.header[:c] + t.header[c + 1:], tuple(x[:c] + x[c + 1:] for x in t.rows))
        elif op == "rename" and t.header:
            t = Table(t.header[:c] + (draw(st.sampled_from(["", " ts", "TS", "x" * 300, "é", "a,b"])),)
                      + t.header[c + 1:], t.rows)
        elif op == "duplicate-header" and len(t.header) > 1:
            t = Table(t.header[:c] + (t.header[(c + 1) % len(t.header)],) + t.header[c + 1:], t.rows)
        elif op == "empty-header":
            t = Table((), t.rows)
        elif op == "header-only":
            t = Table(t.header, ())
        elif op == "swap":
            rows = list(t.rows)
            j = draw(st.integers(0, len(rows) - 1))
            rows[r], rows[j] = rows[j], rows[r]
            t = Table(t.header, tuple(rows))
        elif op == "duplicate-row":
            t = Table(t.header, t.rows[:r + 1] + t.rows[r:])
        how.append(op)
    return t, how


@st.composite
def mutated_bytes(draw, data: bytes, fmt: str) -> tuple[bytes, list[str]]:
    op = draw(st.sampled_from(["none", "none", "truncate", "odd-bytes", "crlf", "bom", "empty"]
                              + (["gzip-flip", "gzip-truncate"] if fmt == "jsonl.gz" else [])))
    if op == "truncate":
        return data[:draw(st.integers(0, max(len(data) - 1, 0)))], [op]
    if op == "odd-bytes":
        k = draw(st.integers(0, len(data)))
        return data[:k] + draw(st.sampled_from(ODD_BYTES)) + data[k:], [op]
    if op == "crlf" and fmt in ("csv", "jsonl"):
        return data.replace(b"\n", b"\r\n"), [op]
    if op == "bom" and fmt in ("csv", "jsonl"):
        return b"\xef\xbb\xbf" + data, [op]
    if op == "empty":
        return b"", [op]
    if op == "gzip-flip" and len(data) > 20:
        k = draw(st.integers(10, len(data) - 9))
        return data[:k] + bytes([data[k] ^ 0xFF]) + data[k + 1:], [op]
    if op == "gzip-truncate":
        return data[:draw(st.integers(0, len(data) - 1))], [op]
    return data, []


@st.composite
def event_cases(draw, lang: str) -> Case:
    """A seed's events in one of the formats, with 1-3 table edits and maybe a byte-level edit."""
    seed = draw(st.sampled_from(seeds_for(lang)))
    fmt = draw(st.sampled_from(FORMATS))
    table, how = draw(mutated_table(seed.events, fmt))
    data = serialize(table, fmt)
    data, how2 = draw(mutated_bytes(data, fmt))
    return Case(lang, seed.query.encode(), f"events.{fmt}", data, seed.args,
                f"{seed.name}: {fmt} {' '.join(how + how2)}", seed)


# ---------------------------------------------------------------- options

OPTION_VALUES = {
    "--ts-unit": ["fortnight", "", "0", "ms", "d", "s", "-1", "µs"],
    "--type-col": ["", "nope", "ts", "x" * 300],
    "--id-col": ["", "nope", "none", "ts"],
    "--default-type": ["", "A", "\x00"],
    "--engine": ["nope", "reference", "brute", "reference-eager", "reference-lazy", "reference-tree",
                 "reference-ssc", "replay"],
    "--format": ["csv", "table", "jsonl", "parquet", "xml"],
    "--chunk-size": ["0", "-1", "abc", "1", "3", str(10**30)],
    "--order": ["", "A,A", "nope", ",,"],
    "--selection": ["non-overlap", "some"],
    "--negation": ["first-chance", "post-processing", "x"],
    "--sigma": ["abc", "-1", "nan", "inf", "1e309", "0", "1/0", "", "3"],
    "--flavor": ["ignorable", "seq", "cleanse", "basic", "x"],
    "--ts-col": ["", "nope", "price", "ts"],
    "--limit": ["0", "-1", "abc", "1", str(10**30)],
    "--max-state": ["0", "-1", "abc", "1", "10", str(10**30)],
}
FLAGS = ["--sort", "--counters", "--early", "--net", "--no-merge"]
# Values wrong whatever the query and the events: a usage error, exit 2 (the option given alone).
INVALID = {"--ts-unit": {"fortnight", "", "0", "-1"}, "--sigma": {"abc", "-1", "nan", "1/0", ""},
           "--chunk-size": {"-1", "abc"}, "--limit": {"-1", "abc"}, "--max-state": {"-1", "abc"},
           "--format": {"xml", "parquet"}, "--engine": {"nope"}, "--selection": {"some"}, "--negation": {"x"},
           "--flavor": {"x"}}


def usage_error(args: tuple[str, ...]) -> bool:
    """Whether the options hold a value that is wrong by itself (INVALID; parquet without --output)."""
    return "--output" not in args and any(v in INVALID.get(k, ()) for k, v in zip(args, args[1:]))


@st.composite
def option_cases(draw, lang: str) -> Case:
    """A matching seed with 1-3 options of odd or valid values (options the CLI does not have are skipped)."""
    from tests.fuzz.driver import run_options

    seed = draw(st.sampled_from(seeds_for(lang)))
    known = run_options()
    args = list(seed.args)
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 4)) == 0:
            args.append(draw(st.sampled_from(FLAGS)))
            continue
        opt = draw(st.sampled_from(sorted(o for o in OPTION_VALUES if o in known and o not in args)))
        wrong = sorted(INVALID.get(opt, ()))
        pool = wrong if wrong and draw(st.booleans()) else OPTION_VALUES[opt]
        args += [opt, draw(st.sampled_from(pool))]
    return Case(lang, seed.query.encode(), "events.csv", serialize(seed.events, "csv"), tuple(args),
                f"{seed.name}: options {' '.join(args[len(seed.args):])}", seed)


# ---------------------------------------------------------------- one-cell changes of valid inputs

def read_columns(seed: Seed) -> list[int]:
    """Columns the query names whose cells are all numbers (ts, id, type and AFA lifetimes aside)."""
    found = []
    for c, name in enumerate(seed.events.header):
        if name.lower() in ("ts", "id", "type", "le", "re", "kind", "seq") or not re.search(rf"\b{re.escape(name)}\b",
                                                                                           seed.query):
            continue
        values = [r[c] for r in seed.events.rows if r[c] is not None]
        if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            found.append(c)
    return found


def ordered_columns(seed: Seed) -> list[int]:
    """The read columns the query orders or computes with (<, >, +, avg ...): text there cannot be a value,
    unlike a partition or equality attribute, where any text is a key."""
    found = []
    for c in read_columns(seed):
        n = re.escape(seed.events.header[c])
        ref = rf"(?:\w+(?:\[[^\]]*\])?\.)?{n}\b"
        if re.search(rf"\b{ref}\s*(?:[<>+*/%]|-(?!-))|(?:[<>+*/%]|[^-]-)=?\s*{ref}|"
                     rf"(?:avg|sum|min|max)\s*\([^)]*\b{n}\b", seed.query, re.IGNORECASE):
            found.append(c)
    return found


def changeable_seeds(lang: str) -> list[Seed]:
    return [s for s in seeds_for(lang, matching=True) if ordered_columns(s)]


@st.composite
def changed_cases(draw, lang: str) -> Case:
    """A valid matching input with one cell the query reads made wrong: garbage text where the query orders
    or computes, a JSON value of the wrong kind, a short CSV row, the file cut inside its last row, or the
    column gone. It must exit 3 (or leave the answer as it was)."""
    seed = draw(st.sampled_from(changeable_seeds(lang)))
    fmt = draw(st.sampled_from(FORMATS))
    kinds = {"csv": ["garbage", "garbage", "short-row", "cut-last-row", "drop-column"],
             "jsonl": ["garbage", "json-kind", "json-kind", "cut-last-row", "drop-column"],
             "jsonl.gz": ["garbage", "json-kind", "json-kind", "drop-column"],
             "parquet": ["drop-column"]}[fmt]     # a Parquet column's type is the file's; a null is a value
    kind = draw(st.sampled_from(kinds))
    c = draw(st.sampled_from(ordered_columns(seed) if kind == "garbage" else read_columns(seed)))
    r = draw(st.integers(0, len(seed.events.rows) - 1))
    name = seed.events.header[c]
    t = seed.events
    if kind == "garbage":
        v = draw(st.sampled_from(GARBAGE))
        t, what = _set(t, r, c, v), f"row {r + 1} {name}={v!r}"
    elif kind == "json-kind":
        v = draw(st.sampled_from(JSON_GARBAGE))
        t, what = _set(t, r, c, Raw(v)), f"row {r + 1} {name}={v}"
    elif kind == "short-row":
        t, what = _set(t, r, c, MISSING), f"row {r + 1} without {name}"
    elif kind == "drop-column":
        t, what = Table(t.header[:c] + t.header[c + 1:], tuple(x[:c] + x[c + 1:] for x in t.rows)), f"no {name}"
    else:
        what = "cut inside the last row"
    data = serialize(t, fmt)
    if kind == "cut-last-row":
        body = data.rstrip(b"\n")
        start = body.rfind(b"\n") + 1
        sep = body.rfind(b"," if fmt == "csv" else b"}")
        if sep <= start:
            sep = len(body) - 1
        data = body[:draw(st.integers(start + 1, sep))] if sep > start else body[:start]
    return Case(lang, seed.query.encode(), f"events.{fmt}", data, seed.args,
                f"{seed.name}: {fmt} {kind} {what}", seed)


__all__ = ["Case", "LANGS", "query_cases", "event_cases", "option_cases", "changed_cases", "changeable_seeds",
           "read_columns"]
