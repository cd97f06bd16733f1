"""How a MatchTable shows itself: its first rows as a small text table (`repr`, `print`) or an HTML table
(`_repr_html_`, notebooks), with the row count, as polars and DuckDB show theirs."""
from __future__ import annotations

import html
from fractions import Fraction
from typing import Any

SHOWN = 10   # rows shown
WIDTH = 32   # characters a cell shows at most


def cell(value: Any) -> str:
    """One value as text: ids lists as [a, b], null as null, exact fractions as n/d, cut at WIDTH."""
    if value is None:
        text = "null"
    elif isinstance(value, (list, tuple)):
        text = "[" + ", ".join(cell(v) for v in value) + "]"
    elif isinstance(value, Fraction):
        text = f"{value.numerator}/{value.denominator}"
    else:
        text = str(value)
    return text if len(text) <= WIDTH else text[: WIDTH - 1] + "…"


def head(table: Any, n: int = SHOWN) -> tuple[list[str], list[list[str]]]:
    """(column names, the first n rows as cell texts) of a MatchTable, values decoded exactly."""
    names, columns = table.head_columns(n)
    rows = len(columns[0]) if columns else 0
    return names, [[cell(c[i]) for c in columns] for i in range(rows)]


def title(table: Any) -> str:
    rows = len(table)
    return f"MatchTable: {rows} row{'' if rows == 1 else 's'}, {len(table.layout.column_names())} columns"


def more(table: Any, shown: int) -> str:
    rest = len(table) - shown
    return f"… {rest} more row{'' if rest == 1 else 's'}" if rest > 0 else ""


def text(table: Any) -> str:
    """The title, the column names and the first rows, aligned; then how many rows are not shown."""
    names, rows = head(table)
    widths = [max([len(name)] + [len(r[k]) for r in rows]) for k, name in enumerate(names)]
    lines = [title(table), "  ".join(n.ljust(w) for n, w in zip(names, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    if not rows:
        lines.append("(no matches)")
    if more(table, len(rows)):
        lines.append(more(table, len(rows)))
    return "\n".join(lines)


def to_html(table: Any) -> str:
    """An HTML table of the first rows (every text escaped), under the title."""
    names, rows = head(table)
    header = "".join(f"<th>{html.escape(n)}</th>" for n in names)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    tail = more(table, len(rows))
    return (f"<div><small>{html.escape(title(table))}</small><table><thead><tr>{header}</tr></thead>"
            f"<tbody>{body}</tbody></table>" + (f"<small>{html.escape(tail)}</small>" if tail else "") + "</div>")
