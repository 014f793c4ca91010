"""impl.waves against the `wave` model (seed transport.ts): lockstep, replay, many waves at once.

The driver (conformance/drivers/wave.py) runs impl on a virtual clock with a scripted
adapter. Besides the harness's lockstep (one hypothesis rule per trigger) and its replay of
every row's shortest witness, `test_every_transition_replays` replays each reachable model
state (by its shortest path) followed by each event there: every transition of the model,
about a thousand, against the implementation. `test_concurrent_waves` runs 250 waves
concurrently with small timeouts and random adapter delays, on virtual time (`run_virtual`,
conformance/fakes.py: the clock jumps to the next timer when idle), and checks the model's
properties on each outcome, so the lockstep driver is not the only witness.
`test_waves_on_real_timers` (`make test` only) runs the same waves on real timers,
asserting only what holds at any speed.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import Phase
from hypothesis import settings

import impl.waves as w
from conformance.drivers.wave import AGG_STATE
from conformance.drivers.wave import AGG_VALUE
from conformance.drivers.wave import DRIVER
from conformance.drivers.wave import GROUPS
from conformance.drivers.wave import HANDLE
from conformance.drivers.wave import WaveDriver
from conformance.drivers.wave import child
from conformance.drivers.wave import completion
from conformance.fakes import run_virtual
from conformance.harness import coverage_for
from conformance.harness import replay
from conformance.harness import replay_row
from conformance.harness import run_lockstep
from conformance.harness import transitions
from models import wave as m
from models.kernel.explore import Edge
from models.kernel.explore import explore
from models.kernel.trace import Step
from models.kernel.trace import Trace


def test_every_trigger_is_driven() -> None:
    assert {t.name for t in m.SPEC.triggers} == {
        name[1:] for name in vars(WaveDriver) if name.startswith("_") and name[1:] in GROUPS
    }


@pytest.mark.parametrize("row", [r.name for r in m.SPEC.rows])
def test_replay_row_witness(row: str) -> None:
    """Every row's shortest model witness runs the same on the implementation."""
    replay_row(DRIVER, row)


def _directed_walks(seed: int, tail: int = 8) -> list[Trace]:
    """Every row's shortest witness, then `tail` seeded-random model steps from where it ends
    (what comes after each arm: late answers, late events, time passing)."""
    graph = explore(m.SPEC)
    rng = random.Random(seed)
    out: dict[int, list[Edge]] = {}
    for e in graph.edges:
        out.setdefault(e.source, []).append(e)
    walks = []
    for edge in graph.row_witnesses().values():
        trace, at = graph.path_through(edge), edge.target
        steps = list(trace.steps)
        for _ in range(tail):
            e = rng.choice(out[at])
            steps.append(Step(e.row, e.trigger, e.params, graph.as_dict(e.target), e.outputs))
            at = e.target
        walks.append(Trace(trace.init, tuple(steps)))
    return walks


def test_lockstep() -> None:
    """Lockstep: first one directed walk per row (its witness and a seeded random tail), then
    hypothesis's random programs. Random programs alone miss some deep rows under the ci
    budget (swarm testing switches rules off; the ping and spawn deadlines end many runs
    early), so the directed walks make sure every row is hit in lockstep coverage."""
    coverage = coverage_for("lockstep", m.SPEC)
    for walk in _directed_walks(seed=20261201):
        replay(DRIVER, walk, coverage)
    # Half as many examples again as the loaded profile asks for: 300 under ci. A wave settles
    # within a dozen steps, so longer programs would only add late events. The harness's
    # row-count target is left out: hill-climbing it replays the same deep prefixes over and
    # over, where fresh programs explore the early arms and their interleavings.
    current = settings()  # the loaded profile
    chosen = settings(
        max_examples=current.max_examples * 3 // 2,
        stateful_step_count=min(12, current.stateful_step_count),
        phases=[p for p in current.phases if p is not Phase.target],
    )
    # A short run (the mutation profile) may miss a trigger.
    run_lockstep(DRIVER, chosen, require_every_trigger=chosen.max_examples >= 300)
    assert not coverage.missing, f"rows never hit in lockstep: {coverage.missing}"


