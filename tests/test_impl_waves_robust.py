"""impl.waves under the behaviours of issue 8 §3 and issue 11 §1: whatever the adapter does.

An adapter that never answers, answers the wrong thing, or raises anything at all (exceptions
whose str() and repr() raise, exception groups, KeyboardInterrupt); arguments of the wrong
type at the edge. `asyncio.run` on virtual time (`run_virtual`, conformance/fakes.py), so the small
timeouts fire in order whatever the load; the stop grace is shortened.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Callable
from collections.abc import Coroutine
from typing import Any
from typing import cast

import pytest

from conformance.fakes import Faulty
from conformance.fakes import forever
from conformance.fakes import run_virtual
from impl import waves
from impl.waves import MemoryWaveAdapter
from impl.waves import TerminalOutcome
from impl.waves import WaveAggregate
from impl.waves import WaveCompletion
from impl.waves import WaveRunHandle
from impl.waves import WaveScriptResult
from impl.waves import WaveScriptSpec
from impl.waves import WaveScriptStart
from impl.waves import run_wave_script
from impl.waves import start_wave_script

FLOW = "f"


def spec(timeout_ms: float | None = 20) -> WaveScriptSpec:
    return WaveScriptSpec(flow=FLOW, workflow_script="s", output_schema={}, timeout_ms=timeout_ms)


@pytest.fixture(autouse=True)
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(waves, "WAVE_STOP_GRACE_MS", 20)


def run(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """`main` on the virtual clock; then nothing of the wave may be left running."""

    async def checked() -> None:
        await main()
        for _ in range(3):
            await asyncio.sleep(0)
        assert asyncio.all_tasks() == {asyncio.current_task()}, "the wave left a task behind"

    run_virtual(checked())


class Bad(Exception):
    """An exception that misbehaves itself: str() and repr() raise."""

    def __str__(self) -> str:
        raise RuntimeError("str")

    def __repr__(self) -> str:
        raise RuntimeError("repr")


def others() -> set[asyncio.Task[Any]]:
    """What still runs besides the test (a wave's tasks, or a watch on a late spawn)."""
    return asyncio.all_tasks() - {asyncio.current_task()}


def reason(result: WaveScriptResult | WaveScriptStart) -> tuple[str, str]:
    assert result.failure is not None
    return result.failure.reason.value, result.failure.detail


# ------------------------------------------------------------------ awaits that never answer


def test_a_ping_that_never_answers_is_unavailable_at_the_timeout() -> None:
    async def main() -> None:
        result = await run_wave_script(Faulty(completion=False, ping=forever), spec())
        assert reason(result) == (
            "unavailable",
            "subagent RPC ping failed: ping did not answer within 20ms",
        )

    run(main)


def test_an_abort_during_a_ping_that_never_answers_settles_within_the_grace() -> None:
    async def main() -> None:
        signal = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.call_later(0.005, signal.set)
        began = loop.time()
        result = await run_wave_script(Faulty(completion=False, ping=forever), spec(60_000), signal)
        assert reason(result) == ("cancelled", f"wave '{FLOW}' was cancelled before launch")
        assert loop.time() - began == pytest.approx(0.005 + waves.WAVE_STOP_GRACE_MS / 1000)

    run(main)


def test_a_spawn_that_never_answers_is_spawn_failed_at_the_timeout() -> None:
    async def main() -> None:
        adapter = Faulty(completion=False, spawn=forever)
        result = await run_wave_script(adapter, spec())
        assert reason(result) == (
            "spawn-failed",
            "wave spawn failed: spawn did not answer within 20ms",
        )
        await asyncio.sleep(0)  # the abandoned spawn's cancellation lands
        assert adapter.subscribers == 0 and not others()  # no watch on a spawn given up

    run(main)


def test_an_abort_during_a_late_spawn_settles_and_stops_the_late_run() -> None:
    async def main() -> None:
        late: asyncio.Future[WaveRunHandle] = asyncio.get_running_loop().create_future()

        async def spawn() -> WaveRunHandle:
            return await late

        adapter = Faulty(completion=False, spawn=spawn)
        signal = asyncio.Event()
        asyncio.get_running_loop().call_later(0.005, signal.set)
        start = await start_wave_script(adapter, spec(60_000), signal)
        assert reason(start) == ("cancelled", f"wave '{FLOW}' was cancelled (spawn did not answer)")
        assert start.receipt is not None and start.receipt.run_id is None
        assert adapter.subscribers == 0 and others()  # the late spawn is still watched
        late.set_result(WaveRunHandle("late", "/late"))
        while others():
            await asyncio.sleep(0)
        assert adapter.calls.stop == [WaveRunHandle("late", "/late")]  # not orphaned

    run(main)


def test_a_late_spawn_watch_ends_at_the_deadline() -> None:
    async def main() -> None:
        adapter = Faulty(completion=False, spawn=forever)
        signal = asyncio.Event()
        asyncio.get_running_loop().call_later(0.005, signal.set)
        start = await start_wave_script(adapter, spec(30), signal)
        assert reason(start) == ("cancelled", f"wave '{FLOW}' was cancelled (spawn did not answer)")
        assert others()  # the late spawn is still watched
        await asyncio.sleep(0.1)  # past the timeout: the spawn is abandoned, nothing stopped
        assert not others() and adapter.calls.stop == []

    run(main)


# ------------------------------------------------------------------ whatever the adapter raises


@pytest.mark.parametrize(
    "error",
    [
        Bad(),
        ExceptionGroup("two", [ValueError("a"), KeyError("b")]),
        asyncio.CancelledError("the adapter's own"),
        RuntimeError("plain"),
    ],
    ids=["bad-str", "group", "own-cancel", "plain"],
)
@pytest.mark.parametrize("where", ["ping", "spawn", "stop", "read"])
def test_nothing_an_adapter_raises_escapes(where: str, error: BaseException) -> None:
    async def main() -> None:
        # Only the read needs the completion; else the stop follows the timeout.
        adapter = Faulty(completion=where == "read", **cast(dict[str, Any], {where: error}))
        result = await run_wave_script(adapter, spec(5_000 if where == "read" else 20))
        expected = {
            "ping": "unavailable",
            "spawn": "spawn-failed",
            "stop": "timeout",
            "read": "aggregate-unreadable",
        }[where]
        assert reason(result)[0] == expected
        assert adapter.subscribers == 0
        if isinstance(error, Bad):
            assert "whose str() and repr() raise" in reason(result)[1]

    run(main)


@pytest.mark.parametrize("where", ["ping", "spawn", "stop", "read"])
@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_base_exceptions_propagate_after_the_subscription_is_released(
    where: str, error: type[BaseException]
) -> None:
    adapter = Faulty(completion=where == "read", **cast(dict[str, Any], {where: error()}))

    async def main() -> None:
        await run_wave_script(adapter, spec(5_000 if where == "read" else 20))

    with pytest.raises(error):
        run_virtual(main())
    assert adapter.subscribers == 0
    assert adapter.calls.unsubscribe == (0 if where == "ping" else 1)


# ------------------------------------------------------------------ answers of the wrong shape


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"asyncCompleteEvent": "e"}, "unavailable"),  # a dict, not a WavePing
        ("pong", "unavailable"),
    ],
)
def test_a_ping_answer_that_is_not_a_wave_ping_is_unavailable(answer: Any, expected: str) -> None:
    async def main() -> None:
        result = await run_wave_script(Faulty(completion=False, ping=answer), spec())
        assert reason(result) == (
            expected,
            "pi-subagents did not advertise the report-wave capabilities"
            " (ping failed or incomplete)",
        )

    run(main)


