"""User-facing errors: every mistake in a query or in the events maps to one of these."""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator


class CepkitError(Exception):
    """Base class of every error cepkit reports to a user (never shown as a traceback)."""

    exit_code = 1


class QueryError(CepkitError):
    """A mistake in a query text: names the line and column and, where known, what was expected."""

    exit_code = 2

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 expected: list[str] | None = None):
        self.message = message
        self.line = line
        self.column = column
        self.expected = sorted(set(expected)) if expected else []
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"line {self.line}, column {self.column}: " if self.line is not None else ""
        tail = f" (expected one of: {', '.join(self.expected)})" if self.expected else ""
        return f"{where}{self.message}{tail}"


class Unsupported(QueryError):
    """An engine cannot run a construct of a valid query; raised at compile time, naming the construct."""

    def __init__(self, engine: str, construct: str, line: int | None = None, column: int | None = None):
        self.engine = engine
        self.construct = construct
        super().__init__(f"engine '{engine}' does not support {construct}", line, column)


class EventError(CepkitError):
    """A problem with the input events: names the row (1-based data row of the source) and the column."""

    exit_code = 3

    def __init__(self, message: str, row: int | None = None, column: str | None = None):
        self.message = message
        self.row = row
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = []
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.column is not None:
            parts.append(f"column '{self.column}'")
        where = (", ".join(parts) + ": ") if parts else ""
        return f"{where}{self.message}"


class Beyond64Bits(EventError):
    """An optimized engine's 64-bit arithmetic left its range on this input (the reference engines are exact):
    with no engine named, the run goes on on the next engine (cepkit/engine_choice.py)."""


class ResourceLimit(CepkitError):
    """A run outgrew a bound the user set or the default (live partial matches, `max_state`): names the
    pattern variable whose partial matches grew and what would bound them."""

    exit_code = 4


class CepkitWarning(UserWarning):
    """A query that runs but may take unbounded time or memory (a Kleene closure without WITHIN)."""


# ------------------------------------------------------------------------------------------- extras
# `pip install cepkit` is the core (parsers, reference and optimized engines, CLI, conformance kit); these
# extras (pyproject.toml [project.optional-dependencies]) add what each names. Checking one imports nothing.
EXTRAS: dict[str, tuple[str, ...]] = {
    "spark": ("pyspark",),            # cepkit spark, spark_jobs/
    "gpu": ("pyopencl", "mako"),      # --engine gpu, cepkit devices, gpu/
    "plot": ("matplotlib",),          # cepkit plot --out FILE.png
}


class MissingExtra(CepkitError):
    """What was asked for needs an extra that is not installed: one line naming the pip command."""

    exit_code = 2

    def __init__(self, what: str, extra: str, package: str):
        self.what, self.extra, self.package = what, extra, package
        super().__init__(f"{what} needs the {extra} extra: pip install 'cepkit[{extra}]'")


def missing_package(extra: str) -> str | None:
    """The first package of the extra that cannot be found (without importing it), else None."""
    import importlib.util

    for package in EXTRAS[extra]:
        try:
            if importlib.util.find_spec(package) is None:
                return package
        except (ImportError, ValueError):  # a finder that refuses it, or a half-removed module
            return package
    return None


def require_extra(extra: str, what: str) -> None:
    """MissingExtra ("{what} needs the {extra} extra: pip install 'cepkit[{extra}]'") unless it is installed."""
    package = missing_package(extra)
    if package is not None:
        raise MissingExtra(what, extra, package)


# ------------------------------------------------------------------------------------------- option names
# How a message names an option: the Python keyword (`ts_unit`, cepkit.run) unless the command line asks for
# its flags (`--ts-unit`, cepkit.cli.main), so that each user reads the name they typed.
_FLAGS: ContextVar[bool] = ContextVar("cepkit_option_flags", default=False)


def option_name(keyword: str) -> str:
    """The option as the caller names it: `ts_unit` from Python, `--ts-unit` on the command line."""
    return "--" + keyword.replace("_", "-") if _FLAGS.get() else keyword


def option_usage(keyword: str, values: str) -> str:
    """The option with its values ("s|ms"): `--ts-unit s|ms` on the command line, `ts_unit='s'|'ms'` from Python."""
    if _FLAGS.get():
        return f"{option_name(keyword)} {values}"
    return keyword + "=" + "|".join(repr(v) for v in values.split("|") if v != "...") + ("|..." if "..." in values else "")


@contextmanager
def options_as_flags() -> Iterator[None]:
    """Within the block, messages name options as command-line flags (option_name)."""
    token = _FLAGS.set(True)
    try:
        yield
    finally:
        _FLAGS.reset(token)


# Their public name: tracebacks and reprs say cepkit.errors.QueryError, and pickles name the module users import
# (cepkit/errors.py, which re-exports them).
for _public in (CepkitError, QueryError, Unsupported, EventError, Beyond64Bits, ResourceLimit, CepkitWarning,
                MissingExtra):
    _public.__module__ = "cepkit.errors"
