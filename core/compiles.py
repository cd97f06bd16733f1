"""What Numba compiled while a block ran: how many functions, which ones at the top, and the seconds spent (its
compile events, nested compiles counted once). `cepkit run` says so when a run compiled (a first run after an
install that did not run `cepkit warm`, or a new MATCH_RECOGNIZE query's generated module)."""
from __future__ import annotations

from typing import Any


class Compiles:
    """A listener of Numba's compile events between `start()` and `stop()` (the compiled engines' runner,
    `cepkit warm` and the Spark tasks count with it)."""

    def __init__(self) -> None:
        from numba.core import event  # lazy: Numba loads only where compiles are counted

        self.event = event
        self.recorder: Any = event.RecordingListener()

    def start(self) -> "Compiles":
        self.event.register("numba:compile", self.recorder)
        return self

    def stop(self) -> None:
        self.event.unregister("numba:compile", self.recorder)

    @property
    def count(self) -> int:
        """Functions compiled (each signature of each function once)."""
        return sum(1 for _, e in self.recorder.buffer if e.is_start)

    def top(self) -> tuple[list[str], float]:
        """(the functions compiled at the top, not as another's callee, by name; the seconds they took)."""
        depth, began, seconds, names = 0, 0.0, 0.0, []
        for t, e in self.recorder.buffer:
            if e.is_start:
                if depth == 0:
                    began = t
                    func = getattr(e.data.get("dispatcher"), "py_func", None)
                    names.append(f"{func.__module__.rsplit('.', 1)[-1]}.{func.__qualname__}" if func else "?")
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    seconds += t - began
        return names, seconds

    def line(self) -> str | None:
        """The stderr line for a run that compiled, else None."""
        if not self.count:
            return None
        names, seconds = self.top()
        shown = ", ".join(dict.fromkeys(names[:4])) + (", ..." if len(set(names)) > 4 else "")
        return (f"compiled {self.count} Numba functions in {seconds:.1f} s on this run ({shown}); they are cached "
                "now: `cepkit warm` compiles every engine's kernels ahead")
