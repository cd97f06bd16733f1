"""Run `python -m cepkit` as a user at a terminal would: stderr on a pseudo-terminal (pty), stdout on a pipe,
so that a test sees what is drawn on the terminal and what goes down the pipe, apart."""
from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cepkit(argv: list[str], terminal: bool, columns: int = 120, python: list[str] | None = None,
           env: dict[str, str] | None = None) -> tuple[int, bytes, str]:
    """(exit code, stdout, stderr) of `python -m cepkit argv` (`python`: other arguments of python's than
    `-m cepkit`), stderr on a `columns`-wide pseudo-terminal (or, not `terminal`, on a pipe), stdout on a
    pipe; progress bars drawn at once (CEPKIT_PROGRESS_DELAY=0, unless `env` says otherwise)."""
    env = {**os.environ, "CEPKIT_PROGRESS_DELAY": "0", "PYTHONPATH": str(ROOT), **(env or {})}
    command = [sys.executable, *(python or ["-m", "cepkit"]), *argv]
    if not terminal:
        done = subprocess.run(command, capture_output=True, env=env, cwd=ROOT, timeout=300)
        return done.returncode, done.stdout, done.stderr.decode()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=slave, env=env, cwd=ROOT)
    os.close(slave)
    err = bytearray()

    def drain() -> None:   # the terminal read while the child writes it (its buffer is small)
        while True:
            try:
                piece = os.read(master, 65536)
            except OSError:   # the child closed its side
                return
            if not piece:
                return
            err.extend(piece)

    reader = threading.Thread(target=drain)
    reader.start()
    out, _ = child.communicate(timeout=300)
    reader.join(timeout=60)
    os.close(master)
    return child.returncode, out, err.decode()


def frames(err: str, label: str) -> list[str]:
    """The bar's frames drawn on the terminal (each starts at a carriage return), those of `label`."""
    return [f.strip() for f in err.replace("\r\n", "\n").split("\r") if f.startswith(label)]
