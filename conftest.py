"""Hypothesis profiles, chosen by HYPOTHESIS_PROFILE (default `dev`; `make verify` uses `ci`),
and the `spec_module` fixture.

- dev: quick local runs.
- ci: the merge gate — at least 200 examples of 50 steps, derandomized, no database.
- thorough: 10× ci, for a long run before a release.
- mutation: small and derandomized, so a mutmut run over impl/ stays affordable.
"""

import os
import sys
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import settings

import models
from models.cli.kit import collect_less

collect_less()  # as `python -m models` does: the conformance runs allocate as the checks do

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


@pytest.fixture
def spec_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str, str], str]]:
    """`spec_module(name, text)` writes `text` as a user's spec module `models.<name>`
    (in `tmp_path`, put on the models package's path, where the command line finds every
    spec module) and returns `name`; the module is forgotten after the test."""
    monkeypatch.setattr(models, "__path__", [*models.__path__, str(tmp_path)])
    written: list[str] = []

    def write(name: str, text: str) -> str:
        (tmp_path / f"{name}.py").write_text(text)
        written.append(name)
        return name

    yield write
    for name in written:
        sys.modules.pop(f"models.{name}", None)
