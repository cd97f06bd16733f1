"""The examples of the docs: the commands and Python snippets of README.md, docs/**/*.md and
examples/*/README.md, each with the page and line it is on, as Sybil examples.

Sybil (over pytest-examples and phmdoctest, which run Python only, and mktestdocs, which compares no output
and names no line): its Markdown lexers give every fenced block and every `<!-- directive: ... -->` comment
with its place in the page, its Python evaluator runs the snippets with the page's line numbers, and one
parser of ours adds the shell commands on top of them.

What runs:
- a ```sh or ```bash block: each line a command (`\\` continues it, `#` starts a comment);
- the `$ ` lines of a ```console, ```text or plain ``` block: a session, each command followed by the
  output it prints;
- a ```python block, in a namespace of its own.
An output block (```text or plain ```) right after a ```sh block, with only blank lines between, shows what
the block's commands print, one after the other. A command exits 0 unless its line ends in `# exit N`.

Marks, an HTML comment on the line before a block:
- `<!-- not-run: REASON -->`: the block is not run, for REASON (the suite checks that every mark gives one);
- `<!-- file: NAME -->`: the block is the file NAME, written where the page's commands run.
In a session, `$ cat NAME` where the page provides no NAME writes the lines shown after it to NAME (the
page shows the file its next commands read).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from sybil import Document, Region
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer, RawFencedCodeBlockLexer

ROOT = Path(__file__).resolve().parents[2]
SHELL = ("sh", "bash", "console")
OUTPUT = ("text", "")
# the first word of a line that is a command, for the check that every command block is run or marked
COMMAND_START = re.compile(r"^(\$ |\.venv/bin/|cepkit |python3? |pytest |make |pip )")
EXIT = re.compile(r"#\s*exit (\d+)\b")


def pages() -> list[Path]:
    """Every page whose examples run: README.md, docs/**/*.md, examples/*/README.md."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "examples").glob("*/README.md"))]


def generated(page: Path) -> bool:
    """Whether `make docs` writes the outputs the page shows (scripts/make_doc_outputs.py): the tutorial's and
    the language reference's; the other pages' are written by hand, and compared all the same."""
    if not page.is_relative_to(ROOT):
        return False
    relative = page.relative_to(ROOT).as_posix()
    return relative.startswith("docs/tutorial/") or relative == "docs/language.md"


@dataclass
class Output:
    """A shown output: its lines and where they are in the page (character offsets, end exclusive)."""
    lines: list[str]
    start: int
    end: int


@dataclass
class Command:
    text: str      # as bash runs it, continuations joined
    line: int      # 1-based line in the page
    status: int    # the exit status it should have


@dataclass
class Step:
    """Commands run one after the other, and the output the page shows for them (None: none shown)."""
    commands: list[Command]
    output: Output | None
    defines: str | None = None   # `$ cat NAME` that writes its shown lines to NAME first


@dataclass
class Block:
    """One example: a shell block or session (steps), or a Python snippet (source)."""
    language: str
    line: int
    steps: list[Step] = field(default_factory=list)
    skip: str | None = None       # the reason of a not-run mark


@dataclass
class Fence:
    language: str
    source: str
    start: int         # offset of the source's first character
    end: int           # offset of the closing fence's line
    region: Region
    mark: tuple[str, str] | None = None


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _fences(document: Document) -> list[Fence]:
    lexer = RawFencedCodeBlockLexer(info_pattern=re.compile(r"(?P<language>[^\n`]*)$\n", re.MULTILINE))
    marks = {}
    for region in DirectiveInHTMLCommentLexer("not-run|file", arguments=".*?")(document):
        marks[document.text.find("\n", region.end) + 1] = (region.lexemes["directive"], region.lexemes["arguments"])
    fences = []
    for region in lexer(document):
        start = document.text.index("\n", region.start) + 1
        end = document.text.rfind("\n", start - 1, region.end) + 1   # the closing fence's line
        source = document.text[start:end]   # as written: the lexeme is dedented, and a shown output is not
        mark = marks.get(region.start)
        fences.append(Fence(region.lexemes["language"].strip(), source, start, end, region, mark))
    return fences


