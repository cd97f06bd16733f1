"""Write the curated reproducers under tests/fuzz/reproducers/: one folder per failure class the fuzzing
found on ee32f73 (before the fixes of issue 14), each the smallest input showing it, with case.json saying
what was wrong and what a fixed cepkit must do. `python -m tests.fuzz.reproducers_make` rewrites them;
`python -m tests.fuzz.run --replay tests/fuzz/reproducers` reruns them."""
import gzip
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/fuzz/reproducers"
ex = ROOT / "examples"
Q3 = (ex / "query3.sase").read_text()
FIG3 = (ex / "fig3_stream.csv").read_text()
VSHAPE = (ex / "sql/v_shape.sql").read_text()
TICKER = (ex / "sql/ticker.csv").read_text()
TRADES = "ts,p,v\n1,30,100\n2,60,100\n3,30,5000\n4,70,200\n"
BIG = "FILTER WHERE p > 50 OR v > 1000\n"
Q1 = (ex / "afa/q1.afa.yaml").read_text()
Q1EV = (ex / "afa/q1.events.csv").read_text()
SUF = {"sase": ".sase", "sase1": ".query", "sql": ".sql", "tpstream": ".tps", "afa": ".afa.yaml", "window": ".win"}
ANY = [0, 2, 3, 4]
cases = []


def add(name, lang, query, events_name, events, defect, expect, args=(), unchanged=None, timeout_s=None):
    cases.append((name, lang, query, events_name, events, defect, expect, list(args), unchanged, timeout_s))


def csv_rows(text, f):
    lines = text.splitlines()
    return "\n".join([lines[0]] + [f(i, l) for i, l in enumerate(lines[1:], 1)]) + "\n"


# --- tracebacks
add("query-not-utf8", "sase", Q3.encode().replace(b"gradually", b"gradu\xe4lly"), "events.csv", FIG3,
    "traceback UnicodeDecodeError: a query file that is not UTF-8", {"exit": [2]})
add("afa-not-utf8", "afa", Q1.encode().replace(b"Q1 (spec", b"Q1 (sp\xe9c"), "events.csv", Q1EV,
    "traceback UnicodeDecodeError (front/afa/afafile.py load_afa): an AFA file that is not UTF-8", {"exit": [2]})
add("nesting-sql-pattern", "sql", f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN ({'(' * 600}A B{')' * 600}) "
    "DEFINE A AS price > 1, B AS price < 9)\n", "events.csv", TICKER,
    "traceback RecursionError: SQL pattern parentheses 600 deep (grouping parentheses are no nesting level: runs, or exit 2)", {"exit": [0, 2]})
add("nesting-sql-define", "sql", f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS "
    f"{'(' * 600}price > 1{')' * 600})\n", "events.csv", TICKER,
    "traceback RecursionError: DEFINE parentheses 600 deep (grouping parentheses are no nesting level: runs, or exit 2)", {"exit": [0, 2]})
add("nesting-sase-not", "sase", f"PATTERN SEQ(Stock a, Stock b) WHERE {'NOT ' * 600}a.price > 1 WITHIN 10\n",
    "events.csv", FIG3, "traceback RecursionError: SASE NOT 600 deep", {"exit": [2]})
add("nesting-sase-minus", "sase", f"PATTERN SEQ(Stock a, Stock b) WHERE a.price > {'- ' * 600}1 WITHIN 10\n",
    "events.csv", FIG3, "traceback RecursionError: SASE unary minus 600 deep", {"exit": [2]})
add("nesting-window", "window", f"FILTER WHERE {'(' * 600}v > 3{')' * 600}\n", "events.csv", TRADES,
    "traceback RecursionError: window WHERE parentheses 600 deep (grouping parentheses are no nesting level: runs, or exit 2)", {"exit": [0, 2]})
add("nesting-afa-yaml", "afa", Q1.replace("register: {r1: 0, r2: 0}", "register: {r1: %s0%s, r2: 0}"
                                          % ("[" * 3000, "]" * 3000)), "events.csv", Q1EV,
    "traceback RecursionError: AFA YAML nested 3000 deep", {"exit": [2]})
