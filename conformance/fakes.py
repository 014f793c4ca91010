"""The virtual clock and the fake wave adapter every test of impl.waves shares.

What `trio.testing` is to trio: `VirtualClock` is an event loop on virtual time (run by
`run_virtual`, it jumps to the next timer whenever nothing is ready; the conformance
driver moves it by hand), so no test waits on, or depends on, the machine's speed; `Faulty` is
impl's `MemoryWaveAdapter` with any answer replaced (a value, an error, an await that
never ends) and a hook on each call. The conformance driver (conformance/drivers/wave.py)
runs on the clock; tests/test_impl_waves*.py use both.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable
from collections.abc import Coroutine
from typing import Any
from typing import TypeVar

from impl.waves import MemoryWaveAdapter
from impl.waves import WaveAggregate
from impl.waves import WaveCompletion
from impl.waves import WavePing
from impl.waves import WaveRunHandle
from impl.waves import WaveSpawnParams

T = TypeVar("T")


class Stuck(RuntimeError):
    """Nothing is ready and no timer is set: on a real clock the loop would hang."""


class _Selector(selectors.DefaultSelector):
    """Polls without waiting; a wait for `timeout` seconds moves the virtual clock instead."""

    def __init__(self, loop: VirtualClock) -> None:
        super().__init__()
        self.loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[Any, int]]:
        events: list[tuple[Any, int]] = super().select(0)
        if events or timeout == 0:
            return events
        if timeout is None:
            raise Stuck("nothing is ready and no timer is set: the code under test hangs")
        self.loop.now += timeout
        return events


class VirtualClock(asyncio.SelectorEventLoop):
    """An event loop on virtual time. Run (`run_virtual`), it jumps to the next timer
    whenever nothing is ready instead of sleeping; a test may also move it by hand
    (`settle`, `turn`, `advance`), as the conformance driver does, one step at a time.
    """

    def __init__(self) -> None:
        self.now = 0.0
        super().__init__(_Selector(self))

    def time(self) -> float:
        return self.now

    def ready(self) -> int:
        return len(self._ready)  # type: ignore[attr-defined]

    def timers(self) -> list[asyncio.TimerHandle]:
        scheduled: list[asyncio.TimerHandle] = self._scheduled  # type: ignore[attr-defined]
        return [h for h in scheduled if not h.cancelled()]

    def next_timer(self) -> float:
        """How long until the next live timer."""
        return min(h.when() for h in self.timers()) - self.now

    def _once(self) -> None:
        """One turn of the loop (what is due, what is ready), with no task of its own."""
        self.call_soon(self.stop)
        self.run_forever()

    def settle(self) -> None:
        """Run until nothing is ready (never waiting on a timer: the clock is virtual)."""
        for _ in range(1_000):
            if not self.ready():
                return
            self._once()
        raise AssertionError("the loop never settles: a callback keeps rescheduling itself")

    def turn(self) -> None:
        """Run what is due at `now` (timers included), then until nothing is ready."""
        self._once()
        self.settle()

    def advance(self) -> None:
        """Move the clock to the next timer, if any, and run what is due."""
        pending = self.timers()
        if pending:
            self.now = max(self.now, min(h.when() for h in pending))
            self.turn()
        else:
            self.settle()


def run_virtual(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` on a fresh VirtualClock: timers, `asyncio.sleep` and
    `asyncio.wait(timeout=...)` keep their order and exact delays, whatever the load."""
    with asyncio.Runner(loop_factory=VirtualClock) as runner:
        return runner.run(main)


async def forever() -> Any:
    """An await that never ends: as an answer, a call that hangs."""
    return await asyncio.get_running_loop().create_future()


REAL: Any = object()  # "answer as the memory adapter would"
Hook = Callable[["Faulty"], None]


class Faulty(MemoryWaveAdapter):
    """The memory adapter with each await answered at will, and a hook on each call.

    `ping`, `spawn`, `stop`, `read`: what the call answers once the memory adapter has
    taken it (and recorded it in `calls`): `REAL` (its own answer), an exception (raised),
    an async callable such as `forever` (awaited; its result is the answer), or any other
    value (returned as it is, a malformed answer). `during_ping`, `during_spawn`,
    `during_stop` run with the adapter when that call arrives. `subscribe_error` makes
    `on_complete` raise; `unsubscribe_error` makes the unsubscribe it hands back raise
    after unsubscribing. `handlers` keeps every handler the runner subscribed, in order, so
    a test can call one late. Every other knob is the memory adapter's.
    """

    def __init__(
        self,
        *,
        ping: Any = REAL,
        spawn: Any = REAL,
        stop: Any = REAL,
        read: Any = REAL,
        subscribe_error: Exception | None = None,
        unsubscribe_error: Exception | None = None,
        during_ping: Hook | None = None,
        during_spawn: Hook | None = None,
        during_stop: Hook | None = None,
        **knobs: Any,
    ) -> None:
        super().__init__(**knobs)
        self.answers = {"ping": ping, "spawn": spawn, "stop": stop, "read": read}
        self.subscribe_error = subscribe_error
        self.unsubscribe_error = unsubscribe_error
        self.during = {"ping": during_ping, "spawn": during_spawn, "stop": during_stop}
        self.handlers: list[Callable[[WaveCompletion], None]] = []

    def _arrives(self, call: str) -> None:
        hook = self.during.get(call)
        if hook is not None:
            hook(self)

    async def _answer(self, call: str, real: Any) -> Any:
        answer = self.answers[call]
        if answer is REAL:
            return real
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return await answer()
        return answer

    async def ping(self) -> WavePing | None:
        self._arrives("ping")
        answer: WavePing | None = await self._answer("ping", await super().ping())
        return answer

    def on_complete(self, handler: Callable[[WaveCompletion], None]) -> Callable[[], None]:
        if self.subscribe_error:
            raise self.subscribe_error
        self.handlers.append(handler)
        unsubscribe = super().on_complete(handler)
        error = self.unsubscribe_error
        if error is None:
            return unsubscribe

        def broken() -> None:
            unsubscribe()
            raise error

        return broken

    async def spawn(self, params: WaveSpawnParams) -> WaveRunHandle:
        self._arrives("spawn")
        handle: WaveRunHandle = await self._answer("spawn", await super().spawn(params))
        return handle

    async def stop(self, handle: WaveRunHandle) -> None:
        await super().stop(handle)
        self._arrives("stop")
        await self._answer("stop", None)

    async def read_aggregate(self, handle: WaveRunHandle) -> WaveAggregate:
        aggregate: WaveAggregate = await self._answer("read", await super().read_aggregate(handle))
        return aggregate
