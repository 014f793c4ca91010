"""Unit tests for `impl.waves`, the port of `seeds/transport.ts`.

One test (or parametrized group) per arm of wave-transport.md §4, the KB8 closures, the
cancellation decision, timeout resolution and formatting, and the `MemoryWaveAdapter` knobs.
Each runs on virtual time (`run_virtual`, conformance/fakes.py: time jumps to the next timer
whenever nothing is ready, so delays are exact and no test waits); `Faulty` adds the faults
the memory adapter does not simulate. One test, the leak check, reaches inside and says why.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
from collections.abc import Callable
from collections.abc import Coroutine
from typing import Any
from typing import TypeVar
from typing import cast

import pytest

from conformance.fakes import Faulty
from conformance.fakes import VirtualClock
from conformance.fakes import forever
from conformance.fakes import run_virtual
from impl import waves
from impl.waves import WAVE_ACCEPTANCE
from impl.waves import WAVE_STOP_GRACE_MS
from impl.waves import WAVE_TIMEOUT_MS
from impl.waves import MemoryWaveAdapter
from impl.waves import MemoryWaveCalls
from impl.waves import TerminalOutcome
from impl.waves import WaveAdapter
from impl.waves import WaveAggregate
from impl.waves import WaveChildReceipt
from impl.waves import WaveCompletion
from impl.waves import WavePing
from impl.waves import WaveReceiptState
from impl.waves import WaveRunFailure
from impl.waves import WaveRunFailureReason
from impl.waves import WaveRunHandle
from impl.waves import WaveScriptReceipt
from impl.waves import WaveScriptResult
from impl.waves import WaveScriptSpec
from impl.waves import WaveScriptStart
from impl.waves import WaveSpawnParams
from impl.waves import run_wave_script
from impl.waves import start_wave_script

_T = TypeVar("_T")
Reason = WaveRunFailureReason
State = WaveReceiptState

FLOW = "pr-review"
SCHEMA = {"type": "object"}
HANDLE = WaveRunHandle(async_id="wave-async-1", async_dir="/memory/wave-async-1")
CHILD_A = WaveChildReceipt(key="a", agent="reviewer", run_id="r-a", success=True)
CHILD_B = WaveChildReceipt(key="b")


def spec(timeout_ms: float | None = 5_000, model: str | None = None) -> WaveScriptSpec:
    return WaveScriptSpec(
        flow=FLOW, workflow_script="run()", output_schema=SCHEMA, model=model, timeout_ms=timeout_ms
    )


def match(**fields: Any) -> WaveCompletion:
    return WaveCompletion(async_id=HANDLE.async_id, async_dir=HANDLE.async_dir, **fields)


def run(main: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    """asyncio.run on virtual time, with a watchdog: a test that hangs fails (cancelled) at 3 s."""

    async def watched() -> _T:
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        # Twice: after the first cancel a wave still awaits its (maybe hanging) stop.
        watchdogs = [loop.call_later(delay, task.cancel) for delay in (3, 3.5)]
        try:
            return await main()
        finally:
            for watchdog in watchdogs:
                watchdog.cancel()

    return run_virtual(watched())


def ids(
    state: WaveReceiptState, children: list[WaveChildReceipt] | None = None
) -> WaveScriptReceipt:
    """The receipt of a spawned run."""
    return WaveScriptReceipt(
        state=state, children=children or [], run_id=HANDLE.async_id, async_dir=HANDLE.async_dir
    )


def no_ids(state: WaveReceiptState) -> WaveScriptReceipt:
    return WaveScriptReceipt(state=state, children=[])


def assert_quiet() -> None:
    """Nothing of the wave is left running."""
    assert asyncio.all_tasks() == {asyncio.current_task()}


def counts(adapter: MemoryWaveAdapter) -> tuple[int, int, int]:
    """(stop, read, unsubscribe) calls — the side-effect columns of §4."""
    calls = adapter.calls
    return len(calls.stop), len(calls.read_aggregate), calls.unsubscribe


async def go(
    adapter: MemoryWaveAdapter, s: WaveScriptSpec | None = None, signal: asyncio.Event | None = None
) -> WaveScriptResult:
    result = await run_wave_script(adapter, s or spec(), signal)
    assert_quiet()
    assert adapter.subscribers == 0
    return result


def failure(result: WaveScriptResult | WaveScriptStart) -> tuple[str, str]:
    assert result.failure is not None
    assert result.failure.key is None
    return result.failure.reason, result.failure.detail


# --------------------------------------------------------------------------- front half


def test_cancelled_before_launch() -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter()
        signal = asyncio.Event()
        signal.set()
        start = await start_wave_script(adapter, spec(), signal)
        assert start == WaveScriptStart(
            ok=False,
            failure=WaveRunFailure(Reason.CANCELLED, f"wave '{FLOW}' was cancelled before launch"),
            receipt=no_ids(State.CANCELLED),
        )
        assert adapter.calls == MemoryWaveCalls()

    run(main)


def test_abort_during_ping_is_seen_by_the_recheck() -> None:
    async def main() -> None:
        signal = asyncio.Event()
        adapter = Faulty(during_ping=lambda _: signal.set())
        result = await go(adapter, signal=signal)
        assert failure(result) == ("cancelled", f"wave '{FLOW}' was cancelled before launch")
        assert result.receipt == no_ids(State.CANCELLED)
        assert result.value is None
        assert (adapter.calls.ping, adapter.calls.subscribe, adapter.calls.spawn) == (1, 0, [])

    run(main)


def test_ping_raises() -> None:
    async def main() -> None:
        adapter = Faulty(ping=RuntimeError("rpc down"))
        result = await go(adapter)
        assert failure(result) == ("unavailable", "subagent RPC ping failed: rpc down")
        assert result.receipt == no_ids(State.UNAVAILABLE)
        assert (adapter.calls.subscribe, counts(adapter)) == (0, (0, 0, 0))

    run(main)


@pytest.mark.parametrize("answer", [None, "yes"])
def test_ping_null_or_malformed_is_unavailable(answer: Any) -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(ping=answer)
        start = await start_wave_script(adapter, spec())
        assert (start.ok, start.handle, start.result) == (False, None, None)
        assert failure(start) == (
            "unavailable",
            "pi-subagents did not advertise the report-wave capabilities "
            "(ping failed or incomplete)",
        )
        assert start.receipt == no_ids(State.UNAVAILABLE)
        assert (adapter.calls.subscribe, adapter.calls.spawn) == (0, [])

    run(main)


def test_subscription_raising_refuses_before_spawn() -> None:  # KB8a
    async def main() -> None:
        adapter = Faulty(subscribe_error=RuntimeError("bus closed"))
        result = await go(adapter)
        assert failure(result) == ("unavailable", "completion subscription failed: bus closed")
        assert result.receipt == no_ids(State.UNAVAILABLE)
        assert (adapter.calls.spawn, counts(adapter)) == ([], (0, 0, 0))

    run(main)


@pytest.mark.parametrize("aborted", [False, True])
def test_spawn_raises(aborted: bool) -> None:
    async def main() -> None:
        signal = asyncio.Event()

        def during(fake: Faulty) -> None:
            fake.emit_completion(match())  # buffered while the handle is unknown
            if aborted:
                signal.set()

        adapter = Faulty(spawn_error=RuntimeError("no slot"), during_spawn=during)
        result = await go(adapter, signal=signal)
        assert failure(result) == ("spawn-failed", "wave spawn failed: no slot")
        assert result.receipt == no_ids(State.SPAWN_FAILED)
        assert len(adapter.calls.spawn) == 1
        assert counts(adapter) == (0, 0, 1)

    run(main)


def test_spawn_answer_that_is_no_handle_is_spawn_failed() -> None:
    async def main() -> None:
        adapter = Faulty(spawn="wave-async-1")
        result = await go(adapter)
        assert failure(result) == (
            "spawn-failed",
            "wave spawn failed: not a WaveRunHandle: str",
        )
        assert result.receipt == no_ids(State.SPAWN_FAILED)
        assert counts(adapter) == (0, 0, 1)

    run(main)


@pytest.mark.parametrize("model", [None, "sonnet"])
def test_spawn_params(model: str | None) -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter()
        await go(adapter, spec(timeout_ms=1234, model=model))
        (params,) = adapter.calls.spawn
        assert params == WaveSpawnParams(
            workflow_script="run()", output_schema=SCHEMA, timeout_ms=1234, model=model
        )
        assert (params.async_, params.mission, params.context) == (True, False, "fresh")
        assert params.acceptance is WAVE_ACCEPTANCE

    run(main)


def test_spawn_params_keep_their_fixed_fields() -> None:
    base: dict[str, Any] = {"workflow_script": "s", "output_schema": {}, "timeout_ms": 1}
    restated = WaveSpawnParams(
        **base, async_=True, mission=False, context="fresh", acceptance=dict(WAVE_ACCEPTANCE)
    )
    assert restated == WaveSpawnParams(**base)
    for change in (
        {"async_": False},
        {"mission": True},
        {"context": "fork"},
        {"acceptance": {"level": "auto"}},
    ):
        with pytest.raises(ValueError, match="fixed"):
            WaveSpawnParams(**base, **change)
    assert WAVE_ACCEPTANCE["level"] == "none"
    assert set(WAVE_ACCEPTANCE) == {"level", "reason"}
    assert "structured_output" in WAVE_ACCEPTANCE["reason"]
    with pytest.raises(TypeError):
        cast(Any, WAVE_ACCEPTANCE)["level"] = "auto"


# ---------------------------------------------------------------------------- back half


def test_timeout() -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(completion=False)
        loop = asyncio.get_running_loop()
        began = loop.time()
        result = await go(adapter, spec(timeout_ms=20))
        assert loop.time() - began == pytest.approx(0.02)
        assert failure(result) == ("timeout", f"wave '{FLOW}' timed out after 20ms")
        assert result.receipt == ids(State.TIMED_OUT)
        assert result.value is None
        assert adapter.calls.stop == [HANDLE]
        assert counts(adapter) == (1, 0, 1)

    run(main)


def test_cancel_after_spawn() -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(completion=False)
        signal = asyncio.Event()
        start = await start_wave_script(adapter, spec(), signal)
        assert (start.ok, start.handle, start.failure, start.receipt) == (True, HANDLE, None, None)
        assert start.result is not None
        signal.set()
        result = await start.result
        assert failure(result) == ("cancelled", f"wave '{FLOW}' was cancelled")
        assert result.receipt == ids(State.CANCELLED)
        assert result.value is None
        assert counts(adapter) == (1, 0, 1)
        assert_quiet()

    run(main)


def test_abort_during_spawn_is_seen_by_the_back_half() -> None:
    async def main() -> None:
        signal = asyncio.Event()
        # The spawn runs in a task of its own (so that an abort can end its wait), so a
        # completion the adapter queues beside its reply lands first; this one comes later.
        adapter = Faulty(completion=False, during_spawn=lambda _: signal.set())
        result = await go(adapter, signal=signal)
        assert failure(result) == ("cancelled", f"wave '{FLOW}' was cancelled")
        assert result.receipt == ids(State.CANCELLED)
        assert counts(adapter) == (1, 0, 1)

    run(main)


def test_pre_reply_match_beats_abort() -> None:
    async def main() -> None:
        signal = asyncio.Event()
        adapter = Faulty(
            ordering="complete-then-reply",
            completion_detail={"children": [CHILD_A]},
            during_spawn=lambda _: signal.set(),
        )
        result = await go(adapter, signal=signal)
        assert result == WaveScriptResult(ok=True, value=[], receipt=ids(State.COMPLETE, [CHILD_A]))
        assert counts(adapter) == (0, 1, 1)

    run(main)


@pytest.mark.parametrize("ordering", ["reply-then-complete", "complete-then-reply"])
def test_complete(ordering: Any) -> None:
    async def main() -> None:
        value = [{"key": "a", "report": "fine"}, None]
        adapter = MemoryWaveAdapter(
            ordering=ordering,
            aggregate=WaveAggregate(state="complete", value=value),
            completion_detail={"children": [CHILD_A, CHILD_B]},
        )
        result = await go(adapter, signal=asyncio.Event())
        assert result == WaveScriptResult(
            ok=True, value=value, failure=None, receipt=ids(State.COMPLETE, [CHILD_A, CHILD_B])
        )
        assert adapter.calls.read_aggregate == [HANDLE]
        assert counts(adapter) == (0, 1, 1)

    run(main)


def test_complete_value_is_not_type_checked() -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(aggregate=WaveAggregate(state="complete", value="text"))
        result = await go(adapter)
        assert (result.ok, result.value, result.receipt) == (True, "text", ids(State.COMPLETE))

    run(main)


@pytest.mark.parametrize(
    ("success", "state"),
    [(True, State.COMPLETE), (None, State.COMPLETE), (False, State.FAILED), (0, State.COMPLETE)],
)
def test_read_raises(success: Any, state: WaveReceiptState) -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(
            aggregate_error=True, completion_detail={"success": success, "children": [CHILD_A]}
        )
        result = await go(adapter)
        assert failure(result) == (
            "aggregate-unreadable",
            "wave aggregate unreadable: simulated unreadable status.json",
        )
        assert result.receipt == ids(state, [CHILD_A])
        assert result.value is None
        assert counts(adapter) == (0, 1, 1)

    run(main)


def test_read_that_hangs_is_unreadable_after_the_timeout() -> None:
    async def main() -> None:
        adapter = Faulty(read=forever)
        loop = asyncio.get_running_loop()
        began = loop.time()
        result = await go(adapter, spec(timeout_ms=20))
        assert loop.time() - began == pytest.approx(0.02)
        assert failure(result) == (
            "aggregate-unreadable",
            "wave aggregate unreadable: read did not finish within 20ms",
        )
        assert result.receipt == ids(State.COMPLETE)
        assert counts(adapter) == (0, 1, 1)

    run(main)


@pytest.mark.parametrize(("answer", "kind"), [({"state": "complete"}, "dict"), (None, "NoneType")])
def test_read_answer_that_is_no_aggregate_is_unreadable(answer: Any, kind: str) -> None:
    async def main() -> None:
        adapter = Faulty(read=answer)
        result = await go(adapter)
        assert failure(result) == (
            "aggregate-unreadable",
            f"wave aggregate unreadable: not a WaveAggregate: {kind}",
        )
        assert result.receipt == ids(State.COMPLETE)

    run(main)


@pytest.mark.parametrize(
    ("aggregate", "retained", "value", "detail"),
    [
        (
            WaveAggregate(state="failed", value=[{"k": 1}, None], error="disk full"),
            [{"k": 2}],
            [{"k": 1}, None],
            "wave run ended 'failed' (native partial: timeout): disk full",
        ),
        (
            WaveAggregate(state="partial", value=[]),
            [{"k": 2}],
            [],
            "wave run ended 'partial' (native partial: timeout)",
        ),
        (
            WaveAggregate(state="partial", value={"k": 1}),
            [{"k": 2}],
            [{"k": 2}],
            "wave run ended 'partial' (native partial: timeout)",
        ),
        (
            WaveAggregate(state="failed"),
            None,
            [],
            "wave run ended 'failed' (native partial: timeout)",
        ),
    ],
)
def test_partial_arm(
    aggregate: WaveAggregate, retained: list[Any] | None, value: list[Any], detail: str
) -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(
            aggregate=aggregate,
            completion_detail={
                "state": "failed",
                "children": [CHILD_A],
                "terminal_outcome": TerminalOutcome(state="partial", reason="timeout"),
                "retained_entries": retained,
            },
        )
        result = await go(adapter)
        assert result == WaveScriptResult(
            ok=False,
            value=value,
            failure=WaveRunFailure(Reason.RUN_FAILED, detail),
            receipt=ids(State.FAILED, [CHILD_A]),
        )
        assert counts(adapter) == (0, 1, 1)

    run(main)


def test_partial_arm_names_the_native_reason() -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(
            aggregate=WaveAggregate(state="partial"),
            completion_detail={"terminal_outcome": TerminalOutcome("partial", "budget_exhausted")},
        )
        result = await go(adapter)
        assert failure(result) == (
            "run-failed",
            "wave run ended 'partial' (native partial: budget_exhausted)",
        )

    run(main)


@pytest.mark.parametrize(
    ("aggregate", "outcome", "detail"),
    [
        (WaveAggregate(state="failed", value=[1]), None, "wave run ended 'failed'"),
        (WaveAggregate(state="failed", error="boom"), None, "wave run ended 'failed': boom"),
        (WaveAggregate(state="partial", error=""), None, "wave run ended 'partial': "),
        (
            WaveAggregate(state="running", value=[1]),
            TerminalOutcome("partial", "timeout"),
            "wave run ended 'running'",
        ),
        (WaveAggregate(state="failed"), {"state": "partial"}, "wave run ended 'failed'"),
    ],
)
def test_other_non_complete_is_run_failed(
    aggregate: WaveAggregate, outcome: Any, detail: str
) -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(
            aggregate=aggregate,
            completion_detail={
                "children": [CHILD_B],
                "terminal_outcome": outcome,
                "retained_entries": [1],
            },
        )
        result = await go(adapter)
        assert result == WaveScriptResult(
            ok=False,
            value=None,
            failure=WaveRunFailure(Reason.RUN_FAILED, detail),
            receipt=ids(State.FAILED, [CHILD_B]),
        )
        assert counts(adapter) == (0, 1, 1)

    run(main)


# ----------------------------------------------------------------------- completion intake


@pytest.mark.parametrize(
    "first",
    [
        WaveCompletion(async_id=HANDLE.async_id, children=[CHILD_A]),
        WaveCompletion(async_dir=HANDLE.async_dir, children=[CHILD_A]),
        WaveCompletion(async_id="other", async_dir=HANDLE.async_dir, children=[CHILD_A]),
        WaveCompletion(async_id=HANDLE.async_id, async_dir="/other", children=[CHILD_A]),
    ],
)
def test_foreign_duplicate_and_late_completions_are_ignored(first: WaveCompletion) -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(completion=False)
        start = await start_wave_script(adapter, spec())
        assert start.result is not None
        adapter.emit_completion(WaveCompletion(async_id="wave-async-9", async_dir="/x/9"))
        adapter.emit_completion(WaveCompletion())
        adapter.emit_completion(cast(Any, {"async_id": HANDLE.async_id}))
        await asyncio.sleep(0.01)
        assert not start.result.done()
        adapter.emit_completion(first)
        adapter.emit_completion(match(children=[CHILD_B]))  # duplicate: dropped
        result = await start.result
        assert result.receipt == ids(State.COMPLETE, [CHILD_A])
        adapter.emit_completion(match(children=[CHILD_B]))  # late: nobody listens
        assert counts(adapter) == (0, 1, 1)
        assert_quiet()

    run(main)


@pytest.mark.parametrize(
    "handle", [WaveRunHandle("a", cast(Any, None)), WaveRunHandle(cast(Any, 7), "/d")]
)
def test_a_handle_without_string_ids_is_no_handle(handle: WaveRunHandle) -> None:
    """Nothing could match it or be stopped with it: spawn-failed, as for any non-handle."""

    async def main() -> None:
        adapter = Faulty(completion=False, spawn=handle)
        result = await go(adapter, spec(timeout_ms=20))
        assert failure(result) == (
            "spawn-failed",
            "wave spawn failed: not a WaveRunHandle: WaveRunHandle",
        )
        assert counts(adapter) == (0, 0, 1)

    run(main)


def test_first_buffered_match_wins() -> None:
    async def main() -> None:
        def during(fake: Faulty) -> None:
            fake.emit_completion(WaveCompletion(async_id="wave-async-7"))
            fake.emit_completion(cast(Any, "noise"))
            fake.emit_completion(match(children=[CHILD_A]))
            fake.emit_completion(match(children=[CHILD_B]))

        adapter = Faulty(completion=False, during_spawn=during)
        result = await go(adapter)
        assert result.receipt == ids(State.COMPLETE, [CHILD_A])

    run(main)


@pytest.mark.parametrize("cancel", [False, True])
def test_acceptance_closes_before_the_stop(cancel: bool) -> None:  # KB3
    async def main() -> None:
        signal = asyncio.Event()
        if cancel:
            asyncio.get_running_loop().call_later(0.005, signal.set)
        adapter = Faulty(
            completion=False,
            during_stop=lambda fake: fake.emit_completion(match(children=[CHILD_A])),
        )
        result = await go(adapter, spec(timeout_ms=20), signal)
        detail = "was cancelled" if cancel else "timed out after 20ms"
        assert failure(result)[1] == f"wave '{FLOW}' {detail}"
        assert result.receipt.children == []

    run(main)


# ------------------------------------------------------------------------- stop and unsubscribe


def test_stop_raising_on_timeout() -> None:
    async def main() -> None:
        adapter = Faulty(completion=False, stop=RuntimeError("gone"))
        result = await go(adapter, spec(timeout_ms=20))
        assert failure(result) == (
            "timeout",
            f"wave '{FLOW}' timed out after 20ms (stop failed: gone)",
        )
        assert result.receipt == ids(State.TIMED_OUT)
        assert counts(adapter) == (1, 0, 1)

    run(main)


def test_stop_raising_on_cancel() -> None:
    async def main() -> None:
        signal = asyncio.Event()
        asyncio.get_running_loop().call_later(0.005, signal.set)
        adapter = Faulty(completion=False, stop=RuntimeError("gone"))
        result = await go(adapter, signal=signal)
        assert failure(result) == ("cancelled", f"wave '{FLOW}' was cancelled (stop failed: gone)")
        assert result.receipt == ids(State.CANCELLED)
        assert counts(adapter) == (1, 0, 1)

    run(main)


def test_stop_that_is_not_awaitable_fails_into_the_suffix() -> None:
    class SyncStop(MemoryWaveAdapter):
        def stop(self, handle: WaveRunHandle) -> None:  # type: ignore[override]
            self.calls.stop.append(handle)

    async def main() -> None:
        adapter = SyncStop(completion=False)
        result = await go(adapter, spec(timeout_ms=20))
        reason, detail = failure(result)
        assert reason == "timeout"
        assert detail.startswith(f"wave '{FLOW}' timed out after 20ms (stop failed: ")
        assert "can't be used in 'await' expression" in detail
        assert counts(adapter) == (1, 0, 1)

    run(main)


def test_stop_that_hangs_is_abandoned_after_the_grace() -> None:  # KB8c
    async def main() -> None:
        loop = asyncio.get_running_loop()
        stopped: list[float] = []
        adapter = Faulty(
            completion=False, stop=forever, during_stop=lambda _: stopped.append(loop.time())
        )
        result = await go(adapter, spec(timeout_ms=20))
        assert WAVE_STOP_GRACE_MS == 1_000
        assert loop.time() - stopped[0] == pytest.approx(1.0)
        assert failure(result) == (
            "timeout",
            f"wave '{FLOW}' timed out after 20ms (stop did not finish within 1000ms)",
        )
        assert result.receipt == ids(State.TIMED_OUT)
        assert counts(adapter) == (1, 0, 1)

    run(main)


@pytest.mark.parametrize("hangs", ["stop", "read"])
def test_the_stop_grace_and_the_read_deadline_are_exact(hangs: str) -> None:
    """On a virtual clock: the timer, then the stop grace (1000 ms) or the read deadline (the
    wave's timeout), each to the microsecond, and the wave settles when it passes."""
    loop = VirtualClock()
    try:
        adapter = Faulty(completion=hangs == "read", stop=forever, read=forever)
        start = loop.run_until_complete(start_wave_script(adapter, spec(timeout_ms=2_500)))
        assert start.result is not None
        loop.turn()
        if hangs == "stop":
            assert loop.next_timer() == 2.5  # the wave's timer
            loop.now = 2.5
            loop.turn()
            assert adapter.calls.stop == [HANDLE]
            assert loop.next_timer() == WAVE_STOP_GRACE_MS / 1000
        else:
            assert adapter.calls.read_aggregate == [HANDLE]
            assert loop.next_timer() == 2.5  # the read's deadline: the wave's timeout
        loop.now += loop.next_timer() - 1e-6
        loop.turn()
        assert not start.result.done()
        loop.now += 1e-6
        loop.turn()
        assert start.result.done()
        reason = failure(start.result.result())[0]
        assert reason == ("timeout" if hangs == "stop" else "aggregate-unreadable")
    finally:
        loop.close()


@pytest.mark.parametrize("spawn_error", [None, RuntimeError("no slot")])
def test_unsubscribe_raising_is_swallowed(spawn_error: Exception | None) -> None:  # KB8b
    async def main() -> None:
        adapter = Faulty(unsubscribe_error=RuntimeError("bus gone"), spawn_error=spawn_error)
        result = await go(adapter)
        if spawn_error is None:
            assert result == WaveScriptResult(ok=True, value=[], receipt=ids(State.COMPLETE))
        else:
            assert failure(result) == ("spawn-failed", "wave spawn failed: no slot")
        assert adapter.calls.unsubscribe == 1

    run(main)


# ------------------------------------------------------------------------------ timeouts


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("0x10", 16),
        ("0X1f", 31),
        ("0b101", 5),
        ("0o17", 15),
        (" 20\n", 20),
        ("1e3", 1000),
        ("+.5", 0.5),
        ("5.", 5),
        ("1.5E1", 15),
        ("1_000", WAVE_TIMEOUT_MS),
        ("０x10", WAVE_TIMEOUT_MS),
        ("２０", WAVE_TIMEOUT_MS),
        ("inf", WAVE_TIMEOUT_MS),
        ("Infinity", WAVE_TIMEOUT_MS),
        ("nan", WAVE_TIMEOUT_MS),
        ("1e400", WAVE_TIMEOUT_MS),
        ("0x" + "f" * 300, WAVE_TIMEOUT_MS),
        ("-5", WAVE_TIMEOUT_MS),
        ("-0x10", WAVE_TIMEOUT_MS),
        ("0x", WAVE_TIMEOUT_MS),
        ("0b2", WAVE_TIMEOUT_MS),
        ("0o8", WAVE_TIMEOUT_MS),
        ("0xg", WAVE_TIMEOUT_MS),
        ("0", WAVE_TIMEOUT_MS),
        ("20ms", WAVE_TIMEOUT_MS),
        (".", WAVE_TIMEOUT_MS),
        ("1e", WAVE_TIMEOUT_MS),
        ("", WAVE_TIMEOUT_MS),
        ("   ", WAVE_TIMEOUT_MS),
    ],
)
def test_env_timeout(monkeypatch: pytest.MonkeyPatch, text: str, ms: float) -> None:
    monkeypatch.setenv("PERK_WAVE_TIMEOUT_MS", text)
    assert waves._env_timeout_ms() == ms