add("jsonl-gz-cut", "sase", Q3, "events.jsonl.gz",
    gzip.compress(b"".join(json.dumps(dict(zip(["id", "ts", "type", "symbol", "price", "volume"], l.split(","))))
                           .encode() + b"\n" for l in FIG3.splitlines()[1:]), mtime=0)[:60],
    "traceback EOFError: a .jsonl.gz cut short", {"exit": [3]})
add("jsonl-gz-corrupt", "window", BIG, "events.jsonl.gz",
    (lambda d: d[:10] + bytes([d[10] ^ 0xFF]) + d[11:])(gzip.compress(
        b'{"ts": 1, "p": 30, "v": 100}\n{"ts": 2, "p": 60, "v": 100}\n' * 20, mtime=0)),
    "traceback zlib/gzip error: a corrupt .jsonl.gz", {"exit": [3]})
add("jsonl-line-array", "window", BIG, "events.jsonl", '{"ts": 1, "p": 30, "v": 100}\n[1, 2]\n',
    "traceback AttributeError: a JSON-lines line that is an array", {"exit": [3]})
add("jsonl-array-in-number", "sql", VSHAPE, "events.jsonl",
    "".join(json.dumps({"symbol": s, "ts": int(t), "price": int(p)}) + "\n"
            for s, t, p in (l.split(",") for l in TICKER.splitlines()[1:])).replace('"price": 8}', '"price": [1]}', 1),
    "traceback TypeError (compare_values): a JSON array in a numeric attribute", {"exit": [3]})
add("jsonl-array-in-aggregate", "sql", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES SUM(A.price) AS s "
    "PATTERN (A+) DEFINE A AS SUM(A.price) < 100)\n", "events.jsonl",
    '{"ts": 1, "price": 10}\n{"ts": 2, "price": [1]}\n{"ts": 3, "price": 5}\n',
    "traceback TypeError (reference/sql/exprs.py aggregate): a JSON array in an aggregated attribute", {"exit": [3]})
add("jsonl-object-in-partition", "tpstream", "FROM s PARTITION BY car DEFINE A AS x > 0, B AS y > 0 "
    "PATTERN A before B WITHIN 100\n", "events.jsonl",
    "".join(json.dumps({"ts": t, "car": c, "x": x, "y": y}) + "\n" for t, c, x, y in
            [(1, 1, 1, 0), (2, 1, 0, 0), (3, 1, 0, 1), (4, 2, 0, 0)]).replace('"car": 2', '"car": {"v": 1}'),
    "traceback TypeError (reference/tpstream/bind.py partitions): a JSON object in a partition attribute",
    {"exit": [3]})
add("afa-ts-unit-fortnight", "afa", Q1, "events.csv", Q1EV,
    "exit 0 for --ts-unit fortnight on an AFA query (a usage error: exit 2)", {"exit": [2]}, ["--ts-unit", "fortnight"])
add("inf-averaged", "sase", Q3, "events.csv", FIG3.replace("Goog,120,999", "Goog,inf,999"),
    "traceback TypeError (Fraction): inf in an averaged attribute", {"exit": ANY})
add("optimized-huge-window", "sase", "PATTERN SEQ(Stock a, Stock b) WHERE b.price > a.price WITHIN 1000000 days\n",
    "events.csv", FIG3, "traceback OverflowError: the optimized engine, a window of 2^63 ticks or more",
    {"exit": [0, 2]}, ["--engine", "optimized"], timeout_s=300)
add("sigma-division", "afa", Q1, "events.csv", Q1EV, "traceback ZeroDivisionError: --sigma 1/0", {"exit": [2]},
    ["--flavor", "cleanse", "--sigma", "1/0"])
# --- exit codes and messages
add("sigma-abc", "afa", Q1, "events.csv", Q1EV, "exit 1 for --sigma abc (a usage error: exit 2)", {"exit": [2]},
    ["--flavor", "cleanse", "--sigma", "abc"])
add("ts-unit-fortnight", "sase", Q3, "events.csv", FIG3, "exit 3 for --ts-unit fortnight (a usage error: exit 2)",
    {"exit": [2]}, ["--ts-unit", "fortnight"])
add("parquet-no-output", "sql", VSHAPE, "events.csv", TICKER,
    "exit 1 for --format parquet without --output (a usage error: exit 2; not in the issue's list)", {"exit": [2]},
    ["--format", "parquet"])
