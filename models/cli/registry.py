"""Finds the specs: every plain module in `models/` is one and defines `SPECS`.

Adding a spec means adding a module; nothing else needs to list it. A module
that cannot be loaded (a `SpecError` when its spec is built, an import error,
any exception) is recorded as broken with a one-line error instead of stopping
everything: `verify` reports it as a failed spec, `list` shows it, and the
commands about the other specs still work.
"""

from __future__ import annotations

import importlib
import pkgutil
import traceback
from dataclasses import dataclass
from dataclasses import field

from models.kernel import Spec


class UnknownSpec(LookupError):
    """A spec (or variant) name that no model module defines."""


class BrokenSpec(LookupError):
    """A spec whose module could not be loaded; `args[0]` is the one-line error."""

    def __init__(self, broken: Broken) -> None:
        super().__init__(f"models/{broken.module}.py is broken: {broken.error}")
        self.broken = broken


@dataclass(frozen=True)
class Broken:
    """A model module that raised while being imported or while building its specs."""

    module: str
    error: str  # one line: the exception's type and message
    traceback: str


@dataclass(frozen=True)
class Registry:
    specs: dict[str, Spec] = field(default_factory=dict)
    broken: dict[str, Broken] = field(default_factory=dict)
    modules: list[str] = field(default_factory=list)  # every spec module, loaded or broken


def load() -> Registry:
    """Every spec module, loaded or broken, in module-name order."""
    import models

    registry = Registry()
    for module in sorted(pkgutil.iter_modules(models.__path__), key=lambda m: m.name):
        if module.ispkg or module.name.startswith("_"):  # kernel/, cli/, __main__
            continue
        registry.modules.append(module.name)
        try:
            specs = tuple(getattr(importlib.import_module(f"models.{module.name}"), "SPECS", ()))
            for spec in specs:
                if not isinstance(spec, Spec):
                    raise TypeError(f"SPECS holds {type(spec).__name__}, not Spec")
                if spec.name in registry.specs:
                    raise ValueError(f"another model module already defines spec {spec.name!r}")
        except Exception as err:  # any failure is this module's, not the tool's
            registry.broken[module.name] = Broken(
                module.name, one_line(err), "".join(traceback.format_exception(err))
            )
            continue
        registry.specs.update((spec.name, spec) for spec in specs)
    return registry


def one_line(err: BaseException) -> str:
    """`SpecError: row 'x': no source citation`: the type and the first line of the message."""
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def all_specs() -> dict[str, Spec]:
    """The specs that loaded (see `load` for the broken ones)."""
    return load().specs


def lookup(name: str, registry: Registry | None = None) -> Spec:
    """`duplex`, or a variant as `wave:seed`."""
    registry = registry or load()
    specs = registry.specs
    base, _, variant = name.partition(":")
    if base not in specs:
        if base in registry.broken:
            raise BrokenSpec(registry.broken[base])
        known = ", ".join(sorted(specs)) or "none"
        broken = "".join(f"; broken: models/{m}.py" for m in registry.broken)
        raise UnknownSpec(f"unknown spec {base!r}; known specs: {known}{broken}")
    spec = specs[base]
    if not variant:
        return spec
    names = [v.name for v in spec.variants]
    if variant not in names:
        known = ", ".join(f"{base}:{v}" for v in names) or "none"
        raise UnknownSpec(f"spec {base!r} has no variant {variant!r}; its variants: {known}")
    return spec.with_variant(variant)


def expand(names: list[str], registry: Registry | None = None) -> list[Spec]:
    """The named specs (all when none are named), each followed by its variants."""
    registry = registry or load()
    chosen = [lookup(n, registry) for n in names] if names else list(registry.specs.values())
    result: list[Spec] = []
    for spec in chosen:
        result.append(spec)
        if ":" not in spec.name:
            result.extend(spec.with_variant(v.name) for v in spec.variants)
    return result
