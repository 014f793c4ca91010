"""The library under misuse (issue 20, `impl`): each case the seed decides, as the seed does;
each case it does not, an error the caller sees, never a crash the contract does not name.

The seed decisions: transport.ts prints `timed out after ${timeoutMs}ms` with the value as
given (so `0ms`, `NaNms`, `Infinityms`) and a JS number past a double's range is Infinity;
duplex.rs carries the ERL as `Erl(f32)`, and `as f32` saturates to an infinity. No verdict
here rests on the wall clock: the waves run on the virtual clock (a stalling one, where a
second passes at every read), the abandoned stop waits on nothing a timer decides, and the
threaded completion is released by an event the test sets.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import math
import pickle
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from conformance.fakes import VirtualClock
from conformance.fakes import run_virtual
from impl import waves
from impl.duplex import Erl
from impl.mode import AxCode
from impl.mode import AxError
from impl.mode import PolicyCell
from impl.mode import PolicyReader
from impl.mode import RunPolicy
from impl.waves import MemoryWaveAdapter
from impl.waves import WaveAggregate
from impl.waves import WaveCompletion
from impl.waves import WavePing
from impl.waves import WaveRunHandle
from impl.waves import WaveScriptSpec
from impl.waves import WaveSpawnParams
from impl.waves import run_wave_script
from impl.waves import start_wave_script

FLOW = "f"


def spec(timeout_ms: float | None) -> WaveScriptSpec:
    return WaveScriptSpec(
        flow=FLOW, workflow_script="run()", output_schema={}, timeout_ms=timeout_ms
    )


@pytest.mark.parametrize(
    ("timeout_ms", "shown"),
    [(0, "0"), (-5, "-5"), (math.nan, "NaN"), (math.inf, "Infinity"), (10**400, "Infinity")],
)
def test_a_timeout_the_clock_cannot_wait_fires_at_once_and_prints_as_given(
    timeout_ms: float, shown: str
) -> None:
    adapter = MemoryWaveAdapter(completion=False)
    result = run_virtual(run_wave_script(adapter, spec(timeout_ms)))
    assert result.failure is not None
    assert result.failure.detail == f"wave '{FLOW}' timed out after {shown}ms"
    if timeout_ms == 10**400:  # narrowed as a JS number holds it, in the spawn params too
        assert adapter.calls.spawn[0].timeout_ms == math.inf


class Stalling(VirtualClock):
    """A loop on a machine so busy that a second passes between any two reads of its clock."""

    def time(self) -> float:
        self.now += 1.0
        return self.now


@pytest.mark.parametrize("timeout_ms", [0, 1, 500])
def test_a_ping_and_spawn_that_answer_at_once_beat_any_deadline_however_slow_the_machine(
    timeout_ms: int,
) -> None:
    # CI found this: under load, a ping ready at once lost to its 1 ms deadline, because the
    # deadline was judged before the ping had had a turn on the loop.
    adapter = MemoryWaveAdapter(completion=False)
    with asyncio.Runner(loop_factory=Stalling) as runner:
        result = runner.run(run_wave_script(adapter, spec(timeout_ms)))
    assert result.failure is not None
    assert result.failure.detail.startswith(f"wave '{FLOW}' timed out after {timeout_ms}ms")
    assert adapter.calls.ping == 1 and len(adapter.calls.spawn) == 1


def test_an_erl_past_a_doubles_range_saturates_as_the_seeds_f32() -> None:
    assert Erl(10**400).value == math.inf
    assert Erl(-(10**400)).value == -math.inf
    with pytest.raises(TypeError, match="^value must be a real number"):
        Erl("1")  # type: ignore[arg-type]


def test_an_event_of_an_earlier_asyncio_run_is_an_error_not_an_abort() -> None:
    signal = asyncio.Event()
    first = asyncio.run(run_wave_script(MemoryWaveAdapter(), spec(5_000), signal))
    assert first.ok  # the event now belongs to that (closed) loop
    adapter = MemoryWaveAdapter()
    with pytest.raises(RuntimeError, match="^signal is an asyncio.Event of another event loop"):
        asyncio.run(run_wave_script(adapter, spec(5_000), signal))
    assert adapter.calls.ping == 0  # refused at the edge, before anything ran


class Threaded:
    """An adapter whose completion arrives from its own thread, once the test says so."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.handler: Callable[[WaveCompletion], None] | None = None
        self.thread: threading.Thread | None = None

    async def ping(self) -> WavePing:
        return WavePing("done")

    def on_complete(self, handler: Callable[[WaveCompletion], None]) -> Callable[[], None]:
        self.handler = handler
        return lambda: None

    async def spawn(self, params: WaveSpawnParams) -> WaveRunHandle:
        done = WaveCompletion(async_id="a1", async_dir="/a1", state="complete", success=True)

        def deliver() -> None:
            self.go.wait()
            assert self.handler is not None
            self.handler(done)

        self.thread = threading.Thread(target=deliver)
        self.thread.start()
        return WaveRunHandle("a1", "/a1")

    async def stop(self, handle: WaveRunHandle) -> None:
        pass

    async def read_aggregate(self, handle: WaveRunHandle) -> WaveAggregate:
        return WaveAggregate(state="complete", value=["row"])