def _commands(source: str, first_line: int) -> list[Command]:
    commands, pending, pending_line = [], "", first_line
    for number, raw in enumerate(source.splitlines(), first_line):
        if not pending:
            pending_line = number
        line = raw.rstrip()
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        text = (pending + line).strip()
        pending = ""
        if text and not text.startswith("#"):
            status = EXIT.search(text)
            commands.append(Command(text, pending_line, int(status.group(1)) if status else 0))
    return commands


def _session(fence: Fence, text: str) -> list[Step]:
    """The `$ ` commands of a session block, each with the lines after it as its output."""
    steps, offset = [], fence.start
    for raw in fence.source.splitlines(keepends=True):
        if raw.startswith("$ "):
            command = _commands(raw[2:], _line(text, offset))[0]
            steps.append(Step([command], Output([], offset + len(raw), offset + len(raw))))
        elif steps:
            steps[-1].output.lines.append(raw.rstrip("\n"))
            steps[-1].output.end = offset + len(raw)
        offset += len(raw)
    return steps


def _is_session(fence: Fence) -> bool:
    return fence.language in SHELL + OUTPUT and fence.source.startswith("$ ")


class DocsParser:
    """A Sybil parser: a region for each shell block (with the output block after it), session and Python
    snippet of a page. Each region's `parsed` is a Block; the page's files (`file:` marks) are in `files`."""

    def __init__(self) -> None:
        self.files: dict[str, dict[str, str]] = {}

    def __call__(self, document: Document):
        text = document.text
        fences = _fences(document)
        files = self.files.setdefault(document.path, {})
        for fence in fences:
            if fence.mark and fence.mark[0] == "file":
                files[fence.mark[1].strip()] = fence.source
        used = set()
        for i, fence in enumerate(fences):
            if i in used or (fence.mark and fence.mark[0] == "file"):
                continue
            skip = fence.mark[1].strip() if fence.mark and fence.mark[0] == "not-run" else None
            line = _line(text, fence.region.start)
            if _is_session(fence):
                block = Block("session", line, _session(fence, text), skip)
                for step in block.steps:
                    name = re.fullmatch(r"cat (\S+)", step.commands[0].text)
                    if name and name.group(1) not in files:
                        step.defines = name.group(1)
                end = fence.region.end
            elif fence.language in ("sh", "bash"):
                output, end = None, fence.region.end
                after = fences[i + 1] if i + 1 < len(fences) else None
                if (after and after.language in OUTPUT and not _is_session(after) and not after.mark
                        and not text[fence.region.end:after.region.start].strip()):
                    used.add(i + 1)
                    output = Output(after.source.splitlines(), after.start, after.end)
                    end = after.region.end
                block = Block(fence.language, line, [Step(_commands(fence.source, line + 1), output)], skip)
            elif fence.language == "python":
                block = Block("python", line, skip=skip)
                region = Region(fence.region.start, fence.region.end, parsed=fence.region.lexemes["source"],
                                evaluator=_python(skip))
                region.block = block
                yield region
                continue
            else:
                continue
            region = Region(fence.region.start, end, parsed=block, evaluator=_shell)
            region.block = block
            yield region


def _python(skip: str | None):
    evaluate = PythonEvaluator()

    def python(example):
        return None if skip else evaluate(example)
    return python


def _shell(example) -> str | None:
    """Sybil's evaluator of a shell region: the failure, or None (the runner is in the namespace)."""
    return example.namespace["run_block"](example.parsed)


def command_blocks_without_language(path: Path) -> list[int]:
    """Lines of the blocks of a page that hold commands but are neither run nor marked (another language)."""
    document = Document(path.read_text(), str(path))
    return [_line(document.text, f.region.start) for f in _fences(document)
            if f.language not in SHELL + ("python",) and not _is_session(f) and not f.mark
            and COMMAND_START.match(f.source)]


def parse(path: Path) -> tuple[Document, dict[str, str]]:
    """The page as a Sybil document of examples, and the files its `file:` marks give."""
    parser = DocsParser()
    document = Document.parse(str(path), parser)
    return document, parser.files.get(str(path), {})
