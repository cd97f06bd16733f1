"""Where and how the docs' commands run: a directory of their own holding a copy of examples/, the page's
files, and a `.venv/bin` whose `cepkit`, `python` and `python3` are this checkout's (first on PATH, so
`cepkit ...` and `.venv/bin/cepkit ...` both run it). The output is standard output and standard error
together, as a terminal shows them (unbuffered, so in the order written; no progress display off a
terminal)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.docs.markdown import ROOT, Block

TIMEOUT_S = 120
TOOLS = {"cepkit": f'exec "{sys.executable}" -m cepkit "$@"', "python": f'exec "{sys.executable}" "$@"'}


def prepare(workdir: Path, files: dict[str, str]) -> Path:
    """The directory the page's commands run in: examples/, the page's files, .venv/bin."""
    shutil.copytree(ROOT / "examples", workdir / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    tools = workdir / ".venv" / "bin"
    tools.mkdir(parents=True)
    for name, line in {**TOOLS, "python3": TOOLS["python"]}.items():
        (tools / name).write_text(f"#!/bin/sh\n{line}\n")
        (tools / name).chmod(0o755)
    for name, text in files.items():
        (workdir / name).parent.mkdir(parents=True, exist_ok=True)
        (workdir / name).write_text(text)
    return workdir


def environment(workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update(PATH=f"{workdir / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(ROOT),
               PYTHONUNBUFFERED="1", COLUMNS="80")
    return env


def run(command: str, workdir: Path) -> tuple[int, list[str]]:
    """The command's exit status and the lines it printed (both streams, as written)."""
    done = subprocess.run(["bash", "-c", command], cwd=workdir, env=environment(workdir), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT_S, text=True)
    return done.returncode, done.stdout.splitlines()


def run_block(block: Block, workdir: Path):
    """Each step of the block run in order: yields (step, lines printed) after checking each exit status;
    raises CommandFailed on the first command that exits otherwise than its page says."""
    for step in block.steps:
        if step.defines:
            (workdir / step.defines).write_text("\n".join(step.output.lines) + "\n")
        printed = []
        for command in step.commands:
            status, lines = run(command.text, workdir)
            printed += lines
            if status != command.status:
                raise CommandFailed(command, status, lines)
        yield step, printed


class CommandFailed(Exception):
    def __init__(self, command, status: int, lines: list[str]) -> None:
        tail = "\n".join(lines[-30:])
        super().__init__(f"line {command.line}: `{command.text}` exited {status}, the page expects {command.status}"
                         f"; it printed:\n{tail}")
        self.command = command