def test_a_completion_from_another_thread_wakes_the_loop() -> None:
    async def main() -> Any:
        adapter = Threaded()
        # A minute's timeout: an `ok` can only come from the completion (a completion that
        # never woke the loop would settle as a timeout, after that minute).
        start = await start_wave_script(adapter, spec(60_000))
        assert start.ok and start.result is not None
        adapter.go.set()  # the loop is idle from here: only the thread can wake it
        result = await start.result
        assert adapter.thread is not None
        adapter.thread.join()
        return result

    result = asyncio.run(main())
    assert result.ok and result.value == ["row"]


def test_an_unsubscribe_that_is_not_callable_refuses_the_start() -> None:
    class Odd(MemoryWaveAdapter):
        def on_complete(self, handler: Callable[[WaveCompletion], None]) -> Any:
            self.kept = handler
            super().on_complete(handler)
            return "not a function"

    adapter = Odd()
    start = asyncio.run(start_wave_script(adapter, spec(5_000)))
    assert not start.ok and start.failure is not None
    assert start.failure.reason == "unavailable"
    assert start.failure.detail == (
        "completion subscription failed: on_complete returned str, not an unsubscribe function"
    )
    assert adapter.calls.spawn == []
    done = WaveCompletion(async_id="wave-async-1", async_dir="/memory/wave-async-1")
    adapter.kept(done)  # the handler left behind is inert: no error, no effect


def test_ax_error_pickles_copies_and_crosses_a_process_pool() -> None:
    error = AxError(next(iter(AxCode)), "write", "notes.md", "ask for work mode")
    for twin in (pickle.loads(pickle.dumps(error)), copy.copy(error), copy.deepcopy(error)):
        assert type(twin) is AxError and str(twin) == str(error)
        assert (twin.code, twin.action, twin.subject, twin.recovery) == (
            error.code,
            error.action,
            error.subject,
            error.recovery,
        )
    with ProcessPoolExecutor(1) as pool:
        assert str(pool.submit(_raise, error).exception()) == str(error)


def _raise(error: AxError) -> None:
    raise error


def test_the_small_points_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match="^cell must be PolicyCell, got NoneType$"):
        PolicyReader(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^ordering must be one of .*, got 'bogus'$"):
        MemoryWaveAdapter(ordering="bogus")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="^spawn_error must be an Exception or None, got str$"):
        MemoryWaveAdapter(spawn_error="boom")  # type: ignore[arg-type]
    # The wire strings the annotations now admit are what the constructors take.
    policy = RunPolicy("chat", "full", "standing", "ordinary")
    assert policy == RunPolicy.of("chat")
    assert PolicyReader(PolicyCell(policy)).now() == policy


class Stubborn(MemoryWaveAdapter):
    """A `stop` that swallows its cancellation and waits again, as a careless adapter might."""

    async def stop(self, handle: WaveRunHandle) -> None:
        await super().stop(handle)
        while True:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.Event().wait()


def test_an_abandoned_stop_that_swallows_cancellation_is_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(waves, "WAVE_STOP_GRACE_MS", 1)
    results: list[Any] = []

    def wave() -> None:  # asyncio.run returns only once no task is left
        results.append(asyncio.run(run_wave_script(Stubborn(completion=False), spec(1))))

    runner = threading.Thread(target=wave, daemon=True)
    runner.start()
    runner.join(timeout=60)  # a generous bound: the broken case never returns at all
    assert not runner.is_alive(), "asyncio.run did not return: the abandoned stop lived on"
    (result,) = results
    assert result.failure is not None
    assert (
        result.failure.detail
        == f"wave '{FLOW}' timed out after 1ms (stop did not finish within 1ms)"
    )