add("brute-too-many", "sase1", "PATTERN SEQ(stock a, stock b) WHERE b.price > a.price WITHIN 3\n", "events.csv",
    (lambda t: t[:t.rindex("\n", 0, 20000) + 1])((ex / "stocks.csv").read_text()),
    "exit 1 when the brute engine is given more than 200 events (a usage or limit error: exit 2 or 4; not in the "
    "issue's list)", {"exit": [2, 4]}, ["--engine", "brute"])
add("afa-yaml-position", "afa", Q1.replace("final: [q3]", "final: [q3]\x1d"), "events.csv", Q1EV,
    "exit 2 naming a character position, not line and column (AFA YAML)", {"exit": [2]})
add("header-only-within", "sase", Q3, "events.csv", FIG3.splitlines()[0] + "\n",
    "a header-only CSV with a duration WITHIN exits 2 blaming WITHIN (should be 0 matches)",
    {"exit": [0], "stdout_empty": True})
# --- silently changed answers
add("csv-1e309", "sase", Q3, "events.csv", FIG3.replace("Goog,100,1010", "Goog,100,1e309"),
    "1e309 in a numeric CSV cell silently becomes null (exit 0, 0 matches): must be exit 3, or read exactly "
    "(semantics RD: 1e309 is the integer 10^309)",
    {"exit": [3], "or_unchanged": True}, unchanged=FIG3.replace("Goog,100,1010", "Goog,100,1" + "0" * 309))
add("csv-1_000", "sase", Q3, "events.csv", FIG3.replace("Goog,100,1010", "Goog,100,1_010"),
    "1_000 in a numeric CSV cell silently becomes null: must be exit 3, or read as 1000",
    {"exit": [3], "or_unchanged": True}, unchanged=FIG3)
add("csv-int-beyond-64-bits", "window", BIG, "events.csv",
    TRADES.replace("3,30,5000", "3,30,99999999999999999999999999999999"),
    "the window engine reads a column with an integer beyond 64 bits as text (v > 1000 compares text; must be "
    "exact or refused)",
    {"exit": [3], "or_stdout_contains": '"v": 99999999999999999999999999999999}'})
add("sase-int-beyond-64-bits", "sase", "PATTERN SEQ(S a, S b) WHERE b.v > a.v WITHIN 10\nRETURN a.v AS av, b.v AS bv\n",
    "events.csv", "id,ts,type,v\n1,1,S,1\n2,2,S,99999999999999999999999999999999\n",
    "SASE reads an integer beyond 64 bits through float64 (bv 100000000000000023380560713875456)",
    {"exit": [3], "or_stdout_contains": '"bv": 99999999999999999999999999999999}'})
add("sql-int-beyond-64-bits", "sql", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.v AS av, B.v AS bv "
    "PATTERN (A B) DEFINE B AS B.v > A.v)\n", "events.csv", "ts,v\n1,1\n2,99999999999999999999999999999999\n",
    "MATCH_RECOGNIZE reads a column with an integer beyond 64 bits as text (compares and prints strings)",
    {"exit": [3], "or_stdout_contains": '"bv": 99999999999999999999999999999999}'})
add("csv-short-row", "sase", Q3, "events.csv", FIG3.replace("e4,2008-06-10T09:04:00,Stock,Goog,121,999",
                                                            "e4,2008-06-10T09:04:00,Stock,Goog,121"),
    "a short CSV row is padded with null (exit 0, other matches)", {"exit": [3]})
add("csv-cut-mid-row", "sase", Q3, "events.csv", FIG3[:FIG3.rindex(",")],
    "a CSV file cut inside its last row: exit 0 with fewer matches", {"exit": [3]})
add("sql-text-in-number", "sql", VSHAPE, "events.csv", TICKER.replace("ACME,3,6", "ACME,3,abc"),
    "MATCH_RECOGNIZE compares text with numbers when a numeric column holds text (exit 0)", {"exit": [3]})
add("window-text-in-number", "window", BIG, "events.csv", TRADES.replace("1,30,100", "1,abc,100"),
    "the window engine compares text with numbers when a numeric column holds text (exit 0)", {"exit": [3]})