# ---------------------------------------------------------------- every transition, replayed

GRAPH = explore(m.SPEC)


def test_every_transition_replays() -> None:
    """Each reachable state, reached by its shortest path, then each event there."""
    edges = transitions(GRAPH)
    assert len(edges) > 1_000
    for edge in edges:
        replay(DRIVER, GRAPH.path_through(edge))


# ---------------------------------------------------------------- many waves, small timeouts

HANG = "hang"


@dataclass
class Plan:
    """What one wave's adapter and caller do, with their delays (ms). Drawn from a seeded
    random; the interleavings come from the delays."""

    ping: m.PingAnswer | str
    subscribe: m.SubscribeAnswer
    spawn: m.SpawnAnswer | str
    stop: m.StopAnswer | str
    read: m.ReadFailure | tuple[m.AggState, m.AggValue] | str
    completions: list[tuple[float, m.Completion]]  # ms after the spawn call
    timeout_ms: float
    ping_ms: float
    spawn_ms: float
    answer_ms: float
    abort_ms: float | None
    cancel_ms: float | None
    blocking: bool  # run_wave_script, else start_wave_script + await result

    @classmethod
    def draw(cls, rng: random.Random) -> Plan:
        def pick(*weighted: tuple[Any, int]) -> Any:
            return rng.choices([v for v, _ in weighted], [n for _, n in weighted])[0]

        aggregate = (rng.choice(list(m.AggState)), rng.choice(list(m.AggValue)))
        return cls(
            ping=pick(
                (m.PingAnswer.ADVERTISED, 18),
                (m.PingAnswer.NULL, 1),
                (m.PingAnswer.RAISES, 1),
                (m.PingAnswer.MALFORMED, 1),
                (HANG, 1),
            ),
            subscribe=pick(
                (m.SubscribeAnswer.SUBSCRIBED, 14),
                (m.SubscribeAnswer.UNSUBSCRIBE_RAISES, 4),
                (m.SubscribeAnswer.RAISES, 1),
            ),
            spawn=pick(
                (m.SpawnAnswer.HANDLE, 12),
                (m.SpawnAnswer.RAISES, 1),
                (m.SpawnAnswer.NULL, 1),
                (m.SpawnAnswer.MALFORMED, 1),
                (HANG, 1),
            ),
            stop=pick((m.StopAnswer.RETURNS, 4), (m.StopAnswer.RAISES, 1), (HANG, 1)),
            read=pick(
                (aggregate, 12),
                (m.ReadFailure.RAISES, 1),
                (m.ReadFailure.MALFORMED, 1),
                (HANG, 1),
            ),
            completions=[
                (rng.uniform(0, 30), rng.choice(list(m.Completion)))
                for _ in range(rng.choice((0, 1, 1, 2, 3)))
            ],
            timeout_ms=rng.uniform(4, 25),
            ping_ms=rng.uniform(0, 3),
            spawn_ms=rng.uniform(0, 6),
            answer_ms=rng.uniform(0, 4),
            abort_ms=rng.uniform(0, 30) if rng.random() < 0.3 else None,
            cancel_ms=rng.uniform(0, 30) if rng.random() < 0.15 else None,
            blocking=rng.random() < 0.5,
        )


