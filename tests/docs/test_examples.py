"""Every example of the docs runs (tests/docs/markdown.py says which and how marks skip one), and the output a
page shows is the program's, as tests/docs/normalize.py compares them. A failure names the page and line."""
from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from sybil.example import SybilFailure

from tests.docs import normalize, shell
from tests.docs.markdown import ROOT, command_blocks_without_language, generated, pages, parse

GENERATE = "run `make docs` (scripts/make_doc_outputs.py) to write the program's output into the page"
BY_HAND = "this page's outputs are written by hand: update it"


def _examples():
    for page in pages():
        document, files = parse(page)
        for example in document.examples():
            yield pytest.param(example, files, id=f"{page.relative_to(ROOT)}:{example.line}")


EXAMPLES = list(_examples())


def compare(example, workdir) -> str | None:
    """The evaluator's answer for a shell block: None, or what differs."""
    try:
        for step, printed in shell.run_block(example.parsed, workdir):
            if step.output is None or step.defines:
                continue
            shown = normalize.normalize(step.output.lines)
            actual = normalize.normalize(printed, str(workdir))
            if not normalize.matches(shown, actual):
                diff = "\n".join(difflib.unified_diff(shown, actual, "shown", "printed", lineterm=""))
                line = step.commands[0].line
                how = GENERATE if generated(Path(example.path)) else BY_HAND
                return f"the output shown for line {line} is not what it prints ({how}):\n{diff}"
    except shell.CommandFailed as failed:
        return str(failed)
    return None


@pytest.mark.parametrize(("example", "files"), EXAMPLES)
def test_example(example, files, tmp_path, monkeypatch):
    where = f"{example.path.removeprefix(str(ROOT) + '/')}:{example.line}"
    if example.region.block.skip is not None:
        pytest.skip(f"{where}: not run: {example.region.block.skip}")
    workdir = shell.prepare(tmp_path, files)
    monkeypatch.chdir(workdir)
    example.namespace = {"run_block": lambda block: compare(example, workdir)}
    try:
        example.evaluate()
        failed = None
    except SybilFailure as failure:
        failed = failure.result
    except Exception as error:   # a Python snippet that raises
        failed = f"{type(error).__name__}: {error}"
    if failed is not None:
        pytest.fail(f"{where}: {failed}", pytrace=False)


def test_every_not_run_mark_says_why():
    unexplained = [f"{p.relative_to(ROOT)}:{e.line}" for p in pages() for e in parse(p)[0].examples()
                   if e.region.block.skip is not None and len(e.region.block.skip) < 10]
    assert not unexplained, f"a not-run mark without its reason: {unexplained}"


def test_every_command_block_runs_or_is_marked():
    unlabelled = [f"{p.relative_to(ROOT)}:{line}" for p in pages() for line in command_blocks_without_language(p)]
    assert not unlabelled, f"commands in a block that is neither ```sh nor marked not-run: {unlabelled}"


def test_the_examples_are_found():
    languages = {e.values[0].region.block.language for e in EXAMPLES}
    assert {"sh", "session", "python"} <= languages, languages
