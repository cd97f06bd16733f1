"""A tiny SASE+ engine written without cepkit, as a conformance-kit adapter (docs/conformance.md).

It runs `PATTERN SEQ(T1 v1, ..., Tn vn) [WHERE skip_till_any_match(...) { }] [WITHIN n [unit]]`: a sequence
of single events under skip-till-any-match, found by enumerating every combination of events in stream order
(the span from the first to the last event strictly below the window). Everything else it refuses by name,
so the kit counts those vectors as refused, not failed:

    cepkit conformance --language sase --adapter examples/conformance/tiny_sase.py:TinySase
"""
from __future__ import annotations

import re
from typing import Any, Iterator

SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "second": 1, "seconds": 1, "min": 60, "minute": 60,
           "minutes": 60, "h": 3600, "hour": 3600, "hours": 3600, "d": 86400, "day": 86400, "days": 86400}
OTHER_STRATEGIES = ("strict_contiguity", "partition_contiguity", "skip_till_next_match")

_QUERY = re.compile(r"PATTERN\s+SEQ\s*\((?P<seq>[^()]*)\)\s*(?:WHERE\s+(?P<where>.*?))?"
                    r"\s*(?:WITHIN\s+(?P<within>\d+)\s*(?P<unit>[A-Za-z]+)?)?\s*", re.S | re.I)
_STRATEGY = re.compile(r"skip_till_any_match\s*(?:\([\w\s,]*\))?\s*\{\s*\}", re.I)
_COMPONENT = re.compile(r"\s*([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*")


class Refused(Exception):
    """Declines a construct: the kit reads any exception with a `construct` attribute as a refusal."""

    def __init__(self, construct: str):
        self.construct = construct
        super().__init__(f"tiny_sase does not run {construct}")


def refusal(language: str, query: str, options: dict) -> str | None:
    """The first construct of the query this engine does not run, by the name cepkit's SASE front end uses."""
    if language != "sase":
        return f"language {language}"
    if options.get("selection", "all") != "all":
        return "non-overlap output"
    text = query.replace("-", "_")
    checks = [(r"^\s*EVENT\b", "RFID dialect"), (r"\bAND\s*\(", "AND(...)"), (r"\bOR\s*\(", "OR(...)"),
              (r"\bANY\s*\(", "ANY(...)"), (r"\+", "Kleene closure"), (r"~\s*\(|!\s*\(", "negation"),
              (r"\bRETURN\b", "RETURN"), (r"\[", "partition")]
    checks += [(rf"\b{s}\b", s) for s in OTHER_STRATEGIES]
    for pattern, name in checks:
        if re.search(pattern, text, re.I):
            return name
    if len(re.findall(r"\bSEQ\s*\(", text, re.I)) > 1:
        return "nested pattern"
    return None


class TinySase:
    """The adapter: compile() reads the query, run() enumerates the matches."""

    name = "tiny-sase"
    languages = ("sase",)

    def compile(self, vector) -> dict[str, Any]:
        construct = refusal(vector.language, vector.query, vector.options)
        if construct is not None:
            raise Refused(construct)
        m = _QUERY.fullmatch(vector.query.strip())
        if m is None:
            raise ValueError(f"not a query tiny_sase reads: {vector.query.strip()!r}")
        if m["where"] is not None and not _STRATEGY.fullmatch(m["where"].strip()):
            raise Refused("WHERE predicate")
        components = []
        for part in m["seq"].split(","):
            c = _COMPONENT.fullmatch(part)
            if c is None:
                raise ValueError(f"not a component 'Type var': {part.strip()!r}")
            components.append((c[1].lower(), c[2]))
        window = None
        if m["within"] is not None:
            window = int(m["within"])
            if m["unit"] is not None and m["unit"].lower() == "events":
                raise Refused("count window")
            if m["unit"] is not None:
                unit = vector.read_options.get("ts_unit")
                if m["unit"].lower() not in SECONDS or unit is None:
                    raise Refused(f"WITHIN {m['unit']} over ticks in {unit}")
                window = window * SECONDS[m["unit"].lower()] / SECONDS[unit]
        return {"components": components, "window": window}

    def run(self, plan: dict[str, Any], vector) -> Iterator[dict[str, Any]]:
        type_col = vector.read_options.get("type_col", "type")
        default = vector.read_options.get("default_type")
        events = [(str(e[type_col] if type_col else default).lower(), e["ts"], e["id"]) for e in vector.events]
        yield from self._extend(plan, events, [], 0)

    def _extend(self, plan, events, chosen: list[int], start: int) -> Iterator[dict[str, Any]]:
        components, window = plan["components"], plan["window"]
        if len(chosen) == len(components):
            yield {"bindings": {var: [events[i][2]] for (_, var), i in zip(components, chosen)},
                   "ts": events[chosen[-1]][1]}
            return
        wanted = components[len(chosen)][0]
        for i in range(start, len(events)):
            if chosen and window is not None and events[i][1] - events[chosen[0]][1] >= window:
                break   # ts never decreases: no later event fits either
            if events[i][0] == wanted:
                yield from self._extend(plan, events, chosen + [i], i + 1)