@pytest.mark.parametrize(
    ("outcome", "detail"),
    [
        (None, "wave run ended 'failed'"),
        ({"state": "partial", "reason": "timeout"}, "wave run ended 'failed'"),
        ("partial", "wave run ended 'failed'"),
        (
            TerminalOutcome("partial", "timeout"),
            "wave run ended 'failed' (native partial: timeout)",
        ),
    ],
)
def test_only_a_terminal_outcome_marks_a_native_partial(outcome: Any, detail: str) -> None:
    async def main() -> None:
        adapter = Faulty(completion=False, read=WaveAggregate("failed"))
        done = WaveCompletion(
            async_id="wave-async-1",
            success=False,
            terminal_outcome=outcome,
            retained_entries=cast(Any, "x"),
        )

        async def spawn() -> WaveRunHandle:  # the completion beats the reply: buffered
            adapter.emit_completion(done)
            return WaveRunHandle("wave-async-1", "/memory/wave-async-1")

        adapter.answers["spawn"] = spawn
        result = await run_wave_script(adapter, spec(5_000))
        assert reason(result) == ("run-failed", detail)
        # retained entries that are not a list are none: the partial arm's value is []
        assert result.value == ([] if isinstance(outcome, TerminalOutcome) else None)
        assert result.receipt.state == "failed"

    run(main)