class Delayed:
    """A WaveAdapter that answers after the delays its plan says, and records it all."""

    def __init__(self, plan: Plan, n: int) -> None:
        self.plan = plan
        self.handle = w.WaveRunHandle(async_id=f"rt-{n}", async_dir=f"/runs/rt-{n}")
        self.other = w.WaveRunHandle(async_id=f"other-{n}", async_dir=f"/runs/other-{n}")
        self.log: list[m.Call] = []
        self.handlers: dict[int, Any] = {}
        self.subscribed = 0
        self.pinged = False  # the ping has answered
        self.aborted_at_ping = False  # the signal was set when the ping answered
        self.spawned = False  # spawn returned a handle
        self.delivered: list[tuple[m.Completion, bool]] = []  # (kind, a handler was there)
        self.signal = asyncio.Event()
        self.timers: list[asyncio.TimerHandle] = []

    async def _after(self, ms: float) -> None:
        await asyncio.sleep(ms / 1000)

    async def ping(self) -> w.WavePing | None:
        self.log.append(m.Call.PING)
        if self.plan.ping == HANG:
            await asyncio.get_running_loop().create_future()
        await self._after(self.plan.ping_ms)
        self.pinged = True
        self.aborted_at_ping = self.signal.is_set()
        if self.plan.ping is m.PingAnswer.RAISES:
            raise RuntimeError("rpc down")
        if self.plan.ping is m.PingAnswer.MALFORMED:
            return {"asyncCompleteEvent": "subagent:done"}  # type: ignore[return-value]
        return None if self.plan.ping is m.PingAnswer.NULL else w.WavePing("subagent:done")

    def on_complete(self, handler: Any) -> Any:
        self.log.append(m.Call.SUBSCRIBE)
        if self.plan.subscribe is m.SubscribeAnswer.RAISES:
            raise RuntimeError("subscription refused")
        self.subscribed += 1
        key = self.subscribed
        self.handlers[key] = handler

        def unsubscribe() -> None:
            self.log.append(m.Call.UNSUBSCRIBE)
            self.handlers.pop(key, None)
            if self.plan.subscribe is m.SubscribeAnswer.UNSUBSCRIBE_RAISES:
                raise RuntimeError("unsubscribe failed")

        return unsubscribe

    def _deliver(self, kind: m.Completion, n: int) -> None:
        if kind is m.NULL_COMPLETION:
            self.delivered.append((kind, bool(self.handlers)))
            for handler in list(self.handlers.values()):
                handler(None)
            return
        made = completion(kind, n)
        if kind is m.FOREIGN:
            made = w.WaveCompletion(async_id=self.other.async_id, children=made.children)
        else:  # the same shapes as the deterministic harness, for this run's handle
            made = w.WaveCompletion(
                **{
                    **vars(made),
                    "async_id": self.handle.async_id if made.async_id else None,
                    "async_dir": (
                        None
                        if made.async_dir is None
                        else self.handle.async_dir
                        if made.async_dir == HANDLE.async_dir
                        else self.other.async_dir
                    ),
                }
            )
        self.delivered.append((kind, bool(self.handlers)))
        for handler in list(self.handlers.values()):
            handler(made)

    async def spawn(self, params: w.WaveSpawnParams) -> w.WaveRunHandle:
        self.log.append(m.Call.SPAWN)
        assert params.timeout_ms == self.plan.timeout_ms
        loop = asyncio.get_running_loop()
        for n, (at, kind) in enumerate(self.plan.completions):
            self.timers.append(loop.call_later(at / 1000, self._deliver, kind, n))
        if self.plan.spawn == HANG:
            await asyncio.get_running_loop().create_future()
        await self._after(self.plan.spawn_ms)
        if self.plan.spawn is m.SpawnAnswer.RAISES:
            raise RuntimeError("no capacity")
        if self.plan.spawn is not m.SpawnAnswer.HANDLE:
            return None if self.plan.spawn is m.SpawnAnswer.NULL else "rt"  # type: ignore[return-value]
        self.spawned = True
        return self.handle

    async def stop(self, handle: w.WaveRunHandle) -> None:
        assert handle == self.handle
        self.log.append(m.Call.STOP)
        if self.plan.stop == HANG:
            await asyncio.get_running_loop().create_future()
        await self._after(self.plan.answer_ms)
        if self.plan.stop is m.StopAnswer.RAISES:
            raise RuntimeError("stop refused")

    async def read_aggregate(self, handle: w.WaveRunHandle) -> w.WaveAggregate:
        assert handle == self.handle
        self.log.append(m.Call.READ)
        if self.plan.read == HANG:
            await asyncio.get_running_loop().create_future()
        await self._after(self.plan.answer_ms)
        if self.plan.read is m.ReadFailure.RAISES:
            raise RuntimeError("status.json is corrupt")
        if self.plan.read is m.ReadFailure.MALFORMED:
            return {"state": "complete"}  # type: ignore[return-value]
        assert isinstance(self.plan.read, tuple)
        state, value = self.plan.read
        return w.WaveAggregate(state=AGG_STATE[state], value=AGG_VALUE[value], error="e")