def test_env_timeout_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PERK_WAVE_TIMEOUT_MS", raising=False)
    assert waves._env_timeout_ms() == WAVE_TIMEOUT_MS == 900_000


def test_env_timeout_is_read_at_each_start(monkeypatch: pytest.MonkeyPatch) -> None:
    async def main() -> None:
        monkeypatch.setenv("PERK_WAVE_TIMEOUT_MS", "0x10")
        adapter = MemoryWaveAdapter(completion=False)
        result = await go(adapter, spec(timeout_ms=None))
        assert failure(result) == ("timeout", f"wave '{FLOW}' timed out after 16ms")
        assert adapter.calls.spawn[0].timeout_ms == 16
        monkeypatch.setenv("PERK_WAVE_TIMEOUT_MS", "1_000")
        completing = MemoryWaveAdapter()
        await go(completing, spec(timeout_ms=None))
        await go(completing, spec(timeout_ms=25))  # the spec wins over the environment
        assert [p.timeout_ms for p in completing.calls.spawn] == [WAVE_TIMEOUT_MS, 25]

    run(main)


@pytest.mark.parametrize(
    ("timeout_ms", "text"),
    [
        (0, "0ms"),
        (-5, "-5ms"),
        (0.5, "0.5ms"),
        (math.nan, "NaNms"),
        (math.inf, "Infinityms"),
    ],
)
def test_a_timeout_below_one_ms_fires_at_once(timeout_ms: float, text: str) -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(completion=False)
        loop = asyncio.get_running_loop()
        began = loop.time()
        result = await go(adapter, spec(timeout_ms=timeout_ms))
        assert loop.time() - began == pytest.approx(0.001)
        assert failure(result) == ("timeout", f"wave '{FLOW}' timed out after {text}")
        assert adapter.calls.spawn[0].timeout_ms == pytest.approx(timeout_ms, nan_ok=True)

    run(main)


