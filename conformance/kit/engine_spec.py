"""Which engine a kit run drives: a registered cepkit engine, a Python adapter or an external command, as plain
data that crosses into the child process running it (conformance/kit/worker.py)."""
from __future__ import annotations

from dataclasses import dataclass

from cepkit.conformance.harness import Case
from cepkit.conformance.kit import outside
from cepkit.conformance.kit.vectors import engine_languages
from cepkit.core import registry


class KitUsageError(Exception):
    """The engine named on the command line cannot be run at all (a usage error, before any vector runs)."""


@dataclass(frozen=True)
class EngineSpec:
    kind: str                   # "engine" (registered), "adapter" (module:Class) or "command" (a command line)
    value: str                  # the engine's name, the adapter's spec, the command line
    timeout: float = 60.0       # seconds one vector may take

    @property
    def label(self) -> str:
        return f"engine '{self.value}'" if self.kind == "engine" else f"{self.kind} {self.value}"

    @property
    def outside(self) -> bool:
        return self.kind != "engine"

    def languages(self) -> list[str]:
        """The languages whose vectors it runs."""
        if self.outside:
            return outside.languages()
        return engine_languages(self.value)

    def runs(self, case: Case) -> bool:
        """Whether it runs the case: an outside engine each vector once, a registered one its variants too."""
        if self.outside:
            return outside.runs(case)
        return self.value in (case.engines or registry.engines_for(case.language))

    def build(self):
        """The kit engine (loads the adapter, finds the command): KitUsageError when it cannot be run."""
        from cepkit.conformance.kit.adapter import AdapterEngine, AdapterError    # lazy: only what the kind needs
        from cepkit.conformance.kit.command import CommandEngine, CommandError
        from cepkit.conformance.kit.registered import RegisteredEngine

        try:
            if self.kind == "adapter":
                return AdapterEngine(self.value)
            if self.kind == "command":
                return CommandEngine(self.value, self.timeout)
        except (AdapterError, CommandError) as exc:
            raise KitUsageError(str(exc)) from None
        if not self.languages():
            names = sorted({n for (_, n) in registry.ENGINES})
            raise KitUsageError(f"--engine {self.value}: no such engine (registered: {', '.join(names)})")
        return RegisteredEngine(self.value)
