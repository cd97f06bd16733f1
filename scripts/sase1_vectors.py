"""Regenerate conformance/cases/sase1/sase1_jar.yaml from the SASE 1.0 jar: each vector is a query in SASE 1.0's
syntax, the configuration of SASE 1.0's stock stream generator, and the matches the jar prints for it (repeat
1 of its command-line UI), checked against cepkit's reference and optimized engines in the SASE 1.0 dialect.

    python scripts/sase1_vectors.py --jar ../shared/peers/sase1/sase.jar [--jeval .../jeval.jar] [--java java]
        [--check-only]

Without Java or the jar it prints "skipped: <why>" and exits 0 (the jar is never copied into the repository;
pass its path). `--check-only` writes nothing: it prints the jar's, the reference's and the optimized engine's
match counts for every vector, and for the queries the dialect refuses (a second partition attribute after a
Kleene closure first under skip-till-any-match, docs/semantics.md S1.6) the jar's count and cepkit's message.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

# the jar's runs and its matches as bindings: the kit's command driver of the jar (python -m
# cepkit.conformance.adapters.sase1_jar) runs it with the same functions
from cepkit.conformance.adapters.sase1_jar import bindings, classpath, jar_matches, jeval_beside, missing, variables

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "conformance" / "cases" / "sase1" / "sase1_jar.yaml"
JAR_COMMIT = "05d5bddf"
STRATEGIES = {"s2": "partition-contiguity", "s3": "skip-till-next-match", "s4": "skip-till-any-match"}

# SASE 1.0's generator: a price walk per symbol (increaseProbability <= 100, every event of type stock) or
# uniform prices (above 100, types stock1, stock2, ...); reference/sase1/stock_stream.py rebuilds both.
WALK = {"maxPrice": 1000, "numOfSymbol": 2, "maxVolume": 1000, "increaseProbability": 70}
UNIFORM = {"maxPrice": 20, "numOfSymbol": 3, "maxVolume": 1000, "increaseProbability": 101}

# name: (query with {strategy}, stream base, [(seed, size), ...]); its variables: sase1_jar.variables(query)
QUERIES = {
    "kleene-rising": ("PATTERN SEQ(stock+ a[], stock b)\nWHERE {strategy}\nAND [symbol]\nAND a[1].price % 500 = 0\n"
                      "AND a[i].price > a[i-1].price\nAND b.volume < 150\nWITHIN 20\n",
                      WALK, ((10, 3000), (7, 5000))),
    "kleene-falling": ("PATTERN SEQ(stock+ a[], stock b)\nWHERE {strategy}\nAND [symbol]\nAND a[1].price % 100 = 0\n"
                       "AND a[i].price < a[i-1].price\nAND b.volume < 100\nWITHIN 8\n",
                       WALK, ((3, 2000), (11, 4000))),
    "seq3-price": ("PATTERN SEQ(stock1 a, stock2 b, stock3 c)\nWHERE {strategy}\nAND [price]\nWITHIN 30\n",
                   UNIFORM, ((11, 300), (5, 600), (23, 400))),
    "seq2-symbol": ("PATTERN SEQ(stock a, stock b)\nWHERE {strategy}\nAND [symbol]\nAND a.price % 50 = 0\n"
                    "AND b.price > a.price\nAND b.volume < 100\nWITHIN 20\n",
                    WALK, ((10, 2000), (4, 4000))),
    "seq2-whole-stream": ("PATTERN SEQ(stock1 a, stock2 b)\nWHERE {strategy}\nAND b.price = a.price\n"
                          "AND a.volume < 200\nWITHIN 10\n",
                          UNIFORM, ((11, 500), (2, 800))),
    # two or three partition attributes (docs/semantics.md S1.6): the first partitions the runs, a later one
    # is SASE 1.0's predicate `attr = $1.attr` on every later component (NFA.addMorePartitionAttribute)
    "seq3-price-volume": ("PATTERN SEQ(stock1 a, stock2 b, stock3 c)\nWHERE {strategy}\nAND [price]\nAND [volume]\n"
                          "WITHIN 10000\n", {**UNIFORM, "maxVolume": 20}, ((11, 3000), (5, 1000))),
    "kleene-mid-volume": ("PATTERN SEQ(stock a, stock+ b[], stock c)\nWHERE {strategy}\nAND [symbol]\nAND [volume]\n"
                          "AND a.price % 20 = 0\nAND b[i].price > b[i-1].price\nAND c.price % 3 = 0\nWITHIN 8\n",
                          {**WALK, "maxVolume": 3}, ((10, 3000), (7, 5000))),
    "kleene-first-volume": ("PATTERN SEQ(stock+ a[], stock b, stock c)\nWHERE {strategy}\nAND [symbol]\nAND [volume]\n"
                            "AND a[1].price % 5 = 0\nAND a[i].price > a[i-1].price\nAND b.price % 3 = 0\nWITHIN 12\n",
                            {**WALK, "maxVolume": 4}, ((11, 1500), (3, 2500))),
    "kleene-pair-volume": ("PATTERN SEQ(stock+ a[], stock b)\nWHERE {strategy}\nAND [symbol]\nAND [volume]\n"
                           "AND a[1].price % 500 = 0\nAND a[i].price > a[i-1].price\nAND b.volume < 150\nWITHIN 20\n",
                           WALK, ((10, 3000),)),
    "seq3-three-keys": ("PATTERN SEQ(stock a, stock b, stock c)\nWHERE {strategy}\nAND [symbol]\nAND [volume]\n"
                        "AND [price]\nWITHIN 20\n", {**WALK, "maxVolume": 4}, ((11, 1500), (3, 2500))),
}
# the jar's own refusals, left out: partition-contiguity without a partition attribute ends the jar with a
# NullPointerException (StockEvent.getAttributeByName(null), Engine.evaluateRunsForPartitionContiguity)
JAR_FAILS = {("seq2-whole-stream", "partition-contiguity")}
# queries the jar runs and the dialect refuses (docs/semantics.md S1.6, S1.7): reported on their first stream,
# not written. Here the jar compares [volume] with the last event taken into a by any run split from the same
# first run (Run.clone is shallow: they share one value vector)
REFUSED = {("kleene-first-volume", "skip-till-any-match")}


def cepkit_keys(query: str, stream: dict, engine: str) -> Counter:
    """The match keys cepkit's engine gives in the SASE 1.0 dialect."""
    import cepkit   # lazy: the engines load only where vectors are checked
    from cepkit.core.readers import from_pandas
    from cepkit.reference.sase1.stock_stream import StockStreamConfig, to_frame

    batch = from_pandas(to_frame(StockStreamConfig.from_mapping(stream)))
    return Counter(m.key() for m in cepkit.compile(query, engine=engine, dialect="sase1", max_state=None).run(batch))


