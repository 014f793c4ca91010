"""An asyncio event loop on virtual time, so that no test's verdict depends on the machine's speed.

`VirtualTimeLoop.time()` is a number the loop moves itself: whenever nothing is ready to
run, it jumps straight to the next timer instead of sleeping until it. Timers, `call_later`,
`asyncio.sleep` and `asyncio.wait(timeout=...)` keep their order and their exact delays, but
a busy machine can no longer make a 20 ms timeout fire before an answer due in 3 ms. A loop
with nothing ready and no timer would wait forever: it raises `Stuck` instead.

Used by the impl.waves unit tests (tests/test_impl_waves*.py) and by the concurrent waves
of conformance/test_waves.py. The deterministic harness there moves its clock by hand
(`VirtualClockLoop`): that one never advances on its own.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

_T = TypeVar("_T")


class Stuck(RuntimeError):
    """Nothing is ready and no timer is set: on a real clock the loop would hang."""


class _Selector(selectors.DefaultSelector):
    """Polls without waiting; a wait for `timeout` seconds moves the virtual clock instead."""

    def __init__(self, loop: VirtualTimeLoop) -> None:
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


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """A selector loop whose clock starts at 0 and jumps to the next timer when idle."""

    def __init__(self) -> None:
        self.now = 0.0
        super().__init__(_Selector(self))

    def time(self) -> float:
        return self.now


def run_virtual(main: Coroutine[Any, Any, _T]) -> _T:
    """`asyncio.run(main)` on a fresh VirtualTimeLoop."""
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(main)
