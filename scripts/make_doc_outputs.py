"""Writes into the tutorial and the language reference (tests/docs/markdown.py `generated`) what each
command prints where the page shows its output, for `make docs`: the examples are found and run as tests/docs
runs them, and an output block that differs from the program's, as tests/docs/normalize.py compares them, is
replaced by what the program printed (a block that elides with `...` keeps as many first and last lines). A block that already matches is left as it is, so a second run changes
nothing. Exit 1 if a command exits otherwise than its page says (the page needs a hand)."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.docs import normalize, shell  # noqa: E402
from tests.docs.markdown import generated, pages, parse  # noqa: E402


def page_edits(page: Path) -> tuple[list[tuple[int, int, str]], list[str]]:
    """The (start, end, text) replacements of the page's output blocks, and the commands that failed."""
    document, files = parse(page)
    edits, failures = [], []
    for example in document.examples():
        block = example.region.block
        if block.skip is not None or block.language == "python" or all(s.output is None for s in block.steps):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            workdir = shell.prepare(Path(tmp), files)
            try:
                for step, printed in shell.run_block(block, workdir):
                    if step.output is None or step.defines:
                        continue
                    if not normalize.matches(normalize.normalize(step.output.lines),
                                             normalize.normalize(printed, str(workdir))):
                        lines = normalize.shown_form(step.output.lines, normalize.local(printed, str(workdir)))
                        edits.append((step.output.start, step.output.end, "".join(f"{x}\n" for x in lines)))
            except shell.CommandFailed as failed:
                failures.append(f"{page.relative_to(ROOT)}: {failed}")
    return edits, failures


def main() -> int:
    failures = []
    for page in filter(generated, pages()):
        edits, failed = page_edits(page)
        failures += failed
        if edits:
            text = page.read_text()
            for start, end, new in sorted(edits, reverse=True):
                text = text[:start] + new + text[end:]
            page.write_text(text)
            print(f"{page.relative_to(ROOT)}: {len(edits)} output block(s) written from the program's output")
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
