"""Every spec module loads: a broken one fails here under its own name, and only it.

The registry records a module that raises (a `SpecError`, an import error)
instead of stopping; this test turns each record into one failing test, so
the pytest run names the broken module and still runs everything else
(`--continue-on-collection-errors` keeps the other test modules running when
a test module imports the broken one).
"""

from __future__ import annotations

import pytest

from models.cli.registry import load

REGISTRY = load()


@pytest.mark.parametrize("module", REGISTRY.modules)
def test_the_spec_module_loads(module: str) -> None:
    broken = REGISTRY.broken.get(module)
    assert broken is None, f"models/{module}.py is broken: {broken.error if broken else ''}"


def test_the_registry_finds_the_seed_specs() -> None:
    assert {"duplex", "policy", "admission", "wave"} <= set(REGISTRY.specs)
    assert {"duplex", "policy", "wave"} <= set(REGISTRY.modules)
