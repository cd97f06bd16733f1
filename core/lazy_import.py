"""A module imported on first use: `pd = lazy_module("pandas")` costs nothing until an attribute of `pd` is
read, so a command that never needs pandas never imports it (docs/performance.md "Fast start")."""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for a module; the first attribute read imports it (sys.modules holds it from then on only)."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str):
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy_module(name: str) -> Any:
    return LazyModule(name)
