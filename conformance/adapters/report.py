"""docs/peers.md from a peer's committed results (results.py) and its classified failures
(docs/data/peers/<peer>_failures.yaml): the counts per origin and per construct, every failed or errored vector
with its class (peer bug, cepkit choice, vector fault, kit problem), the peer bugs with a minimal query each, the refusals by construct."""
from __future__ import annotations

from collections import Counter

from pathlib import Path

from cepkit.conformance.adapters.results import counts, load

# peer: the peer's bug; choice: the vector pins a documented cepkit choice (origin cepkit) where the peer's answer
# is not wrong by a published one; vector: the vector is wrong; kit: the kit is
CLASSES = ("peer", "choice", "vector", "kit")
COLUMNS = ("passed", "failed", "refused", "error")


def problems(vectors: dict[str, dict], classified: dict) -> list[str]:
    """What is wrong with a classification: a failed or errored vector without one, an entry for a vector that
    did not fail, an unknown class or bug, a `choice` whose vector is not of origin cepkit."""
    out = []
    entries, bugs = classified.get("vectors") or {}, classified.get("bugs") or {}
    for vid, v in vectors.items():
        if v["outcome"] in ("failed", "error") and vid not in entries:
            out.append(f"{vid}: {v['outcome']}, not classified")
    for vid, entry in entries.items():
        if vectors.get(vid, {}).get("outcome") not in ("failed", "error"):
            out.append(f"{vid}: classified, but {vectors.get(vid, {}).get('outcome', 'not in the results')}")
        if entry.get("class") not in CLASSES:
            out.append(f"{vid}: class {entry.get('class')!r} (one of {', '.join(CLASSES)})")
        if entry.get("class") == "peer" and entry.get("bug") not in bugs:
            out.append(f"{vid}: peer bug {entry.get('bug')!r} is not listed under bugs")
        if entry.get("class") != "peer" and not entry.get("why"):
            out.append(f"{vid}: a {entry.get('class')} entry says why")
        origin = vectors.get(vid, {}).get("origin", "")
        if entry.get("class") == "choice" and origin.split(" ")[0] != "cepkit":
            out.append(f"{vid}: a cepkit choice is a vector of origin cepkit (this one: {origin or 'none'})")
    return out


def _table(title: str, rows: dict[str, Counter]) -> list[str]:
    lines = [f"| {title} | " + " | ".join(COLUMNS) + " |", "|---|" + "---:|" * len(COLUMNS)]
    lines += [f"| {name} | " + " | ".join(str(c[k]) for k in COLUMNS) + " |" for name, c in rows.items()]
    total = Counter()
    for c in rows.values():
        total.update(c)
    if title == "origin":
        lines.append("| **all** | " + " | ".join(f"**{total[k]}**" for k in COLUMNS) + " |")
    return lines


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def jar_section(results: dict) -> str:
    """The SASE 1.0 jar's section (a `--command` peer on the sase1 vectors; none of its vectors fails, so it has no
    classification: a failure shows as a problem, `problems`)."""
    vectors = results["vectors"]
    refusals = Counter(v["refused"] for v in vectors.values() if v["outcome"] == "refused")
    lines = [
        f"## {results['peer']}",
        "",
        f"`{results['command']}`: {len(vectors)} sase1 vectors in {results['seconds']:.0f} s ({results['machine']}).",
        "",
        "The command driver (conformance/adapters/sase1_jar.py) writes the vector's query as the jar's query file.",
        "A vector with a stream generator configuration runs through the jar's command-line UI (one repeat) over",
        "the stream it generates from the configuration, written as its `.stream` file; a vector that lists its",
        "events runs through cepkit's own small Java driver (conformance/adapters/Sase1JarEvents.java, compiled",
        "with javac against the jar on first use), which builds the jar's StockEvents and input Stream from an",
        "events file and runs the jar's engine on them. Both print the matches as the command-line UI does; none",
        "is corrected. The driver refuses by name the vectors in the SASE+ dialect, queries the jar's line-based",
        "query-file parser would misread, and events its StockEvent cannot carry (attributes other than symbol,",
        "price and volume, values that are not ints). A vector whose answer differs from the jar's by a cepkit",
        "choice says so (`differs_from: {sase1: why}`, docs/conformance.md).",
        "",
        "### Per origin",
        "",
        *_table("origin", counts(vectors, "origin")),
        "",
        "### Refused, by the construct the driver named",
        "",
        "| construct | vectors |",
        "|---|---:|",
        *[f"| {_cell(name)} | {n} |" for name, n in sorted(refusals.items())],
    ]
    return "\n".join(lines) + "\n"