def generate(java: str, classpath: str) -> list[dict]:
    from cepkit.conformance.loader import match_key

    vectors = []
    for name, (template, base, runs) in QUERIES.items():
        names = variables(template)
        for short, strategy in STRATEGIES.items():
            if (name, strategy) in JAR_FAILS or (name, strategy) in REFUSED:
                continue
            query = template.format(strategy=strategy)
            for seed, size in runs:
                stream = {"streamSize": size, **base, "randomSeed": seed}
                found = [bindings(names, ids) for ids in jar_matches(java, classpath, query, stream)]
                want = Counter(match_key(m) for m in found)
                verdict = {engine: cepkit_keys(query, stream, engine) == want for engine in ("reference", "optimized")}
                vectors.append({"id": f"S1-JAR-{name}-{short}-seed{seed}-n{size}", "query": query, "stream": stream,
                                "strategy": strategy, "expected": found, "verdict": verdict})
                print(f"{vectors[-1]['id']}: jar {len(found)} matches; "
                      + "; ".join(f"{e} {'agrees' if ok else 'DIFFERS'}" for e, ok in verdict.items()), flush=True)
    return vectors


def refused(java: str, classpath: str) -> None:
    """The queries the jar runs and the dialect refuses: the jar's count, cepkit's message."""
    import cepkit
    from cepkit.core.errors import QueryError

    for name, strategy in sorted(REFUSED):
        template, base, ((seed, size), *_) = QUERIES[name]
        query = template.format(strategy=strategy)
        stream = {"streamSize": size, **base, "randomSeed": seed}
        jar = len(jar_matches(java, classpath, query, stream))
        try:
            cepkit.compile(query, engine="reference", dialect="sase1")
            said = "runs it"
        except QueryError as exc:
            said = f"refuses it: {exc}"
        print(f"{name} {strategy} seed {seed} n {size}: the jar prints {jar} matches; the dialect {said}")


def yaml_text(vectors: list[dict]) -> str:
    head = ("# Generated by scripts/sase1_vectors.py from the SASE 1.0 jar (github.com/haopeng/sase "
            f"{JAR_COMMIT}, build/sase.jar,\n# ../shared/peers/sase1/): do not edit by hand; rerun the script. "
            "Each vector's expected matches are the jar's\n# first repeat (CommandLineUI QUERY STREAM 1) over the "
            "stream its generator makes from `stream`.\ncases:\n")
    out = [head]
    for v in vectors:
        n, title = len(v["expected"]), f"{len(v['expected'])} matches of the jar under {v['strategy']}"
        out.append(f"  - id: {v['id']}\n"
                   f"    title: {json.dumps(title)}\n"
                   f"    source: {json.dumps('SASE 1.0 jar, CommandLineUI repeat 1 over its generated stock stream')}\n"
                   f"    origin: {json.dumps(f'sase1 sase.jar {JAR_COMMIT} (CommandLineUI, repeat 1)')}\n"
                   f"    dialect: sase1\n    query: |\n"
                   + "".join(f"      {line}\n" for line in v["query"].rstrip("\n").split("\n"))
                   + f"    stream: {json.dumps(v['stream'])}\n"
                   + ("    expected: []\n" if not n else "    expected:\n"
                      + "".join(f"      - {json.dumps(m)}\n" for m in v["expected"])))
    return "".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jar", default=str(ROOT.parent / "shared" / "peers" / "sase1" / "sase.jar"))
    parser.add_argument("--jeval", help="jeval.jar (default: beside the jar)")
    parser.add_argument("--java", default="java")
    parser.add_argument("--check-only", action="store_true", help="write nothing; print the jar's and cepkit's counts")
    args = parser.parse_args(argv)
    jeval = args.jeval or jeval_beside(args.jar)
    why = missing(args.java, args.jar, jeval)
    if why:
        print(f"skipped: {why}")
        return 0
    path = classpath(args.jar, jeval)
    vectors = generate(args.java, path)
    refused(args.java, path)
    differ = [v["id"] for v in vectors if not all(v["verdict"].values())]
    print(f"{len(vectors)} vectors; {len(vectors) - len(differ)} agree on reference and optimized; differ: {differ}")
    if not args.check_only:
        OUT.write_text(yaml_text(vectors), encoding="utf-8")
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
