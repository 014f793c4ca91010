"""The mutant gate's third layer, `seed`: the seed's own logs against a mutated model.

For one spec, `SeedLayer.open` finds the seed plugin whose SPEC it is, builds
its harness once (cached as `make seeds` caches it), and runs a fixed set of
walks through the unmodified seed once: every row witness of the spec (and of
the plugin's SEED_VARIANT), the plugin's DIRECTED_WALKS and `RANDOM_WALKS`
seeded random walks. The logs (mapped by the plugin's `to_model`) are parsed
once; `kill(mutant)` then checks each one with check-trace against the mutant,
so a mutant costs only the checking.

What the logs are checked against is what `make seeds` checks them against:
the spec itself, or, where the project deliberately departs from the seed
(wave: the KB8 fixes), the seed variant. For wave the mutant is the fixed
model with one point changed, and the seed runs the seed's semantics, so the
logs go to the **mutated seed variant**: the seed variant's rows applied on
top of the mutant (`with_variant`). A mutation of a row the variant replaces
or removes is invisible there (the seed does something else at that point by
design), so this layer cannot kill it; every other mutation the seed's
behaviour exposes is a kill. The unmutated target must accept every log, or
the layer is broken and says so.

Where SEEDS_DIR holds no seed source the layer reports itself SKIPPED, loudly;
under REQUIRE_SEEDS=1 (.ci/run) that is a failure, as in `make seeds`.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from dataclasses import replace
from types import ModuleType

import conformance.seeds as framework
from conformance.seeds import BuildError
from conformance.seeds import HarnessError
from conformance.seeds import SeedMissing
from conformance.seeds.walks import model_walks
from conformance.seeds.walks import witness_walks
from models.kernel.spec import Spec
from models.kernel.tracecheck import Log
from models.kernel.tracecheck import check_trace
from models.kernel.tracecheck import parse_objects

# Random walks per spec, beside the row witnesses and directed walks: enough to vary the
# arguments the witnesses fix, few enough that checking them costs little per mutant.
RANDOM_WALKS = 60
LENGTH = 12
NOT_PLUGINS = {"walks"}


class SeedLayerError(Exception):
    """The seed layer cannot run: a harness that will not build or run, or a seed the
    unmutated model rejects (the seed differential is red: `make seeds` shows why)."""


def _plugin_for(spec_name: str) -> ModuleType | None:
    for info in pkgutil.iter_modules(framework.__path__):
        if info.name.startswith("_") or info.name in NOT_PLUGINS:
            continue
        module = importlib.import_module(f"conformance.seeds.{info.name}")
        if spec_name == module.SPEC:
            return module
    return None


@dataclass(frozen=True)
class SeedLayer:
    plugin: str
    variant: str | None
    logs: tuple[Log, ...]

    @classmethod
    def open(cls, spec: Spec) -> SeedLayer | str | None:
        """The layer for `spec`; a one-line reason when its seed is missing (skipped);
        None when no seed plugin covers the spec. Raises SeedLayerError when it cannot run
        (and, under REQUIRE_SEEDS=1, for a missing seed)."""
        plugin = _plugin_for(spec.name)
        if plugin is None:
            return None
        name = plugin.__name__.rsplit(".", 1)[1]
        try:
            harness = plugin.build(framework.seeds_dir(), framework.build_dir())
        except SeedMissing as err:
            if framework.required():
                raise SeedLayerError(f"seed {name}: missing (REQUIRE_SEEDS=1): {err}") from None
            return f"seed {name}: {err}"
        except BuildError as err:
            raise SeedLayerError(f"seed {name}: the harness will not build: {err}") from None
        variant: str | None = plugin.SEED_VARIANT
        target = spec.with_variant(variant) if variant else spec
        enabled = getattr(plugin, "enabled", None)
        walks = witness_walks(spec)
        if variant:
            walks += witness_walks(target)
        walks += list(getattr(plugin, "DIRECTED_WALKS", ()))
        generated = model_walks(spec, random_walks=RANDOM_WALKS, length=LENGTH, enabled=enabled)
        walks += list(generated.walks)[-RANDOM_WALKS:]  # its random walks (seed 8, as make seeds)
        try:
            raw = harness.run(walks)
        except HarnessError as err:
            raise SeedLayerError(f"seed {name}: the harness failed: {err}") from None
        to_model = getattr(plugin, "to_model", lambda log: log)
        logs = tuple(parse_objects(target, enumerate(to_model(log), start=1)) for log in raw)
        layer = cls(name, variant, logs)
        if (found := layer.kill(spec)) is not None:
            raise SeedLayerError(
                f"seed {name}: the unmutated {target.name} rejects the seed ({found[0]}): "
                "run `make seeds`"
            )
        return layer

    def target(self, mutant: Spec, original: Spec) -> Spec:
        """What the seed's logs are checked against: the mutant, or the mutated seed variant."""
        if self.variant is None:
            return mutant
        return replace(mutant, variants=original.variants).with_variant(self.variant)

    def kill(self, mutant: Spec, original: Spec | None = None) -> tuple[str, int | None] | None:
        """(check, steps) for the first seed log the (mutated) model rejects, or None."""
        target = self.target(mutant, original or mutant)
        for k, log in enumerate(self.logs):
            verdict = check_trace(target, log, explain=False)
            if not verdict.ok:
                return f"check-trace of {self.plugin} seed walk {k}", verdict.step
        return None

    def __len__(self) -> int:
        return len(self.logs)
