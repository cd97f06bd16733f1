"""A registered cepkit engine as a kit engine: each vector through the conformance harness."""
from __future__ import annotations

import traceback

from cepkit.conformance.harness import Case, run_case
from cepkit.conformance.kit.vectors import engine_languages
from cepkit.conformance.kit.answers import Answer, Crash, Raised, Refusal, Rows
from cepkit.core import registry
from cepkit.core.errors import CepkitError, EventError, Unsupported


class RegisteredEngine:
    """`--engine NAME`: runs the vectors of every language the engine is registered for, variants included."""

    outside = False

    def __init__(self, name: str):
        self.name = name
        self.label = f"engine '{name}'"

    def languages(self) -> list[str]:
        return engine_languages(self.name)

    def runs(self, case: Case) -> bool:
        return self.name in (case.engines or registry.engines_for(case.language))

    def answer(self, case: Case) -> Answer:
        try:
            return Rows(run_case(case, self.name))
        except Unsupported as exc:
            return Refusal(exc.construct, str(exc))
        except CepkitError as exc:
            return Raised("event" if isinstance(exc, EventError) else "query", str(exc), exc)
        except Exception as exc:  # noqa: BLE001 - an engine bug is a failed vector, not the end of the run
            return Crash(f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-3)}")