def render(results: dict, classified: dict) -> str:
    """The page's markdown."""
    vectors, entries, bugs = results["vectors"], classified["vectors"], classified["bugs"]
    by_class = Counter(e["class"] for e in entries.values())
    refusals = Counter(v["refused"] for v in vectors.values() if v["outcome"] == "refused")
    lines = [
        "# Peers: real engines on the conformance vectors",
        "",
        "<!-- generated by scripts/peer_report.py from docs/data/peers/; do not edit -->",
        "",
        "cepkit's conformance kit (docs/conformance.md) run against engines nobody here wrote, through maintained",
        "adapters in `conformance/adapters/`. The results are committed (docs/data/peers/*.json, rewritten by",
        "`python scripts/peer_report.py --run`, which needs the peer: `pip install 'cepkit[peers]'`, and `--run-jar`,",
        "which needs Java and the SASE 1.0 jar); `make docs`",
        "renders this page from them and from the hand-made classification of every failure",
        "(docs/data/peers/*_failures.yaml) without running the peer. tests/conformance_kit/test_peers.py reruns the",
        "peer and fails when any vector's outcome differs from the committed results.",
        "",
        f"## {results['peer']}",
        "",
        f"`{results['command']}`: {len(vectors)} sql vectors in {results['seconds']:.0f} s "
        f"({results['machine']}).",
        "",
        "The adapter (conformance/adapters/pandas_mr.py) hands the peer the query text as the vector gives it and a",
        "DataFrame of the vector's events, and writes the peer's columns under the peer's own names, pandas'",
        "missing values as null: nothing of the answer is corrected. It refuses by name what the peer does not",
        "read (cepkit's extensions, WITH, subqueries, VALUES without column names) and the vectors whose check",
        "reads bindings (`match bindings`: the peer returns columns, never which rows each variable matched).",
        "",
        "### Per origin",
        "",
        *_table("origin", counts(vectors, "origin")),
        "",
        f"Failures and errors by class: {by_class['peer']} vectors fail on one of the peer's {len(bugs)} bugs (below),",
        f"{by_class['choice']} pin a documented cepkit choice where the peer is not wrong by a published answer,",
        f"{by_class['vector']} on a vector's fault, {by_class['kit']} on a kit problem.",
        "",
        "### Per construct",
        "",
        *_table("construct", counts(vectors, "constructs")),
        "",
        "### Refused, by the construct the adapter named",
        "",
        "| construct | vectors |",
        "|---|---:|",
        *[f"| {_cell(name)} | {n} |" for name, n in sorted(refusals.items())],
        "",
        "### The peer's bugs",
        "",
        "Each with a minimal query; unless it says otherwise the query runs over `t` = `{id: 1, 2, 3; v: 10, 20, 30}`.",
        "",
    ]
    per_bug = Counter(e.get("bug") for e in entries.values() if e["class"] == "peer")
    for key, bug in bugs.items():
        lines += [f"**{key}**: {bug['title']} ({per_bug[key]} vectors).", "",
                  "```sql", bug["query"], "```", "",
                  f"- gives: {bug['gives']}", f"- expected: {bug['expected']}", ""]
    lines += ["### Every failure and error, classified", "",
              "| vector | origin | outcome | class | bug / why |", "|---|---|---|---|---|"]
    for vid, entry in sorted(entries.items()):
        v = vectors[vid]
        what = " ".join(x for x in (entry.get("bug") or "", entry.get("why") or "") if x)
        lines.append(f"| {vid} | {v['origin']} | {v['outcome']} | {entry['class']} | {_cell(what)} |")
    return "\n".join(lines) + "\n"


def page(data: Path) -> tuple[str, list[str]]:
    """docs/peers.md's text from the committed results in `data` (docs/data/peers/: pandas-match-recognize's
    results and classification, the SASE 1.0 jar's results), and the classifications' problems."""
    import yaml  # lazy: only where the page is made

    got = load(data / "pandas_mr.json")
    classified = yaml.safe_load((data / "pandas_mr_failures.yaml").read_text())
    jar = load(data / "sase1_jar.json")
    text = render(got, classified) + "\n" + jar_section(jar)
    return text, problems(got["vectors"], classified) + problems(jar["vectors"], {})
