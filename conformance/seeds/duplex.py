"""The duplex.rs seed plugin: ADR-068 D1's floor machine, seed vs model vs impl.duplex.

The harness (rust/duplex_main.rs) compiles the unmodified seed with rustc alone,
beside a stub `crate::impulse::ImpulseType`. impl is driven through the
conformance driver of conformance/drivers/duplex.py.

One documented difference: the seed's `Erl(f32)` narrows every ERL to f32 where
impl.duplex keeps the Python float (impl/duplex.py docstring, README "Seed
differential"): 0.49999999 stays below floor.rs's 0.50 barge floor in impl and
becomes 0.5 in the seed; 1e39 becomes inf; 1e-46 becomes 0.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

from conformance.seeds import RUST
from conformance.seeds import Allowed
from conformance.seeds import Harness
from conformance.seeds import Log
from conformance.seeds import ProcessHarness
from conformance.seeds import Walk
from conformance.seeds import driver_logs
from conformance.seeds import rustc_build
from conformance.seeds import seed_path

SPEC = "duplex"
SEED_FILE = "duplex.rs"
SEED_VARIANT: str | None = None


def f32(x: float) -> float:
    return float(ctypes.c_float(x).value)


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    if v in ("nan", "inf", "-inf"):
        return float(v)
    return None


def only_erl_narrowed(walk: Walk, seed: Log, impl: Log) -> bool:
    """Every difference is a number the seed holds as f32(impl's float), in an ERL field."""

    def same_shape(a: Any, b: Any, key: str) -> bool:
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(same_shape(a[k], b[k], k) for k in a)
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(
                same_shape(x, y, key) for x, y in zip(a, b, strict=True)
            )
        if a == b:
            return True
        x, y = _number(a), _number(b)
        if key not in ("value", "last_erl", "impulse_erl") or x is None or y is None:
            return False
        narrowed = f32(y)
        return narrowed == x or (narrowed != narrowed and x != x)

    return same_shape(seed, impl, "")


ALLOWED = (
    Allowed(
        "erl-f32-narrowing",
        "impl/duplex.py docstring, 'The ERL is a Python float'; README 'Seed differential' "
        "(duplex.rs `Erl(f32)`, docs/duplex-d1.md §4: the ERL is a scalar folded into claims)",
        only_erl_narrowed,
    ),
)


def build(seeds_dir: Path, build_dir: Path) -> Harness:
    seed = seed_path(seeds_dir, SEED_FILE)
    binary = rustc_build(
        "duplex", RUST / "duplex_main.rs", {"SEED": seed, "JSON": RUST / "json.rs"}, build_dir
    )
    return ProcessHarness([str(binary)])


def impl_logs(walks: list[Walk]) -> list[Log]:
    from conformance.drivers.duplex import DRIVER

    return driver_logs(DRIVER, walks)
