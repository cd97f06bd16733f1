"""pandas-match-recognize (PyPI, `pip install 'cepkit[peers]'`) as a kit adapter on the `sql` vectors:

    cepkit conformance --adapter cepkit.conformance.adapters.pandas_mr:PandasMatchRecognize --language sql -n 2

The query text goes to the peer as the vector gives it, over a DataFrame of the vector's events (a query with
VALUES rows gets them as events too; the peer reads its own VALUES where it can). Its output columns become the
match rows' columns under the peer's own names, pandas' missing values (NaN, None, NA, NaT) as null; the peer
returns columns only, so `bindings` is `{}` and `ts` is 0, and a vector whose check reads bindings (one that
pins matches) is refused as `match bindings`. What the peer cannot read is refused by name before it runs too:
cepkit's SQL extensions (origin `extension`), WITH, a subquery, VALUES rows without column names. The peer raises ValueError for a query it rejects (it reads the
query and the rows in one call, and never rejects a DataFrame's rows), reported as a query error; any other
exception is its crash. Nothing of its answer is corrected: its bugs are failures (docs/peers.md)."""
from __future__ import annotations

import re
from typing import Any

import pandas as pd

from cepkit.conformance.kit import Refused, Unavailable
from cepkit.conformance.kit.rows import RESERVED   # written payload.NAME (docs/conformance.md)
from cepkit.conformance.origin import EXTENSIONS
from cepkit.core.errors import QueryError

PACKAGE = "pandas-match-recognize"

# constructs the peer does not read, found in the query text: (pattern, the construct refused)
NOT_READ = ((re.compile(r"^\s*WITH\b", re.I), "WITH"), (re.compile(r"\(\s*SELECT\b", re.I), "subquery"))
_VALUES_AT = re.compile(r"\(\s*VALUES\b", re.I)
_NAMED = re.compile(r"\s*(?:AS\s+)?(?!MATCH_RECOGNIZE\b)[A-Za-z_]\w*\s*\(", re.I)


def refusal(vector) -> str | None:
    """The construct of the vector the peer cannot run, by name; None when it can try."""
    kind, _, detail = vector.origin.partition(" ")
    if kind == "extension":
        named = [c for c in EXTENSIONS["sql"] if re.search(rf"\b{re.escape(c)}\b", detail.split(";")[0])]
        return named[0] if named else "a cepkit SQL extension"
    for pattern, construct in NOT_READ:
        if pattern.search(vector.query):
            return construct
    if _unnamed_values(vector.query):
        return "VALUES without column names"
    if vector.compares_bindings:
        return "match bindings"     # the peer returns columns, never the rows each variable matched
    return None


def _unnamed_values(query: str) -> bool:
    """Whether the query's `(VALUES ...)` has no `t(a, b)` naming its columns."""
    start = _VALUES_AT.search(query)
    if start is None:
        return False
    depth = 0
    for i in range(start.start(), len(query)):
        depth += {"(": 1, ")": -1}.get(query[i], 0)
        if depth == 0:
            return _NAMED.match(query, i + 1) is None
    return True


def plain(value: Any) -> Any:
    """A DataFrame cell as a JSON value: numpy scalars unwrapped, pandas' missing values (NaN, None, NA, NaT) as
    None."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, (list, tuple, dict)):
        return value
    return None if pd.isna(value) else value


class PandasMatchRecognize:
    """The peer behind the adapter protocol (docs/conformance.md)."""

    name = PACKAGE
    languages = ("sql",)

    def __init__(self):
        try:
            from pandas_match_recognize import match_recognize
        except ImportError:
            raise Unavailable(f"{PACKAGE} is not installed (pip install 'cepkit[peers]')") from None
        self.match_recognize = match_recognize

    def compile(self, vector):
        construct = refusal(vector)
        if construct is not None:
            raise Refused(construct, f"{PACKAGE} does not read {construct}")
        return vector.query

    def run(self, query, vector):
        frame = pd.DataFrame(vector.events)
        try:
            out = self.match_recognize(query, frame)
        except ValueError as exc:
            raise QueryError(f"{PACKAGE}: {exc}") from None
        rows = []
        for values in out.itertuples(index=False, name=None):
            row: dict[str, Any] = {"bindings": {}, "ts": 0}
            for column, value in zip(out.columns, values):
                row[f"payload.{column}" if column in RESERVED else str(column)] = plain(value)
            rows.append(row)
        return rows
