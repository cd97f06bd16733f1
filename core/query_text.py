"""A query's text, for every language: read from a file as UTF-8, and checked for bytes no query holds (each
a QueryError with line and column)."""
from __future__ import annotations

from pathlib import Path

from cepkit.core.errors import QueryError


def check_text(text: str) -> None:
    """QueryError (line and column) for a NUL byte or another control character that no query holds
    (tabs, line breaks and form feeds are fine), or for text that was not UTF-8."""
    for i, ch in enumerate(text):
        odd = (ch < " " and ch not in "\t\n\r\f") or ch == "\x7f"
        if odd or "\ud800" <= ch <= "\udfff":   # a surrogate: bytes that were not UTF-8 (command-line text)
            line = text.count("\n", 0, i) + 1
            column = i - (text.rfind("\n", 0, i) + 1) + 1
            what = f"control character U+{ord(ch):04X}" if odd else "a byte that is not UTF-8"
            raise QueryError(f"{what} in the query text", line, column)


def read_query_file(path: str | Path, what: str = "query file") -> str:
    """The text of a query file: UTF-8 (a byte-order mark is dropped). QueryError when it cannot be read,
    or naming the line and column of the first byte that is not UTF-8."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise QueryError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        line_start = data.rfind(b"\n", 0, start) + 1
        column = len(data[line_start:start].decode("utf-8", errors="replace")) + 1
        raise QueryError(f"the {what} is not UTF-8 text: byte 0x{data[start]:02X} cannot be decoded "
                         f"(save the file as UTF-8)", data.count(b"\n", 0, start) + 1, column) from None
