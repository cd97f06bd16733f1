"""What an outside engine is handed, as the first real peer needed it: VALUES rows as JSON numbers, the VALUES
rows of an expected-error query, whether the check reads bindings; and a reserved-name column kept."""
from __future__ import annotations

from cepkit.conformance.kit import vectors
from cepkit.conformance.kit.protocol import vector_of
from cepkit.conformance.kit.rows import to_match


def _case(vid: str):
    return next(c for c in vectors.all_cases(["sql"]) if c.id == vid)


def test_values_rows_reach_an_adapter_as_json_numbers():
    """A VALUES decimal (90.5) is a number in the Vector, as in the command's files, not a Fraction object."""
    events = vector_of(_case("NUM-decimal-values-outer")).events
    assert events[0] == {"id": 1, "value": 90.5} and type(events[0]["value"]) is float


def test_an_expected_error_query_still_hands_its_values_rows():
    """The rows of a VALUES table the parser reads, in a query it refuses (an engine reading `events` sees them);
    none where the table itself is the error."""
    assert vector_of(_case("TF-error-window-function")).events == [{"id": 1, "value": 90}]
    assert vector_of(_case("TF-error-values-arity")).events == []


def test_a_vector_says_whether_its_check_reads_bindings():
    assert vector_of(_case("MR-one-row-past-last")).compares_bindings is True     # expected_matches
    assert vector_of(_case("TR-simple-query")).compares_bindings is False
    assert vector_of(next(c for c in vectors.all_cases(["sase"]))).to_json()["compares_bindings"] is True


def test_a_reserved_name_column_written_payload_name_is_kept_even_off_the_layout():
    match = to_match({"bindings": {}, "ts": 0, "a": 1, "payload.ts": 7}, ("a",))
    assert dict(match.payload) == {"a": 1, "ts": 7}
