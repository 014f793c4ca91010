"""The wave driver: impl.waves in the `wave` model's vocabulary (seed transport.ts).

The deterministic harness (docs/field-notes.md §6):

- A scripted adapter: every await (ping, spawn, stop, read_aggregate) parks on a future that
  the test resolves or fails; on_complete and its unsubscribe behave as the model's subscribe
  step says (raise, or hand back an unsubscribe that raises); every call is logged in order.
- A private event loop per example, on the virtual clock (conformance/fakes.py): a timer
  fires only when the `deadline` trigger moves the clock to the loop's next timer.
- After each step the driver runs the loop until nothing is ready, then reports the step's
  adapter calls (the model's `calls` output) and, on the step where the run settles, its
  result (reason, receipt state, ids, value, detail line). `observe` reports the live
  subscription and, once settled with a receipt, whose children the receipt carries.

The driver only translates vocabulary. Two points need care:

- From the ping reply to the spawn call the runner never awaits, so the model's re-check and
  subscribe phases are instants of the implementation. Resolving the ping with a WavePing
  leaves the loop unrun ("in transit") until the model takes the re-check (when aborted) or
  the subscribe step, whose answer the adapter then gives. Events cannot land there: the
  model's ignore rows say so, and the driver delivers none.
- Completions are made concrete here, varying which identifier carries the match (asyncDir,
  asyncId, or both, and an own asyncId beside a foreign asyncDir); each carries a child whose
  key names its kind, so the receipt's children say which completion won.

Used by conformance/test_waves.py, the mutant gate and the transport.ts seed plugin.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import impl.waves as w
from conformance.fakes import VirtualClock
from conformance.harness import BaseDriver
from conformance.harness import Mismatch
from models import wave as m
from models.kernel.domains import Value
from models.kernel.expr import Enabled
from models.kernel.expr import Env
from models.kernel.expr import evaluate

FLOW = "pr-review"
TIMEOUT_MS = 5_000
# The launch's timeout, by the model's kind: each value the run may get, with the `<ms>` text
# its details must carry (wave-transport.md §5; impl/waves.py docstring).
TIMEOUTS: dict[m.Timeout, list[tuple[float | None, str]]] = {
    m.Timeout.GIVEN: [(TIMEOUT_MS, "5000ms"), (12.5, "12.5ms")],
    m.Timeout.BELOW_ONE: [
        (0, "0ms"),
        (-5, "-5ms"),
        (math.nan, "NaNms"),
        (math.inf, "Infinityms"),
        (0.25, "0.25ms"),
    ],
    m.Timeout.HUGE: [(1e10, "10000000000ms"), (2**31, "2147483648ms")],
    m.Timeout.DEFAULT: [(None, f"{w.WAVE_TIMEOUT_MS}ms")],
}
HANDLE = w.WaveRunHandle(async_id="wave-async-7", async_dir="/runs/wave-async-7")
OTHER = w.WaveRunHandle(async_id="wave-async-8", async_dir="/runs/wave-async-8")

ARRAY: list[Any] = ["durable-row"]
SCALAR: dict[str, Any] = {"not": "an array"}
RETAINED: list[Any] = ["retained-row"]
AGG_STATE = {
    m.AggState.COMPLETE: "complete",
    m.AggState.FAILED: "failed",
    m.AggState.PARTIAL: "partial",
    m.AggState.OTHER: "cancelled",
}
AGG_VALUE: dict[m.AggValue, Any] = {
    m.AggValue.ARRAY: ARRAY,
    m.AggValue.SCALAR: SCALAR,
    m.AggValue.ABSENT: None,
}
RECEIPTS = {
    w.WaveReceiptState.UNAVAILABLE: m.R.R_UNAVAILABLE,
    w.WaveReceiptState.SPAWN_FAILED: m.R.R_SPAWN_FAILED,
    w.WaveReceiptState.COMPLETE: m.R.R_COMPLETE,
    w.WaveReceiptState.FAILED: m.R.R_FAILED,
    w.WaveReceiptState.TIMED_OUT: m.R.R_TIMED_OUT,
    w.WaveReceiptState.CANCELLED: m.R.R_CANCELLED,
}
GROUPS = {t.name: t.group for t in m.SPEC.triggers}
# When a trigger does something: some non-ignore row of it is enabled.
ANSWERABLE = {name: m.SPEC.expand(Enabled((name,))) for name in GROUPS}
ABORTS = ANSWERABLE["abort"]
INSTANTS = (m.RECHECK, m.SUBSCRIBE)  # the implementation runs these without yielding
LATE = (m.STOP, m.READ, m.SETTLED)  # the outcome is decided: the abort listener is gone


def child(kind: m.Completion) -> w.WaveChildReceipt:
    """The child a completion of `kind` carries: its key names the kind."""
    return w.WaveChildReceipt(key=kind.name, run_id=f"child-of-{kind.name.lower()}")


def completion(kind: m.Completion, n: int) -> w.WaveCompletion:
    """A concrete completion of `kind`; `n` varies which identifier carries the match."""
    shapes: list[dict[str, Any]]
    if kind is m.FOREIGN:
        shapes = [
            {"async_id": OTHER.async_id, "async_dir": OTHER.async_dir},
            {"async_dir": OTHER.async_dir},
            {},  # no identifier at all: never a match
            {"async_id": OTHER.async_id, "state": "complete", "success": True},
        ]
    else:
        shapes = [
            {"async_id": HANDLE.async_id, "async_dir": HANDLE.async_dir},
            {"async_dir": HANDLE.async_dir},
            {"async_id": HANDLE.async_id},
            {"async_id": HANDLE.async_id, "async_dir": OTHER.async_dir},  # asyncId alone matches
        ]
    fields: dict[str, Any] = {"children": [child(kind)], **shapes[n % len(shapes)]}
    if kind is m.OWN_FAILED_PARTIAL:
        fields.update(
            state="failed",
            success=False,
            terminal_outcome=w.TerminalOutcome("partial", "timeout"),
            retained_entries=RETAINED,
        )
    elif kind is m.OWN_NULL_OUTCOME:  # Python has one None: a null marker is an absent one
        fields.update(state="failed", terminal_outcome=None)
    elif kind is m.OWN_BAD_OUTCOME:  # not a TerminalOutcome: a dict of the right keys, a str
        bad: Any = {"state": "partial", "reason": "timeout"} if n % 2 else "partial"
        fields.update(terminal_outcome=bad)
    elif kind is m.OWN:
        fields.update(state="complete", success=True)
    elif kind is m.OWN_FAILED:
        fields.update(state="failed", success=False)
    elif kind is m.OWN_PARTIAL:
        fields.update(
            terminal_outcome=w.TerminalOutcome("partial", "timeout"), retained_entries=RETAINED
        )
    elif kind is m.OWN_PARTIAL_BARE:
        fields.update(
            terminal_outcome=w.TerminalOutcome("partial", "budget_exhausted"),
            retained_entries=None if n % 2 else [],
        )
    return w.WaveCompletion(**fields)


# Across examples: which value of a timeout kind the next launch gets.
LAUNCHES = itertools.count()


class Scripted:
    """A WaveAdapter whose every await parks on a future the test controls."""

    def __init__(self, loop: VirtualClock) -> None:
        self.loop = loop
        self.log: list[m.Call] = []
        self.pending: dict[m.Call, asyncio.Future[Any]] = {}
        self.handlers: dict[int, Any] = {}
        self.subscribe_answer = m.SubscribeAnswer.SUBSCRIBED
        self.spawned: list[w.WaveSpawnParams] = []
        self.late = False  # the run has settled: a late stop returns at once

    async def _park(self, call: m.Call) -> Any:
        self.log.append(call)
        future: asyncio.Future[Any] = self.loop.create_future()
        self.pending[call] = future
        return await future

    async def ping(self) -> w.WavePing | None:
        answer: w.WavePing | None = await self._park(m.Call.PING)
        return answer

    def on_complete(self, handler: Any) -> Any:
        self.log.append(m.Call.SUBSCRIBE)
        if self.subscribe_answer is m.SubscribeAnswer.RAISES:
            raise RuntimeError("subscription refused")
        key = len(self.log)
        self.handlers[key] = handler
        raises = self.subscribe_answer is m.SubscribeAnswer.UNSUBSCRIBE_RAISES

        def unsubscribe() -> None:
            self.log.append(m.Call.UNSUBSCRIBE)
            self.handlers.pop(key, None)
            if raises:
                raise RuntimeError("unsubscribe failed")

        return unsubscribe

    async def spawn(self, params: w.WaveSpawnParams) -> w.WaveRunHandle:
        self.spawned.append(params)
        handle: w.WaveRunHandle = await self._park(m.Call.SPAWN)
        return handle

    async def stop(self, handle: w.WaveRunHandle) -> None:
        if handle != HANDLE:
            raise Mismatch(f"stop({handle}) is not the spawned run")
        if self.late:  # the late spawn's stop: its answer is not the model's to see
            self.log.append(m.Call.STOP)
            return
        await self._park(m.Call.STOP)

    async def read_aggregate(self, handle: w.WaveRunHandle) -> w.WaveAggregate:
        if handle != HANDLE:
            raise Mismatch(f"read_aggregate({handle}) is not the spawned run")
        aggregate: w.WaveAggregate = await self._park(m.Call.READ)
        return aggregate

    def answer(self, call: m.Call, result: Any = None, error: Exception | None = None) -> bool:
        """Resolve (or fail) the pending `call`; False if nothing is pending."""
        future = self.pending.get(call)
        if future is None or future.done():
            return False
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
        return True

    def emit(self, completion: w.WaveCompletion | None) -> None:
        for handler in list(self.handlers.values()):
            handler(completion)


@dataclass
class Run:
    """One example: a private loop, the scripted adapter, the abort signal, the wave's tasks."""

    loop: VirtualClock
    adapter: Scripted
    signal: asyncio.Event
    starter: asyncio.Task[w.WaveScriptStart] | None = None
    result: asyncio.Task[w.WaveScriptResult] | None = None
    transit: m.Phase | None = None  # the ping answered: the runner's next instant, not yet run
    hung: set[m.Call] = field(default_factory=set)
    reported: bool = False
    receipt: w.WaveScriptReceipt | None = None
    completions: int = 0
    aggregates: int = 0
    aggregate: w.WaveAggregate | None = None
    timeout_ms: float | None = TIMEOUT_MS
    ms: str = "5000ms"  # the `<ms>` text of this run's details
    answers: int = 0  # varies the shape of malformed answers

    @property
    def in_transit(self) -> bool:
        return self.transit is not None

    def settle(self) -> None:
        if not self.in_transit:
            self.loop.settle()


