"""What may differ between a shown output and the program's, for the test and for scripts/make_doc_outputs.py.

Both sides are normalized line by line before they are compared:
- the directory the examples ran in is dropped from paths (`/tmp/x/out/q` reads `out/q`); any other path
  under /tmp reads `<tmp>`;
- a rate (`12,345 events/s`) reads `<rate> events/s`, and a duration (`0.39 s`, `0.66s`, `12 ms`) `<time>`;
- trailing spaces and trailing blank lines are dropped.
A shown line that is `...` stands for any number of lines (the page shows part of a long output).
"""
from __future__ import annotations

import re

ELLIPSIS = "..."
RULES = [
    (re.compile(r"/tmp/\S*"), "<tmp>"),
    (re.compile(r"\b\d[\d,]*(?:\.\d+)? ([a-z]+)/s\b"), r"<rate> \1/s"),
    (re.compile(r"\b\d+(?:\.\d+)? ?(?:s|ms|µs)\b"), "<time>"),
]


def local(lines: list[str], workdir: str | None = None) -> list[str]:
    """The lines as a page shows them: paths relative to the directory the examples ran in, no trailing
    spaces or blank lines."""
    out = []
    for line in lines:
        if workdir:
            line = line.replace(workdir.rstrip("/") + "/", "").replace(workdir.rstrip("/"), ".")
        out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    return out


def normalize(lines: list[str], workdir: str | None = None) -> list[str]:
    """The lines as compared: local, then every rule applied."""
    out = local(lines, workdir)
    for pattern, repl in RULES:
        out = [pattern.sub(repl, line) for line in out]
    return out


def matches(shown: list[str], printed: list[str]) -> bool:
    """Whether the printed lines are the shown ones, a shown `...` line standing for any lines (both normalized)."""
    reachable = {0}   # the printed lines consumed after each shown line
    for line in shown:
        if line.strip() == ELLIPSIS:
            reachable = set(range(min(reachable), len(printed) + 1)) if reachable else set()
        else:
            reachable = {i + 1 for i in reachable if i < len(printed) and printed[i] == line}
    return len(printed) in reachable


def shown_form(shown: list[str], printed: list[str]) -> list[str]:
    """What a page should show for printed lines it shows as `shown`: all of them, or, when the page elides
    with `...`, as many first and last lines as it showed around its first and last `...`."""
    marks = [i for i, line in enumerate(shown) if line.strip() == ELLIPSIS]
    if not marks:
        return printed
    head, tail = marks[0], len(shown) - marks[-1] - 1
    if head + tail >= len(printed):
        return printed
    return printed[:head] + [ELLIPSIS] + (printed[len(printed) - tail:] if tail else [])
