"""impl.duplex against the duplex model (ADR-068 D1): lockstep and per-row replay.

The driver (conformance/drivers/duplex.py) only translates vocabulary; the
transition table lives in `models/duplex.py` alone.
"""

from __future__ import annotations

import pytest

from conformance.drivers.duplex import DRIVER
from conformance.drivers.duplex import OBSERVATIONS
from conformance.drivers.duplex import VERDICTS
from conformance.harness import replay_row
from conformance.harness import run_lockstep
from models import duplex as m


def test_every_trigger_is_driven() -> None:
    assert set(OBSERVATIONS) | set(VERDICTS) == {t.name for t in m.SPEC.triggers}


@pytest.mark.parametrize("row", [r.name for r in m.SPEC.rows])
def test_replay_row_witness(row: str) -> None:
    """Every row's shortest model witness runs the same on the implementation."""
    replay_row(DRIVER, row)


def test_lockstep() -> None:
    run_lockstep(DRIVER)
