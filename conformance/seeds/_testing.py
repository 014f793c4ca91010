"""For tests: a plugin's real seed harness, or a visible skip (a failure under REQUIRE_SEEDS=1)."""

from __future__ import annotations

import types

import pytest

from conformance.seeds import Harness
from conformance.seeds import SeedMissing
from conformance.seeds import build_dir
from conformance.seeds import required
from conformance.seeds import seeds_dir


def seed_harness(plugin: types.ModuleType) -> Harness:
    """Build `plugin`'s seed harness (cached by `make seeds`)."""
    try:
        harness: Harness = plugin.build(seeds_dir(), build_dir())
    except SeedMissing as err:
        if required():
            pytest.fail(f"REQUIRE_SEEDS=1: {err}")
        pytest.skip(f"no seed to run: {err}")
    return harness
