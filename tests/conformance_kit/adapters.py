"""Adapters for the kit's tests: cepkit's reference engine behind the Python adapter protocol (every answer
goes through the Match.to_json rows an outside engine writes), and a broken one that drops the last match."""
from __future__ import annotations

import pandas as pd

import cepkit
from cepkit.conformance.kit.vectors import registry_language
from cepkit.core import registry
def _events(vector):
    if vector.language == "afa":
        return vector.events
    if vector.language == "sql" and _carries_rows(vector.query):
        return None   # the query's own VALUES rows (an `id` there may repeat: it is data, SQ-L3)
    if vector.right_events is not None:
        return pd.DataFrame(vector.events), pd.DataFrame(vector.right_events)
    return pd.DataFrame(vector.events)


def _carries_rows(query: str) -> bool:
    from cepkit.core.errors import QueryError
    from cepkit.front.sql.parse import parse
    from cepkit.front.sql.source import carries_rows

    try:
        return carries_rows(parse(query))
    except QueryError:
        return False


class ReferenceAdapter:
    """The reference engine, its rows as JSON objects."""

    name = "reference-as-adapter"

    def compile(self, vector):
        # a sase1 vector is a SASE query read in the dialect its options name
        return cepkit.compile(vector.query, language=registry_language(vector.language), engine="reference",
                              **vector.options)

    def run(self, program, vector):
        data = registry.read_input(registry_language(vector.language), "reference", _events(vector),
                                   getattr(program, "query", None), **vector.read_options)
        return [m.to_json() for m in program.run(data)]


class DropsLastMatch(ReferenceAdapter):
    """A deliberately broken engine: the reference less its last match."""

    name = "drops-last-match"

    def run(self, program, vector):
        return super().run(program, vector)[:-1]


class ExitsInRun(ReferenceAdapter):
    """A misbehaving engine: it ends the process from run() (sys.exit(0), as a script's main would)."""

    name = "exits-in-run"

    def run(self, program, vector):
        import sys

        sys.exit(0)


class HangsOnCC5s4stream2(ReferenceAdapter):
    """A misbehaving engine: run() never returns on one vector (CC5-s4-stream2); the reference elsewhere."""

    name = "hangs"

    def run(self, program, vector):
        import time

        while vector.id == "CC5-s4-stream2":
            time.sleep(0.1)
        return super().run(program, vector)


class EndsTheProcess(ReferenceAdapter):
    """A misbehaving engine: os._exit(0) from run() (no exception to catch: the process is gone)."""

    name = "ends-the-process"

    def run(self, program, vector):
        import os

        os._exit(0)


class Floods(ReferenceAdapter):
    """A misbehaving engine: run() prints without end."""

    name = "floods"

    def run(self, program, vector):
        import sys

        while True:
            sys.stdout.write("x" * 65536)


class Segfaults(ReferenceAdapter):
    """A misbehaving engine: run() crashes the interpreter (a segmentation fault)."""

    name = "segfaults"

    def run(self, program, vector):
        import ctypes

        ctypes.string_at(0)


class Seventy(ReferenceAdapter):
    """The reference, with every integral number of a SQL row written as a float (70 as 70.0), as engines
    that compute in doubles write them."""

    name = "seventy"

    def run(self, program, vector):
        rows = super().run(program, vector)
        return [{k: (float(v) if isinstance(v, int) and not isinstance(v, bool) and k not in ("ts", "bindings")
                     else v) for k, v in row.items()} for row in rows]


class NoPeer:
    """An engine that cannot run here (its package is missing): it says so while loading."""

    def __init__(self):
        from cepkit.conformance.kit import Unavailable

        raise Unavailable("no-such-peer is not installed (pip install no-such-peer)")


class WrongShape(ReferenceAdapter):
    """A broken engine: rows without bindings (a dict of its own making)."""

    name = "wrong-shape"

    def run(self, program, vector):
        return [{"ts": 1, "match": 1}]
