"""How many examples each fuzz test draws: CEPKIT_FUZZ_EXAMPLES, else 100 in CI (CI=true), else 25;
CEPKIT_FUZZ_SHRINK=0 turns shrinking off (a faster run that reports unshrunk failures)."""
from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

EXAMPLES = int(os.environ.get("CEPKIT_FUZZ_EXAMPLES") or (100 if os.environ.get("CI") else 25))
SUPPRESSED = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example,
              HealthCheck.filter_too_much]


def fuzz_settings(share: float = 1.0) -> settings:
    """Explicit settings for a fuzz test: `share` of EXAMPLES examples (at least 5), no deadline."""
    phases = [Phase.explicit, Phase.reuse, Phase.generate]
    if os.environ.get("CEPKIT_FUZZ_SHRINK", "1") != "0":
        phases.append(Phase.shrink)
    return settings(max_examples=max(5, int(EXAMPLES * share)), deadline=None, suppress_health_check=SUPPRESSED,
                    phases=phases)


def explain(case, out, problem: str) -> str:
    """The assertion message of a failed property: what was run and what came back."""
    return (f"{problem}\n  input: {case.lang}: {case.how}\n  args: {' '.join(case.args)}\n"
            f"  query: {case.query[:300]!r}\n  events ({case.events_name}): {case.events[:300]!r}\n"
            f"  exit: {out.code} {out.error}\n  stderr: {out.stderr[-600:]}")