add("afa-missing-column", "afa", Q1, "events.csv", csv_rows(Q1EV, lambda i, l: l).replace(",change", "")
    .replace("\n", "\n").split("\n", 1)[0] + "\n" + "\n".join(",".join(l.split(",")[:3])
                                                              for l in Q1EV.splitlines()[1:]) + "\n",
    "AFA accepts a missing attribute column (e.change) and returns no result", {"exit": [2, 3]})
add("afa-text-in-number", "afa", Q1, "events.csv", Q1EV.replace("insert,1,9900,-100", "insert,1,9900,abc"),
    "AFA's own CSV reader takes text in a numeric column (exit 0, other output)", {"exit": [3]})
add("afa-jsonl-gz", "afa", Q1, "events.jsonl.gz", gzip.compress("".join(
    json.dumps({"kind": k, "le": int(le), "price": int(p) if p else None, "change": int(c) if c else None}) + "\n"
    for k, le, p, c in (l.split(",") for l in Q1EV.splitlines()[1:])).encode(), mtime=0),
    "AFA cannot read a valid .jsonl.gz (exit 3 'cannot tell the format'): one reader for all languages",
    {"exit": [0]})
add("jsonl-true-in-number", "sase", Q3, "events.jsonl",
    "".join(json.dumps(dict(zip(["id", "ts", "type", "symbol", "price", "volume"],
                                l.split(",")[:4] + [int(x) for x in l.split(",")[4:]]))) + "\n"
            for l in FIG3.splitlines()[1:]).replace('"volume": 1010', '"volume": true'),
    "a JSON true in a numeric attribute becomes null (exit 0, other matches)", {"exit": [3]})
add("jsonl-nan-output", "window", BIG, "events.jsonl",
    '{"ts": 1, "p": 30, "v": 100}\n{"ts": 2, "p": Infinity, "v": 5}\n',
    "JSON-lines output writes bare Infinity / NaN, which is not JSON", {"exit": [0, 3], "strict_json": True})
# --- resources
add("kleene-any-match", "sase", "PATTERN SEQ(A+ a[ ], B b)\nWHERE skip_till_any_match(a[ ], b) { a[1].v > 0 }\n",
    "events.csv", "id,ts,type,v\n" + "".join(f"{i},{i},A,{i}\n" for i in range(1, 19)) + "19,19,B,0\n",
    "Kleene under skip_till_any_match: 18 events, 262K matches, past the 10 s guard (exit 4 with --max-state, "
    "or exit 0 in time)", {"exit": [0, 4]}, ["--max-state", "100000"])
add("sase1-no-within", "sase1", "PATTERN SEQ(stock+ a[], stock b) WHERE skip-till-any-match AND [symbol] AND "
    "a[i].price > a[i-1].price AND b.volume < 150\n", "events.csv", (ex / "stocks.csv").read_text(),
    "a SASE 1.0 query with no WITHIN over examples/stocks.csv: no output and growing memory until the guard "
    "(exit 4 with --max-state; the default 1,000,000 is met after about 35 s, tests/cepkit/test_limits_cli.py "
    "checks the default on a smaller explosion)", {"exit": [0, 4]}, ["--max-state", "100000"])

# 01-40 are written here; later folders (41-) are inputs `make fuzz --save` found after the fixes, kept as saved
for i, (name, lang, query, ev_name, events, defect, expect, args, unchanged, timeout_s) in enumerate(cases, 1):
    d = OUT / f"{i:02d}-{name}"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    (d / f"query{SUF[lang]}").write_bytes(query if isinstance(query, bytes) else query.encode())
    (d / ev_name).write_bytes(events if isinstance(events, bytes) else events.encode())
    c = {"lang": lang, "query": f"query{SUF[lang]}", "events": ev_name, "args": args, "defect": defect,
         "expect": expect}
    if timeout_s is not None:   # the optimized engine compiles (Numba) once it accepts the query
        c["timeout_s"] = timeout_s
    if unchanged is not None:
        c["unchanged"] = "unchanged" + ev_name[len("events"):]
        (d / c["unchanged"]).write_text(unchanged)
    (d / "case.json").write_text(json.dumps(c, indent=2, ensure_ascii=False) + "\n")
print(len(cases), "reproducers")
