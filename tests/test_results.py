"""Typed results (issue 15 §1): verify.json read back is the checker's own results.

One encoder writes every trace (`trace_json`, check-trace's logs and ITF share
`values.encode`), and `SpecResults.from_json` reads it back into the kernel's
`CheckResult` and `Trace`, so the page never rebuilds a trace from text.
"""

from __future__ import annotations

import json

from models.cli.registry import lookup
from models.cli.results import SpecResults
from models.kernel.checks import verify
from models.kernel.itf import to_itf
from models.kernel.trace import trace_json


def test_verify_json_reads_back_into_the_same_results() -> None:
    spec = lookup("duplex")
    report = verify(spec)
    written = SpecResults.of(report)
    read = SpecResults.from_json(spec, json.loads(json.dumps(written.to_json())))
    assert read.reachable_states == written.reachable_states
    for before, after in zip(written.checks, read.checks, strict=True):
        assert after == type(after)(**{**before.__dict__, "seconds": round(before.seconds, 4)})


def test_verify_json_and_itf_spell_a_list_value_alike() -> None:
    spec = lookup("duplex")
    check = next(c for c in verify(spec).checks if c.id == "grant-user-in-overlap")
    assert check.trace is not None
    last = trace_json(spec, check.trace)[-1]["outputs"]["commands"]
    itf = to_itf(spec, check.trace)["states"][-1]["statecheck::outputs"]["commands"]
    assert last == itf == ["MUTE", "CANCEL"]


def test_an_entry_for_another_spec_is_not_read_as_this_ones() -> None:
    spec, other = lookup("duplex"), lookup("policy")
    entry = SpecResults.of(verify(other)).to_json()
    try:
        SpecResults.from_json(spec, entry)
    except KeyError:
        return
    raise AssertionError("policy's results were read as duplex's")