async def _wave(plan: Plan, n: int, slack: float) -> tuple[Delayed, Any]:
    """Run one wave as planned; return its adapter and its outcome (a result or an error)."""
    adapter = Delayed(plan, n)
    loop = asyncio.get_running_loop()
    spec = w.WaveScriptSpec(
        flow="rt", workflow_script="run()", output_schema={}, timeout_ms=plan.timeout_ms
    )

    async def go() -> w.WaveScriptResult | w.WaveScriptStart:
        if plan.blocking:
            return await w.run_wave_script(adapter, spec, adapter.signal)
        start = await w.start_wave_script(adapter, spec, adapter.signal)
        if start.result is None:
            return start
        assert start.handle == adapter.handle
        return await start.result

    task = loop.create_task(go())
    if plan.abort_ms is not None:
        adapter.timers.append(loop.call_later(plan.abort_ms / 1000, adapter.signal.set))
    if plan.cancel_ms is not None:
        adapter.timers.append(loop.call_later(plan.cancel_ms / 1000, task.cancel))
    # Liveness: the timeout, then a stop grace or a read deadline, and the answers' delays;
    # `slack` seconds more on real timers, where a busy machine stalls the loop.
    bound = (plan.timeout_ms * 2 + w.WAVE_STOP_GRACE_MS + 50) / 1000 + slack
    done, _ = await asyncio.wait({task}, timeout=bound)
    assert done, f"wave {n} did not settle within {bound}s: {plan}"
    for timer in adapter.timers:
        timer.cancel()
    outcome: Any = "cancelled" if task.cancelled() else task.exception() or task.result()
    return adapter, outcome


FAILED_RECEIPT = {
    w.WaveRunFailureReason.UNAVAILABLE: {w.WaveReceiptState.UNAVAILABLE},
    w.WaveRunFailureReason.SPAWN_FAILED: {w.WaveReceiptState.SPAWN_FAILED},
    w.WaveRunFailureReason.TIMEOUT: {w.WaveReceiptState.TIMED_OUT},
    w.WaveRunFailureReason.CANCELLED: {w.WaveReceiptState.CANCELLED},
    w.WaveRunFailureReason.RUN_FAILED: {w.WaveReceiptState.FAILED},
    w.WaveRunFailureReason.AGGREGATE_UNREADABLE: {
        w.WaveReceiptState.FAILED,
        w.WaveReceiptState.COMPLETE,
    },
}


