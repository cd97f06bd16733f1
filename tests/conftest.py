"""Hypothesis profiles: bounded in CI (CI=true), more examples locally (HYPOTHESIS_PROFILE=thorough for more)."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=1000, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=3000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
