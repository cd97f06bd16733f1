"""`--adapter module:Class`: an engine written in Python, driven through the adapter protocol.

    class MyAdapter:
        languages = ("sase",)                    # optional: other languages' vectors count as refused
        def compile(self, vector): ...           # -> anything; raise Refused("construct") to decline
        def run(self, compiled, vector): ...     # -> iterable of match rows (dicts, the Match.to_json form)

An exception with a `construct` attribute (Refused, cepkit's Unsupported) is a refusal of that construct.
An exception from `compile` that is a ValueError or a cepkit error reports a query error, one from `run` an
event error (cepkit.errors.QueryError / EventError say which wherever they are raised); any other
exception is a crash, and fails the vector."""
from __future__ import annotations

import importlib
import itertools
import importlib.util
import json
import sys
import traceback
from pathlib import Path
from typing import Any

from cepkit.conformance.harness import Case
from cepkit.conformance.kit import outside
from cepkit.conformance.kit.answers import Answer, Crash, Missing, Raised, Refusal, Rows
from cepkit.conformance.kit.protocol import Refused, Unavailable, vector_of
from cepkit.conformance.kit.rows import RowError, to_table
from cepkit.core.errors import CepkitError, EventError, QueryError, Unsupported


MAX_ROWS = 1_000_000     # match rows an adapter may give on one vector


class AdapterError(Exception):
    """The adapter named on the command line cannot be loaded."""


def load_adapter(spec: str) -> Any:
    """An instance of `module:Class` (the module may be a path to a .py file)."""
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise AdapterError(f"--adapter takes module:Class or path/to/file.py:Class, not {spec!r}")
    try:
        if module_name.endswith(".py") or "/" in module_name:
            path = Path(module_name)
            if not path.is_file():
                raise AdapterError(f"--adapter {spec}: no file {module_name}")
            spec_ = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec_)
            sys.modules[path.stem] = module
            spec_.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
        cls = getattr(module, attr)
    except (AdapterError, Unavailable):
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to import is the user's to see, in one line
        raise AdapterError(f"--adapter {spec}: cannot load it: {type(exc).__name__}: {exc}") from None
    adapter = cls() if isinstance(cls, type) else cls
    for method in ("compile", "run"):
        if not callable(getattr(adapter, method, None)):
            raise AdapterError(f"--adapter {spec}: {attr} has no {method}() method (see docs/conformance.md)")
    return adapter


def _reported(exc: Exception, phase: str) -> Answer:
    if isinstance(exc, Unavailable):
        return Missing(str(exc))
    if isinstance(exc, (Refused, Unsupported)) or isinstance(getattr(exc, "construct", None), str):
        return Refusal(exc.construct, str(exc))
    if isinstance(exc, QueryError):
        return Raised("query", str(exc))
    if isinstance(exc, EventError):
        return Raised("event", str(exc))
    if isinstance(exc, (ValueError, CepkitError)):
        return Raised(phase, f"{type(exc).__name__}: {exc}")
    return Crash(f"{type(exc).__name__} from {'compile' if phase == 'query' else 'run'}(): {exc}\n"
                 f"{traceback.format_exc(limit=-3)}")


def _exited(exc: SystemExit, phase: str) -> Answer:
    """An adapter that called sys.exit (or raised SystemExit) in `phase`: this vector's crash, named; the run
    goes on."""
    return Crash(f"the adapter exited (SystemExit({exc.code!r})) in {phase}(): an adapter returns match rows or "
                 "raises, it does not end the process")


class AdapterEngine:
    """A loaded adapter as a kit engine."""

    outside = True

    def __init__(self, spec: str):
        self.adapter = load_adapter(spec)
        self.name = getattr(self.adapter, "name", None) or spec
        self.label = f"adapter {spec}"
        self.declared = tuple(getattr(self.adapter, "languages", None) or outside.languages())

    def languages(self) -> list[str]:
        return outside.languages()

    def runs(self, case: Case) -> bool:
        return outside.runs(case)

    def answer(self, case: Case) -> Answer:
        if case.kit_language not in self.declared:
            return Refusal(f"language {case.kit_language}", f"the adapter runs {', '.join(self.declared)} only")
        vector = vector_of(case)
        try:
            compiled = self.adapter.compile(vector)
        except SystemExit as exc:   # a silent pass of the whole run before (exit 0, no output, no JUnit file)
            return _exited(exc, "compile")
        except Exception as exc:  # noqa: BLE001 - sorted by _reported
            return _reported(exc, "query")
        try:
            rows = list(itertools.islice(self.adapter.run(compiled, vector), MAX_ROWS + 1))
        except SystemExit as exc:
            return _exited(exc, "run")
        except Exception as exc:  # noqa: BLE001
            return _reported(exc, "event")
        if len(rows) > MAX_ROWS:
            return Crash(f"run() gave more than {MAX_ROWS} match rows (the bound of an answer)")
        text = "".join(json.dumps(r, default=str) + "\n" for r in rows)
        try:
            return Rows(to_table(rows, outside.reference_layout(case)), text)
        except RowError as exc:
            return Crash(f"malformed match row: {exc}")