def _check(plan: Plan, adapter: Delayed, outcome: Any) -> str:
    """The model's properties on one real-time wave; returns the outcome's name."""
    log = adapter.log
    assert not adapter.handlers, "the subscription outlived the wave"
    assert log.count(m.Call.UNSUBSCRIBE) == adapter.subscribed <= 1, log
    assert log[:1] == [m.Call.PING] and log.count(m.Call.PING) == 1, log
    if m.Call.SPAWN in log:  # subscribe before spawn; never after an abort seen at the ping
        assert log.index(m.Call.SUBSCRIBE) < log.index(m.Call.SPAWN), log
        assert not adapter.aborted_at_ping, "spawned after an abort seen before the spawn"
    assert log.count(m.Call.STOP) + log.count(m.Call.READ) <= 1, log
    own = [kind for kind, heard in adapter.delivered if heard and kind in m.OWN_KINDS]
    if outcome == "cancelled":
        assert plan.cancel_ms is not None, "CancelledError without a cancel"
        return "CancelledError"
    assert not isinstance(outcome, BaseException), f"the wave raised {outcome!r}"
    if isinstance(outcome, w.WaveScriptStart):  # a refused start: no value
        assert not outcome.ok and outcome.failure is not None and outcome.receipt is not None
        failure, receipt, value = outcome.failure, outcome.receipt, None
    else:
        failure, receipt, value = outcome.failure, outcome.receipt, outcome.value
    ids = (receipt.run_id, receipt.async_dir)
    # A spawn that answered after the wave gave up on it (its deadline, or the abort's grace).
    late = failure is not None and "spawn did not answer" in failure.detail
    assert ids == (
        (adapter.handle.async_id, adapter.handle.async_dir)
        if adapter.spawned and not late
        else (None, None)
    )
    if late and adapter.spawned and failure and failure.reason is w.WaveRunFailureReason.CANCELLED:
        assert m.Call.STOP in log, "a late run handle was not stopped"
    if receipt.children:  # from the first completion of ours that was heard (the match)
        assert own and receipt.children == [child(own[0])], (receipt.children, adapter.delivered)
    if failure is None:
        assert (
            outcome.ok and receipt.state is w.WaveReceiptState.COMPLETE and log[-2] == m.Call.READ
        )
        assert isinstance(plan.read, tuple) and value == AGG_VALUE[plan.read[1]]
        return "ok"
    assert failure.key is None and receipt.state in FAILED_RECEIPT[failure.reason]
    reason = failure.reason
    if m.Call.STOP in log:
        assert reason in (w.WaveRunFailureReason.TIMEOUT, w.WaveRunFailureReason.CANCELLED)
    if (
        reason in (w.WaveRunFailureReason.TIMEOUT, w.WaveRunFailureReason.CANCELLED)
        and adapter.spawned
    ):
        assert m.Call.STOP in log, log
    if m.Call.READ in log:
        assert reason in (
            w.WaveRunFailureReason.RUN_FAILED,
            w.WaveRunFailureReason.AGGREGATE_UNREADABLE,
        )
    if reason is w.WaveRunFailureReason.AGGREGATE_UNREADABLE:
        failed = own[0] in m.SUCCESS_FALSE
        assert (receipt.state is w.WaveReceiptState.FAILED) == failed
    partial = "(native partial: " in failure.detail
    assert (value is not None) == partial, (failure, value)
    if partial:
        assert own[0] in m.MARKED and isinstance(value, list)
    if reason is w.WaveRunFailureReason.TIMEOUT:
        assert failure.detail.startswith("wave 'rt' timed out after "), failure.detail
    return reason.value


async def _run_waves(plans: list[Plan], slack: float) -> list[tuple[Delayed, Any]]:
    """Every plan's wave at once, then what they leave behind (abandoned stops and reads,
    watched spawns) winds down, within `slack` seconds more."""
    outcomes = await asyncio.gather(*(_wave(plan, n, slack) for n, plan in enumerate(plans)))
    loop = asyncio.get_running_loop()
    until = loop.time() + 0.06 + slack
    while asyncio.all_tasks() != {asyncio.current_task()} and loop.time() < until:
        await asyncio.sleep(0.005)
    assert asyncio.all_tasks() == {asyncio.current_task()}, "a wave left a task behind"
    return outcomes


PLANS = 250
ALL_OUTCOMES = {
    "ok",
    "CancelledError",
    "unavailable",
    "spawn-failed",
    "timeout",
    "cancelled",
    "run-failed",
    "aggregate-unreadable",
}


def test_concurrent_waves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many waves at once, with small timeouts and random adapter delays, on virtual time
    (`run_virtual`, conformance/fakes.py): each settles within its bound, its result, receipt and
    adapter calls keep the model's properties, and the plans reach all eight outcomes."""
    monkeypatch.setattr(w, "WAVE_STOP_GRACE_MS", 15)
    rng = random.Random(20251130)
    plans = [Plan.draw(rng) for _ in range(PLANS)]
    ran = run_virtual(_run_waves(plans, slack=0.0))
    seen = {_check(plan, *r) for plan, r in zip(plans, ran, strict=True)}
    assert seen == ALL_OUTCOMES, seen


@pytest.mark.realtime
def test_waves_on_real_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same waves on a real event loop and real timers (`make test` only: the gate runs
    `-m "not realtime"`). Only what holds at any speed is asserted: each wave's properties,
    and liveness with 30 s of slack. Which outcomes occur depends on the machine's load."""
    monkeypatch.setattr(w, "WAVE_STOP_GRACE_MS", 15)
    rng = random.Random(20251130)
    plans = [Plan.draw(rng) for _ in range(PLANS)]
    ran = asyncio.run(_run_waves(plans, slack=30.0))
    assert {_check(plan, *r) for plan, r in zip(plans, ran, strict=True)} <= ALL_OUTCOMES
