"""The conformance kit: every shipped vector, run against a registered engine, a Python adapter or an
external command, with a JUnit report and a summary per construct (`cepkit conformance`, docs/conformance.md).

An engine outside cepkit sees a `Vector` (query, events, options as plain data) and answers with match rows
in the `Match.to_json` form, or declines a construct with `Refused`."""
from cepkit.conformance.kit.protocol import Refused, Unavailable, Vector

__all__ = ["Refused", "Unavailable", "Vector"]
