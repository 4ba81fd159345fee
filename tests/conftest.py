"""Shared pytest configuration: hypothesis profiles.

"ci" (the default) is derandomized so that every run of the suite checks the
same examples and stays within its time budget; "explore" draws fresh random
examples (``HYPOTHESIS_PROFILE=explore``) for hunting new failures.
Suites set their own ``max_examples`` (as ``example_budget.examples(n)``);
profiles set the rest.
"""
import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

settings.register_profile("ci", derandomize=True, **_COMMON)
settings.register_profile("explore", **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
