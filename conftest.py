"""Hypothesis profiles, chosen by HYPOTHESIS_PROFILE (default `dev`; `make verify` uses `ci`).

- dev: quick local runs.
- ci: the merge gate — at least 200 examples of 50 steps, derandomized, no database.
- thorough: 10× ci, for a long run before a release.
- mutation: small and derandomized, so a mutmut run over impl/ stays affordable.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, stateful_step_count=30, deadline=None)
settings.register_profile(
    "ci",
    max_examples=200,
    stateful_step_count=50,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=2000,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "mutation",
    max_examples=25,
    stateful_step_count=30,
    deadline=None,
    derandomize=True,
    database=None,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# Tests neither read nor write the result cache (models/cli/cache.py): a test may check a spec
# changed in memory, which no key sees. This reaches the commands they run as subprocesses
# too; tests/test_cache.py turns it back on, in a copy of the checkout.
os.environ["STATECHECK_NO_CACHE"] = "1"
