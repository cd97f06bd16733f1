"""Where a conformance vector's expected answer comes from: the `origin` and `differs_from` keys every vector
file's cases carry, read and validated for every loader (docs/conformance.md, "Where each vector comes from").

    origin: trino TestRowPatternMatching.java#testSimpleQuery
    origin: paper sase-sigmod08 §8 CC5 (spec/000)
    origin: cepkit SQ-L2 Trino outputs the column twice; a cepkit table cannot hold two columns named id
    differs_from: {trino: "testOutputLayout's third query returns rows"}

`origin` is the kind, then what it names: `trino` (Trino's tests: the Java file and the test method,
`File.java#method`), `sql2016` (the standard's rules, derived by hand), `sase1` (checked against the SASE 1.0
jar), `paper` (a seed paper, by its key in PAPERS, then the section, figure or example), `cepkit` (a choice
documented in docs/semantics.md: the entry's name first, then the reason) or `extension` (the query uses
cepkit-only syntax, EXTENSIONS; then what the expectation rests on). `differs_from` maps a peer whose
published answer differs (PEERS) to the reason; only a `cepkit` vector may say it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable

KINDS = ("trino", "sql2016", "sase1", "paper", "cepkit", "extension")
PEERS = ("trino", "sql2016", "sase1", "paper")
KEYS = ("origin", "differs_from")     # the keys a vector file's case may carry for this

PAPERS = {
    "sase-sigmod08": "Agrawal, Diao, Gyllstrom, Immerman: Efficient Pattern Matching over Event Streams, "
                     "SIGMOD 2008 (SASE+, NFA^b; ../shared/spec/000)",
    "lazy-nfa": "Kolchinsky, Schuster: Efficient Detection of Complex Event Patterns Using Lazy Chain Automata "
                "(../shared/spec/001)",
    "sase-sigmod06": "Wu, Diao, Rizvi: High-Performance Complex Event Processing over Streams, SIGMOD 2006 "
                     "(SASE, RFID; ../shared/spec/002)",
    "afa-vldb10": "Chandramouli, Goldstein, Maier: High-Performance Dynamic Pattern Matching over Disordered "
                  "Streams, VLDB 2010 (AFA; ../shared/spec/003)",
    "koerber-thesis21": "Körber: Accelerating Event Stream Processing in On- and Offline Systems, Marburg 2021 "
                        "(../shared/spec/004)",
}

# cepkit-only syntax, by language: the construct names (the language's construct lister, core/registry.py) of
# what no published peer reads. A vector whose query uses one has origin `extension`, and only such a vector.
EXTENSIONS = {"sql": ("ALL MATCHES", "WITHIN", "CONTIGUOUS", "SKIP_TILL_NEXT_MATCH", "SKIP_TILL_ANY_MATCH")}

_TRINO_RE = re.compile(r"\b[A-Za-z_]\w*\.java#[A-Za-z_]\w*\b")
ENTRY_RE = re.compile(r"^[A-Z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*$")   # a docs/semantics.md entry: A10, SQ-L2, S1.7


@dataclass(frozen=True)
class Origin:
    """A vector's origin: its kind, what it names, and the peers whose published answers differ (peer, why)."""

    kind: str
    detail: str = ""
    differs_from: tuple[tuple[str, str], ...] = ()

    @property
    def entry(self) -> str | None:
        """The docs/semantics.md entry a `cepkit` origin names."""
        return self.detail.split()[0] if self.kind == "cepkit" else None

    def __str__(self) -> str:
        return f"{self.kind} {self.detail}".strip()


def read(raw: dict, fail: Callable[[str], Exception]) -> Origin:
    """The origin of a raw case (a mapping read from YAML); `fail(message)` builds the error (it names the
    file and the line)."""
    text = raw.get("origin")
    if not isinstance(text, str) or not text.strip():
        raise fail(f"'origin' must be one of {', '.join(KINDS)}, then what it names "
                   f"(got {text!r}; docs/conformance.md, 'Where each vector comes from')")
    kind, _, detail = text.strip().partition(" ")
    detail = " ".join(detail.split())
    if kind not in KINDS:
        raise fail(f"unknown origin {kind!r} (one of {', '.join(KINDS)})")
    if kind == "trino" and not _TRINO_RE.search(detail):
        raise fail(f"a trino origin names the Java file and the test method, File.java#method (got {text!r})")
    if kind == "paper":
        paper, _, where = detail.partition(" ")
        if paper not in PAPERS or not where.strip():
            raise fail(f"a paper origin names the paper ({', '.join(PAPERS)}), then the section, figure or "
                       f"example (got {text!r})")
    if kind == "cepkit" and not ENTRY_RE.match(detail.split()[0] if detail else ""):
        raise fail(f"a cepkit origin names its docs/semantics.md entry first, e.g. 'cepkit SQ-L2 why' "
                   f"(got {text!r})")
    return Origin(kind, detail, _differs(raw.get("differs_from"), kind, fail))


def _differs(value: Any, kind: str, fail) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict) or not value:
        raise fail(f"'differs_from' maps a peer ({', '.join(PEERS)}) to the reason its answer differs")
    if kind != "cepkit":
        raise fail(f"'differs_from' goes with origin cepkit (a documented choice), not {kind}")
    out = []
    for peer, why in value.items():
        if peer not in PEERS:
            raise fail(f"'differs_from': unknown peer {peer!r} (one of {', '.join(PEERS)})")
        if not isinstance(why, str) or not why.strip():
            raise fail(f"'differs_from': {peer}: give the reason the answers differ")
        out.append((peer, " ".join(why.split())))
    return tuple(out)


def parse_kinds(text: str | Iterable[str]) -> tuple[str, ...]:
    """The kinds of a selection such as `trino,sase1` (or a list of such); ValueError naming an unknown one."""
    parts = [text] if isinstance(text, str) else list(text)
    kinds = tuple(k.strip() for part in parts for k in part.split(",") if k.strip())
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"unknown origin {', '.join(unknown) or repr(text)} (one of {', '.join(KINDS)})")
    return kinds