NO_RESULT: dict[str, Value] = {
    "result": m.Result.NO_RESULT,
    "receipt": m.R.NO_RECEIPT,
    "ids": False,
    "value": m.Value.NO_VALUE,
    "detail": m.Detail.NO_DETAIL,
    "keyed": False,
}


class WaveDriver(BaseDriver):
    spec = m.SPEC

    def start(self, init: Mapping[str, Value]) -> Run:
        loop = VirtualClock()
        signal = asyncio.Event()
        return Run(loop, Scripted(loop), signal)

    def close(self, impl: Any) -> None:
        run: Run = impl
        loop = run.loop
        for _ in range(10):  # tear down what an unsettled example leaves (a stop may hang)
            tasks = asyncio.all_tasks(loop)
            if not tasks and not loop.timers():
                break
            for task in tasks:
                task.cancel()
            run.transit = None
            loop.advance()
        assert not asyncio.all_tasks(loop), "the wave left tasks behind"
        loop.close()

    def enabled(self, trigger: str, state: Mapping[str, Value]) -> bool:
        return _enabled(trigger, tuple(state[name] for name in NAMES))

    # ------------------------------------------------------------ stepping

    def fire(self, impl: Any, trigger: str, params: Mapping[str, Value]) -> dict[str, Value]:
        run: Run = impl
        mark = len(run.adapter.log)
        getattr(self, f"_{trigger}")(run, params)
        outputs: dict[str, Value] = {"calls": tuple(run.adapter.log[mark:]), **NO_RESULT}
        if not run.reported and not run.in_transit:
            settled = self._settled(run)
            if settled is not None:
                run.reported = True
                run.adapter.late = True
                outputs.update(settled)
        return outputs

    def _launch(self, run: Run, params: Mapping[str, Value]) -> None:
        if run.starter is None:
            choices = TIMEOUTS[params["timeout"]]
            run.timeout_ms, run.ms = choices[next(LAUNCHES) % len(choices)]
            spec = w.WaveScriptSpec(
                flow=FLOW,
                workflow_script="run()",
                output_schema={"type": "object"},
                timeout_ms=run.timeout_ms,
            )
            run.starter = run.loop.create_task(w.start_wave_script(run.adapter, spec, run.signal))
            run.settle()

    def _ping_replies(self, run: Run, params: Mapping[str, Value]) -> None:
        answer = params["answer"]
        run.answers += 1
        odd: Any = {"asyncCompleteEvent": "subagent:done"} if run.answers % 2 else "pong"
        if answer is m.PingAnswer.RAISES:
            run.adapter.answer(m.Call.PING, error=RuntimeError("rpc down"))
        elif run.adapter.answer(
            m.Call.PING,
            {
                m.PingAnswer.NULL: None,
                m.PingAnswer.ADVERTISED: w.WavePing("subagent:done"),
                m.PingAnswer.MALFORMED: odd,
            }[answer],
        ):
            # A WavePing: the runner re-checks, subscribes and spawns without yielding. The
            # model takes those as steps, so the loop runs when it reaches them.
            run.transit = m.RECHECK if answer is m.PingAnswer.ADVERTISED else None
        run.settle()

    def _recheck(self, run: Run, params: Mapping[str, Value]) -> None:
        if run.transit is m.RECHECK:
            if run.signal.is_set():
                run.transit = None  # refused: the runner stops at the re-check
                run.settle()
            else:
                run.transit = m.SUBSCRIBE

    def _subscribe(self, run: Run, params: Mapping[str, Value]) -> None:
        if run.transit is m.SUBSCRIBE:
            run.adapter.subscribe_answer = params["answer"]
            run.transit = None
            run.settle()
            given = w.WAVE_TIMEOUT_MS if run.timeout_ms is None else run.timeout_ms
            for spawned in run.adapter.spawned:  # F5's fixed params (§2), the timer's timeout
                same = spawned.timeout_ms == given or (
                    math.isnan(given) and math.isnan(spawned.timeout_ms)
                )
                fixed = (spawned.async_, spawned.mission, spawned.context, spawned.acceptance)
                if not same or fixed != (True, False, "fresh", w.WAVE_ACCEPTANCE):
                    raise Mismatch(f"spawn params {spawned}")

    def _spawn_replies(self, run: Run, params: Mapping[str, Value]) -> None:
        answer = params["answer"]
        run.answers += 1
        odd: Any = {"asyncId": HANDLE.async_id} if run.answers % 2 else HANDLE.async_id
        if answer is m.SpawnAnswer.RAISES:
            run.adapter.answer(m.Call.SPAWN, error=RuntimeError("no capacity"))
        else:
            run.adapter.answer(
                m.Call.SPAWN,
                {
                    m.SpawnAnswer.HANDLE: HANDLE,
                    m.SpawnAnswer.NULL: None,
                    m.SpawnAnswer.MALFORMED: odd,
                }[answer],
            )
        run.settle()

    def _stop_replies(self, run: Run, params: Mapping[str, Value]) -> None:
        if m.Call.STOP not in run.hung:
            if params["answer"] is m.StopAnswer.RETURNS:
                run.adapter.answer(m.Call.STOP)
            else:
                run.adapter.answer(m.Call.STOP, error=RuntimeError("stop refused"))
        run.settle()

    def _read_replies(self, run: Run, params: Mapping[str, Value]) -> None:
        if m.Call.READ not in run.hung:
            run.aggregates += 1
            error = "lane 3 crashed" if run.aggregates % 2 else None
            state = params["state"]
            run.aggregate = w.WaveAggregate(
                state=AGG_STATE[state],
                value=AGG_VALUE[params["value"]],
                error=None if state is m.AggState.COMPLETE else error,
            )
            run.adapter.answer(m.Call.READ, run.aggregate)
        run.settle()

    def _read_fails(self, run: Run, params: Mapping[str, Value]) -> None:
        if m.Call.READ not in run.hung:
            if params["how"] is m.ReadFailure.RAISES:
                run.adapter.answer(m.Call.READ, error=RuntimeError("status.json is corrupt"))
            else:
                run.adapter.answer(m.Call.READ, {"state": "complete", "value": ARRAY})
        run.settle()

    def _abort(self, run: Run, params: Mapping[str, Value]) -> None:
        if not run.in_transit:
            run.signal.set()
            run.settle()

    def _completion(self, run: Run, params: Mapping[str, Value]) -> None:
        if not run.in_transit:
            run.completions += 1
            kind = params["of"]
            made = None if kind is m.NULL_COMPLETION else completion(kind, run.completions)
            run.adapter.emit(made)
            run.settle()

    def _cancel(self, run: Run, params: Mapping[str, Value]) -> None:
        if run.in_transit:
            return
        if run.starter is not None and not run.starter.done():
            run.starter.cancel()
        elif run.result is not None:
            run.result.cancel()
        run.settle()

    def _hang(self, run: Run, params: Mapping[str, Value]) -> None:
        for call in (m.Call.STOP, m.Call.READ):
            future = run.adapter.pending.get(call)
            if future is not None and not future.done():
                run.hung.add(call)  # never answered from now on

    def _deadline(self, run: Run, params: Mapping[str, Value]) -> None:
        if not run.in_transit:
            run.loop.advance()

    # ------------------------------------------------------------ reading the implementation

    def _settled(self, run: Run) -> dict[str, Value] | None:
        """The run's result in model terms, once it has one."""
        starter = run.starter
        if starter is None or not starter.done():
            return None
        if starter.cancelled():
            return {**NO_RESULT, "result": m.Result.CANCELLED_ERROR}
        if starter.exception() is not None:
            return {**NO_RESULT, "result": m.Result.REJECTED}
        start = starter.result()
        if not start.ok:
            assert start.failure is not None and start.receipt is not None
            return self._failure(run, start.failure, start.receipt, None)
        if run.result is None:
            assert start.result is not None and start.handle == HANDLE
            run.result = start.result
        if not run.result.done():
            return None
        if run.result.cancelled():
            return {**NO_RESULT, "result": m.Result.CANCELLED_ERROR}
        if run.result.exception() is not None:
            return {**NO_RESULT, "result": m.Result.REJECTED}
        result = run.result.result()
        if result.ok:
            if result.failure is not None:
                raise Mismatch(f"an ok result with a failure: {result}")
            run.receipt = result.receipt
            return {
                **NO_RESULT,
                "result": m.Result.OK,
                "receipt": RECEIPTS[result.receipt.state],
                "ids": self._ids(result.receipt),
                "value": self._value(result.value),
            }
        assert result.failure is not None
        return self._failure(run, result.failure, result.receipt, result.value)

    def _failure(
        self, run: Run, failure: w.WaveRunFailure, receipt: w.WaveScriptReceipt, value: Any
    ) -> dict[str, Value]:
        run.receipt = receipt
        return {
            "keyed": failure.key is not None,
            "result": m.Result(failure.reason.value),
            "receipt": RECEIPTS[receipt.state],
            "ids": self._ids(receipt),
            "value": self._value(value),
            "detail": self._detail(run, failure.detail),
        }

    @staticmethod
    def _ids(receipt: w.WaveScriptReceipt) -> Value:
        ids = (receipt.run_id, receipt.async_dir)
        if ids == (None, None):
            return False
        if ids == (HANDLE.async_id, HANDLE.async_dir):
            return True
        return f"foreign ids {ids}"  # matches no model value

    @staticmethod
    def _value(value: Any) -> Value:
        for known, name in (
            (ARRAY, m.Value.ARRAY),
            (SCALAR, m.Value.SCALAR),
            (RETAINED, m.Value.RETAINED),
            ([], m.Value.EMPTY),
        ):
            if value is not None and value == known and type(value) is type(known):
                return name
        return m.Value.NO_VALUE if value is None else f"unknown value {value!r}"

    @staticmethod
    def _detail(run: Run, detail: str) -> Value:
        """The detail's line in §4's table, checked in full against what the test gave."""
        stopped = {
            f"wave '{FLOW}' timed out after {run.ms}": "TIMED_OUT",
            f"wave '{FLOW}' was cancelled": "WAS_CANCELLED",
        }
        notes = {
            "": "",
            " (stop failed: stop refused)": "_STOP_FAILED",
            f" (stop did not finish within {w.WAVE_STOP_GRACE_MS}ms)": "_STOP_ABANDONED",
        }
        exact = {
            f"wave '{FLOW}' was cancelled before launch": m.Detail.BEFORE_LAUNCH,
            "subagent RPC ping failed: rpc down": m.Detail.PING_FAILED,
            "pi-subagents did not advertise the report-wave capabilities "
            "(ping failed or incomplete)": m.Detail.NOT_ADVERTISED,
            "completion subscription failed: subscription refused": m.Detail.SUBSCRIPTION_FAILED,
            "wave spawn failed: no capacity": m.Detail.SPAWN_FAILED,
            f"subagent RPC ping failed: ping did not answer within {run.ms}": (
                m.Detail.PING_FAILED
            ),
            f"wave spawn failed: spawn did not answer within {run.ms}": m.Detail.SPAWN_FAILED,
            **{
                f"wave spawn failed: not a WaveRunHandle: {kind}": m.Detail.SPAWN_FAILED
                for kind in ("NoneType", "dict", "str")
            },
            f"wave '{FLOW}' was cancelled (spawn did not answer)": (
                m.Detail.WAS_CANCELLED_SPAWN_ABANDONED
            ),
            "wave aggregate unreadable: status.json is corrupt": m.Detail.UNREADABLE,
            "wave aggregate unreadable: not a WaveAggregate: dict": m.Detail.UNREADABLE,
            f"wave aggregate unreadable: read did not finish within {run.ms}": (
                m.Detail.UNREADABLE
            ),
            **{
                what + note: m.Detail[name + suffix]
                for what, name in stopped.items()
                for note, suffix in notes.items()
            },
        }
        if detail in exact:
            return exact[detail]
        aggregate = run.aggregate
        if aggregate is not None:
            err = "" if aggregate.error is None else f": {aggregate.error}"
            if detail == f"wave run ended '{aggregate.state}'{err}":
                return m.Detail.RUN_ENDED
            partial = re.fullmatch(
                rf"wave run ended '{aggregate.state}' \(native partial: "
                rf"(timeout|budget_exhausted)\){re.escape(err)}",
                detail,
            )
            if partial:
                return m.Detail.NATIVE_PARTIAL
        return f"unrecognised detail {detail!r}"

    def observe(self, impl: Any) -> dict[str, Value]:
        run: Run = impl
        live = len(run.adapter.handlers)
        if live > 1:
            raise Mismatch(f"{live} live subscriptions")
        seen: dict[str, Value] = {"subscribed": live == 1}
        if run.reported:
            # Nothing is left behind but the watch on a spawn still unanswered (`reaping`).
            seen["reaping"] = bool(asyncio.all_tasks(run.loop) or run.loop.timers())
            if run.receipt is not None:
                seen["matched"] = self._children(run.receipt)
        return seen

    @staticmethod
    def _children(receipt: w.WaveScriptReceipt) -> Value:
        """Whose children the receipt carries: the match's (model `matched`), or none."""
        if not receipt.children:
            return None
        kinds = {c.key for c in receipt.children}
        if len(kinds) != 1 or receipt.children != [child(m.Completion[kinds.pop()])]:
            return f"children {receipt.children}"
        return m.Completion[receipt.children[0].key]


NAMES = tuple(v.name for v in m.SPEC.vars)


@functools.cache
def _enabled(trigger: str, state: tuple[Value, ...]) -> bool:
    """Steps that do something, plus the no-ops worth a look: an abort or a completion once
    the outcome is decided (the listener is gone, acceptance closed), and every trigger once
    the run has settled (late answers, time passing, a second launch). The other no-ops (an
    answer to no call while running) are replayed once each, and `observe` checks that a
    settled wave leaves no task or timer behind but the watch on a late spawn."""
    values = dict(zip(NAMES, state, strict=True))
    phase = values["phase"]
    if phase is m.SETTLED:  # the run is over: whatever comes now must change nothing
        return True
    if phase in INSTANTS and GROUPS[trigger] != m.RUNNER:
        return False  # the implementation runs these instants without yielding
    if trigger == "abort":  # a second abort changes nothing; a late one is worth a look
        late = phase in (m.STOP, m.READ)
        return late or (not values["aborted"] and bool(evaluate(ABORTS, Env(pre=values))))
    if trigger == "completion" and phase in LATE:
        return True
    return bool(evaluate(ANSWERABLE[trigger], Env(pre=values)))


DRIVER = WaveDriver()
