"""What an engine answered on one vector, whatever kind of engine it is."""
from __future__ import annotations

from dataclasses import dataclass

from cepkit.core.match_table import MatchTable


@dataclass(frozen=True)
class Rows:
    """The engine's matches."""

    table: MatchTable
    text: str = ""            # the rows as the engine wrote them (outside engines), for failure reports


@dataclass(frozen=True)
class Refusal:
    """The engine declined a construct of the query, by name."""

    construct: str
    message: str


@dataclass(frozen=True)
class Raised:
    """The engine reported an error in the query ("query") or in the events ("event")."""

    kind: str
    message: str
    error: Exception | None = None     # a cepkit engine's exception, for the vector's own error check


@dataclass(frozen=True)
class Crash:
    """The engine broke the protocol: an unexpected exception, an undocumented exit code, malformed rows."""

    message: str


@dataclass(frozen=True)
class Missing:
    """The engine cannot run here (a package, a runtime, a file is missing): the vector is skipped."""

    reason: str


Answer = Rows | Refusal | Raised | Crash | Missing
