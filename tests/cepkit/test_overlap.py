"""cepkit/overlap.py: a chunk's matches are written by one thread while the next chunk is read and matched;
the writes keep their order, an error in one comes out of the run, and a stopped run waits for the write in
flight before its writer cleans up."""
from __future__ import annotations

import threading
import time

import pytest

from cepkit.overlap import OverlappedWrites


def test_writes_keep_their_order_and_run_beside_the_caller():
    seen, threads = [], set()

    def write(table, batch=None):
        time.sleep(0.01)
        seen.append(table)
        threads.add(threading.current_thread().name)

    with OverlappedWrites(write, enabled=True) as w:
        for k in range(5):
            w(k)
        w.wait()
        assert seen == [0, 1, 2, 3, 4]
    assert threads and all(name.startswith("cepkit-writer") for name in threads)


def test_an_error_in_a_write_comes_out_of_the_next_call():
    def write(table, batch=None):
        if table == 1:
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        with OverlappedWrites(write, enabled=True) as w:
            w(0)
            w(1)
            w(2)   # waits for 1 first: its error is raised here


def test_a_stopped_run_waits_for_the_write_in_flight():
    done = []

    def write(table, batch=None):
        time.sleep(0.2)
        done.append(table)

    with pytest.raises(KeyboardInterrupt):
        with OverlappedWrites(write, enabled=True) as w:
            w("last")
            raise KeyboardInterrupt
    assert done == ["last"]   # finished before the block's exit (the writer's cleanup) went on


def test_disabled_writes_at_once():
    seen = []
    with OverlappedWrites(lambda t, b=None: seen.append(t), enabled=False) as w:
        w(1)
        assert seen == [1]


def test_a_write_sees_the_callers_context():
    """The run's time form and --max-ids live in context variables (cepkit/forms.py): a write in the thread
    reads the caller's (chunked runs wrote ticks for ISO timestamps before this)."""
    import contextvars

    var = contextvars.ContextVar("v", default="thread's")
    seen = []
    var.set("caller's")
    with OverlappedWrites(lambda t, b=None: seen.append(var.get()), enabled=True) as w:
        w(0)
    assert seen == ["caller's"]
