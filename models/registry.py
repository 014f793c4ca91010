"""Finds the specs: every module in `models/` that defines `SPECS` is one.

Adding a spec means adding a module; nothing else needs to list it.
"""

from __future__ import annotations

import importlib
import pkgutil

from models.kernel import Spec

_NOT_SPECS = {"kernel", "cli", "cli_mutants", "registry", "__main__"}


class UnknownSpec(LookupError):
    """A spec (or variant) name that no model module defines."""


def all_specs() -> dict[str, Spec]:
    import models

    found: dict[str, Spec] = {}
    for module in sorted(pkgutil.iter_modules(models.__path__), key=lambda m: m.name):
        if module.name in _NOT_SPECS or module.name.startswith("_"):
            continue
        for spec in getattr(importlib.import_module(f"models.{module.name}"), "SPECS", ()):
            if spec.name in found:
                raise RuntimeError(f"two model modules define a spec named {spec.name!r}")
            found[spec.name] = spec
    return found


def lookup(name: str) -> Spec:
    """`duplex`, or a variant as `wave:seed`."""
    specs = all_specs()
    base, _, variant = name.partition(":")
    if base not in specs:
        known = ", ".join(sorted(specs))
        raise UnknownSpec(f"unknown spec {base!r}; known specs: {known}")
    spec = specs[base]
    if not variant:
        return spec
    names = [v.name for v in spec.variants]
    if variant not in names:
        known = ", ".join(f"{base}:{v}" for v in names) or "none"
        raise UnknownSpec(f"spec {base!r} has no variant {variant!r}; its variants: {known}")
    return spec.with_variant(variant)


def expand(names: list[str]) -> list[Spec]:
    """The named specs (all when none are named), each followed by its variants."""
    specs = all_specs()
    chosen = [lookup(n) for n in names] if names else list(specs.values())
    result: list[Spec] = []
    for spec in chosen:
        result.append(spec)
        if ":" not in spec.name:
            result.extend(spec.with_variant(v.name) for v in spec.variants)
    return result