def test_odd_completions_and_aggregates_never_escape() -> None:
    async def main() -> None:
        adapter = Faulty(completion=False, read=WaveAggregate(cast(Any, None)))
        odds: list[Any] = [None, "done", 7, WaveCompletion(async_id=cast(Any, Bad()))]
        weird = WaveCompletion(async_id="wave-async-1", children=cast(Any, "not a list"))

        async def spawn() -> WaveRunHandle:  # delivered before the reply: buffered, or ignored
            for odd in [*odds, weird]:
                adapter.emit_completion(odd)
            return WaveRunHandle("wave-async-1", "/memory/wave-async-1")

        adapter.answers["spawn"] = spawn
        result = await run_wave_script(adapter, spec(5_000))
        assert reason(result) == (
            "aggregate-unreadable",
            "wave aggregate unreadable: the aggregate's state is not a str: NoneType",
        )
        assert result.receipt.children == []

    run(main)


def test_an_error_text_that_raises_is_described() -> None:
    async def main() -> None:
        adapter = Faulty(completion=True, read=WaveAggregate("failed", error=cast(Any, Bad())))
        result = await run_wave_script(adapter, spec(5_000))
        assert reason(result) == (
            "run-failed",
            "wave run ended 'failed': <Bad whose str() and repr() raise>",
        )

    run(main)


# ------------------------------------------------------------------ the edge: argument types


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("timeout_ms", "10", "timeout_ms must be a number of milliseconds, got str"),
        ("timeout_ms", True, "timeout_ms must be a number of milliseconds, got bool"),
        ("flow", 3, "flow must be a str, got int"),
        ("workflow_script", None, "workflow_script must be a str, got NoneType"),
        ("output_schema", [], "output_schema must be a Mapping, got list"),
        ("model", 1.5, "model must be a str or None, got float"),
    ],
)
def test_a_spec_of_the_wrong_types_is_a_type_error(field: str, value: Any, message: str) -> None:
    fields: dict[str, Any] = {"flow": "f", "workflow_script": "s", "output_schema": {}}
    with pytest.raises(TypeError, match=f"^{message}$"):
        WaveScriptSpec(**{**fields, field: value})


@pytest.mark.parametrize(
    ("adapter", "the_spec", "signal", "message"),
    [
        (MemoryWaveAdapter(), spec(), True, "signal must be an asyncio.Event or None, got bool"),
        (MemoryWaveAdapter(), "spec", None, "spec must be a WaveScriptSpec, got str"),
        (
            object(),
            spec(),
            None,
            "adapter must be a WaveAdapter (no ping, spawn, on_complete, stop, read_aggregate), "
            "got object",
        ),
    ],
)
def test_wrong_arguments_at_the_edge_are_type_errors(
    adapter: Any, the_spec: Any, signal: Any, message: str
) -> None:
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        run_virtual(start_wave_script(adapter, the_spec, signal))
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        run_virtual(run_wave_script(adapter, the_spec, signal))


def test_nan_and_negative_timeouts_say_what_they_are() -> None:
    async def main() -> None:
        for value, text in ((math.nan, "NaN"), (-5, "-5"), (0, "0")):
            result = await run_wave_script(Faulty(completion=False), spec(value))
            assert reason(result) == (
                "timeout",
                f"wave '{FLOW}' timed out after {text}ms",  # the value as given, as the seed
            )

    run(main)