def test_delay_clamps_like_node() -> None:
    assert waves._delay_s(20) == 0.02
    assert waves._delay_s(1e10) == 1e7
    for small in (1, 0.5, 0, -5, math.nan, -math.inf, math.inf):
        assert waves._delay_s(small) == 0.001


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (20, "20"),
        (20.0, "20"),
        (900_000, "900000"),
        (1.5, "1.5"),
        (0.5, "0.5"),
        (123.456, "123.456"),
        (-5, "-5"),
        (-1.25, "-1.25"),
        (0, "0"),
        (-0.0, "0"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (1e-6, "0.000001"),
        (0.00001, "0.00001"),
        (1.23e-5, "0.0000123"),
        (1e20, "100000000000000000000"),
        (1.5e20, "150000000000000000000"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (-2e25, "-2e+25"),
        (2**70, "1.1805916207174113e+21"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
    ],
)
def test_js_number_formatting(number: float, text: str) -> None:
    assert waves._js_string(number) == text


# ---------------------------------------------------------------------------- the leak check


def test_no_wave_state_outlives_its_run() -> None:
    """The one test that reaches inside impl.waves, because a leak has no public observable:
    it shows only as memory held. `waves._LIVE` keeps each running result task alive (asyncio
    holds tasks weakly) and must let it go when done; the runner's completion buffer (behind
    the handler it subscribed) must be empty and closed once the wave has an outcome, even
    for a handler an adapter calls late."""

    def wave(adapter: Faulty) -> Any:
        return cast(Any, adapter.handlers[0]).__self__  # the runner's state behind its handler

    async def main() -> None:
        # A spawn that raises after a completion was buffered.
        def buffer(fake: Faulty) -> None:
            fake.emit_completion(match())  # buffered while the handle is unknown

        adapter = Faulty(spawn=RuntimeError("no slot"), during_spawn=buffer)
        await go(adapter)
        state = wave(adapter)
        assert (state.buffered, state.outcome.done()) == ([], True)
        adapter.handlers[0](match())  # closed: nothing is buffered any more
        assert state.buffered == []
        assert not waves._LIVE

        # Completions buffered during the spawn, all let go once the first match won.
        def during(fake: Faulty) -> None:
            fake.emit_completion(WaveCompletion(async_id="wave-async-7"))
            fake.emit_completion(cast(Any, "noise"))  # not a completion: never buffered
            fake.emit_completion(match(children=[CHILD_A]))
            fake.emit_completion(match(children=[CHILD_B]))
            assert len(wave(fake).buffered) == 3

        adapter = Faulty(completion=False, during_spawn=during)
        start = await start_wave_script(adapter, spec())
        assert start.result is not None
        assert start.result in waves._LIVE
        await start.result
        assert wave(adapter).buffered == []
        assert not waves._LIVE
        assert_quiet()

    run(main)


# ---------------------------------------------------------------------------- cancellation


def test_cancelling_the_result_task_stops_and_reraises() -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(completion=False)
        start = await start_wave_script(adapter, spec(), asyncio.Event())
        assert start.result is not None
        start.result.cancel()
        with pytest.raises(asyncio.CancelledError):
            await start.result
        assert start.result.cancelled()
        assert adapter.calls.stop == [HANDLE]
        assert counts(adapter) == (1, 0, 1)
        assert adapter.subscribers == 0
        assert_quiet()

    run(main)


def test_cancelling_run_wave_script_stops_and_reraises() -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(completion=False)
        runner = asyncio.create_task(run_wave_script(adapter, spec()))
        await asyncio.sleep(0.01)
        runner.cancel()
        with pytest.raises(asyncio.CancelledError):
            await runner
        assert counts(adapter) == (1, 0, 1)
        assert_quiet()

    run(main)


def test_cancelling_during_the_stop_waits_for_that_same_stop() -> None:
    async def main() -> None:
        gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        adapter = Faulty(completion=False, stop=lambda: gate)
        start = await start_wave_script(adapter, spec(timeout_ms=1))
        assert start.result is not None
        while not adapter.calls.stop:
            await asyncio.sleep(0.001)
        start.result.cancel()
        for _ in range(5):
            await asyncio.sleep(0)
        assert not start.result.done()  # the shielded stop is still awaited
        gate.set_result(None)
        with pytest.raises(asyncio.CancelledError):
            await start.result
        assert counts(adapter) == (1, 0, 1)
        assert_quiet()

    run(main)


def test_cancelling_twice_abandons_the_cleanup_stop() -> None:
    async def main() -> None:
        adapter = Faulty(completion=False, stop=forever)
        start = await start_wave_script(adapter, spec())
        assert start.result is not None
        start.result.cancel()
        await asyncio.sleep(0.01)
        assert not start.result.done()
        start.result.cancel()
        with pytest.raises(asyncio.CancelledError):
            await start.result
        await asyncio.sleep(0)
        assert counts(adapter) == (1, 0, 1)
        assert_quiet()

    run(main)


@pytest.mark.parametrize("ordering", ["reply-then-complete", "complete-then-reply"])
def test_cancelling_during_the_read_does_not_stop_a_completed_run(ordering: Any) -> None:
    async def main() -> None:
        adapter = Faulty(read=forever, ordering=ordering)
        start = await start_wave_script(adapter, spec())
        assert start.result is not None
        while not adapter.calls.read_aggregate:
            await asyncio.sleep(0)
        start.result.cancel()
        with pytest.raises(asyncio.CancelledError):
            await start.result
        assert counts(adapter) == (0, 1, 1)
        assert_quiet()

    run(main)


def test_cancelling_start_during_spawn_releases_the_subscription() -> None:
    async def main() -> None:
        adapter = Faulty(spawn=forever)
        starter = asyncio.create_task(start_wave_script(adapter, spec()))
        while not adapter.handlers:
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        starter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await starter
        assert counts(adapter) == (0, 0, 1)
        assert adapter.subscribers == 0
        # The spawn is still watched, to stop a late run handle; it never answers here.
        watching = asyncio.all_tasks() - {asyncio.current_task()}
        assert watching
        for task in watching:
            task.cancel()
        await asyncio.wait(watching)
        assert_quiet()

    run(main)


def test_cancelling_start_after_the_reply_cancels_the_wave() -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(completion=False)
        starter = asyncio.create_task(start_wave_script(adapter, spec()))

        while not adapter.calls.spawn:
            await asyncio.sleep(0)
        before = asyncio.all_tasks()  # the test, the starter, the spawn's own task

        def result_task() -> set[asyncio.Task[Any]]:
            return asyncio.all_tasks() - before

        while not result_task():  # the starter now waits for the back half to enter its body
            await asyncio.sleep(0)
        assert len(adapter.calls.spawn) == 1
        (result,) = result_task()
        starter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await starter
        with pytest.raises(asyncio.CancelledError):
            await result
        assert counts(adapter) == (1, 0, 1)
        assert_quiet()

    run(main)


# --------------------------------------------------------------------------- the start shape


def test_result_runs_before_start_returns_and_without_an_await() -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(completion=False)
        start = await start_wave_script(adapter, spec(timeout_ms=20))
        assert isinstance(start.result, asyncio.Task)
        await asyncio.sleep(0.1)  # nobody awaits the result: it settles on its own
        assert start.result.done()
        assert counts(adapter) == (1, 0, 1)
        assert failure(start.result.result())[0] == "timeout"
        assert_quiet()

    run(main)


def test_run_wave_script_refused_start_has_no_value() -> None:
    async def main() -> None:
        result = await go(MemoryWaveAdapter(ping=None))
        assert result == WaveScriptResult(
            ok=False,
            value=None,
            failure=WaveRunFailure(
                Reason.UNAVAILABLE,
                "pi-subagents did not advertise the report-wave capabilities "
                "(ping failed or incomplete)",
            ),
            receipt=no_ids(State.UNAVAILABLE),
        )

    run(main)


# ------------------------------------------------------------------------ memory adapter


def test_memory_adapter_handles_and_calls() -> None:
    async def main() -> None:
        adapter: WaveAdapter = MemoryWaveAdapter()
        memory = cast(MemoryWaveAdapter, adapter)
        first = await run_wave_script(adapter, spec())
        second = await run_wave_script(adapter, spec(model="m"))
        assert first.receipt.run_id == "wave-async-1"
        assert second.receipt == WaveScriptReceipt(
            state=State.COMPLETE,
            children=[],
            run_id="wave-async-2",
            async_dir="/memory/wave-async-2",
        )
        assert memory.calls.ping == 2
        assert memory.calls.subscribe == 2
        assert memory.calls.unsubscribe == 2
        assert [p.model for p in memory.calls.spawn] == [None, "m"]
        assert memory.calls.read_aggregate == [
            HANDLE,
            WaveRunHandle("wave-async-2", "/memory/wave-async-2"),
        ]
        assert memory.calls.stop == []

    run(main)


def test_memory_adapter_spawn_error_does_not_advance_the_counter() -> None:
    async def main() -> None:
        error = RuntimeError("no slot")
        adapter = MemoryWaveAdapter(spawn_error=error)
        params = WaveSpawnParams(workflow_script="s", output_schema={}, timeout_ms=1)
        with pytest.raises(RuntimeError) as raised:
            await adapter.spawn(params)
        assert raised.value is error
        assert adapter.calls.spawn == [params]
        adapter._spawn_error = None
        assert await adapter.spawn(params) == HANDLE

    run(main)


def test_memory_adapter_subscription() -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(ping=None)
        with pytest.raises(RuntimeError, match="^on_complete before a successful ping$"):
            adapter.on_complete(lambda _: None)
        assert await adapter.ping() is None
        with pytest.raises(RuntimeError):
            adapter.on_complete(lambda _: None)
        adapter = MemoryWaveAdapter()
        assert await adapter.ping() == WavePing("subagent:async-complete")
        seen: list[tuple[str, WaveCompletion]] = []
        off_a = adapter.on_complete(lambda c: seen.append(("a", c)))
        off_b = adapter.on_complete(lambda c: seen.append(("b", c)))
        assert adapter.subscribers == 2
        adapter.emit_completion(match())
        assert seen == [("a", match()), ("b", match())]
        off_a()
        off_a()  # idempotent: b stays subscribed
        assert adapter.subscribers == 1
        adapter.emit_completion(WaveCompletion(async_id="z"))
        assert seen[-1] == ("b", WaveCompletion(async_id="z"))
        off_b()
        assert (adapter.subscribers, adapter.calls.subscribe, adapter.calls.unsubscribe) == (
            0,
            2,
            3,
        )

    run(main)


@pytest.mark.parametrize(
    ("knobs", "now", "later"),
    [
        ({}, 0, 1),
        ({"ordering": "complete-then-reply"}, 1, 1),
        ({"completion": False}, 0, 0),
    ],
)
def test_memory_adapter_ordering(knobs: dict[str, Any], now: int, later: int) -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(completion_detail={"children": [CHILD_A]}, **knobs)
        await adapter.ping()
        seen: list[WaveCompletion] = []
        adapter.on_complete(seen.append)
        params = WaveSpawnParams(workflow_script="s", output_schema={}, timeout_ms=1)
        await adapter.spawn(params)
        assert len(seen) == now
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert seen == [match(state="complete", success=True, children=[CHILD_A])] * later

    run(main)


def test_memory_adapter_aggregates() -> None:
    async def main() -> None:
        a = WaveAggregate(state="failed", error="a")
        b = WaveAggregate(state="partial")
        c = WaveAggregate(state="complete", value=[1])
        other = WaveRunHandle("wave-async-2", "/memory/wave-async-2")
        adapter = MemoryWaveAdapter(aggregates={HANDLE.async_dir: [a, b]})
        assert await adapter.read_aggregate(other) == WaveAggregate(state="complete", value=[])
        assert await adapter.read_aggregate(HANDLE) == a
        assert await adapter.read_aggregate(HANDLE) == b
        adapter.set_aggregate(c)
        assert await adapter.read_aggregate(HANDLE) == c
        assert adapter.calls.read_aggregate == [other, HANDLE, HANDLE, HANDLE]
        broken = MemoryWaveAdapter(aggregate_error=True, aggregate=c)
        with pytest.raises(RuntimeError, match="^simulated unreadable status.json$"):
            await broken.read_aggregate(HANDLE)
        assert broken.calls.read_aggregate == [HANDLE]
        await adapter.stop(HANDLE)
        assert adapter.calls.stop == [HANDLE]

    run(main)


def test_memory_adapter_per_run_aggregates_drive_the_runner() -> None:
    async def main() -> None:
        adapter = MemoryWaveAdapter(
            aggregates={"/memory/wave-async-2": [WaveAggregate(state="failed")]},
        )
        assert (await go(adapter)).ok
        assert failure(await go(adapter)) == ("run-failed", "wave run ended 'failed'")
        assert (await go(adapter)).ok

    run(main)


# ------------------------------------------------------------------------------ vocabulary


def test_vocabulary() -> None:
    assert [r.value for r in WaveRunFailureReason] == [
        "unavailable",
        "spawn-failed",
        "timeout",
        "cancelled",
        "run-failed",
        "aggregate-unreadable",
    ]
    assert [s.value for s in WaveReceiptState] == [
        "unavailable",
        "spawn-failed",
        "complete",
        "failed",
        "timed-out",
        "cancelled",
    ]
    assert isinstance(Reason.SPAWN_FAILED, str)
    assert cast(str, Reason.SPAWN_FAILED) == "spawn-failed"
    assert WaveRunFailure(Reason.TIMEOUT, "d").key is None
    assert WaveCompletion() == WaveCompletion(None, None, None, None, None, None, None)
    assert WaveChildReceipt(key="k") == WaveChildReceipt("k", None, None, None, None, None)
    assert WaveAggregate(state="s") == WaveAggregate("s", None, None)
    assert WaveScriptStart(ok=True) == WaveScriptStart(True, None, None, None, None)
    assert WaveScriptResult(True, receipt=no_ids(State.COMPLETE)).failure is None
    assert spec(timeout_ms=None) == WaveScriptSpec(FLOW, "run()", SCHEMA)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cast(Any, HANDLE).async_id = "x"
