"""The report-wave transport: run one module-rendered workflow script through an adapter.

A hand port of `seeds/transport.ts` (startWaveScript / runWaveScript) to asyncio, with the
public names of `docs/api.md` (`impl.waves`). The front half (transport.ts F1..F6: abort
pre-check, capability ping, post-ping abort re-check, subscribe before spawn, async spawn,
return) runs inside `start_wave_script`; the back half (B1..B5: outcome race under the
effective timeout, best-effort stop, aggregate read, receipt assembly, unsubscribe on settle)
runs in the `result` task, already started when `start_wave_script` returns.
`run_wave_script` is that start plus an await. `MemoryWaveAdapter` is the in-memory adapter
for users' tests (docs/wave-transport.md §9).

Decisions beyond a literal port:

- KB8, the seed's broken "never rejects, always settles" promise, is closed as api.md says:
  `on_complete` raising refuses the start as `unavailable` ("completion subscription failed:
  <msg>") before any spawn; a raising unsubscribe is swallowed; a stop unfinished after
  `WAVE_STOP_GRACE_MS` is abandoned (" (stop did not finish within 1000ms)"); a read unfinished
  within the effective timeout, or one answering something that is not a `WaveAggregate` (or
  one whose `state` is not a str), is `aggregate-unreadable`.
- Every await is bounded (issue 8 §3), so a run settles whatever the adapter does, including
  never answering. The ping and the spawn run in tasks of their own and are awaited for the
  effective timeout: a ping unanswered by then is `unavailable` ("subagent RPC ping failed:
  ping did not answer within <ms>ms"), a spawn `spawn-failed` ("wave spawn failed: spawn did
  not answer within <ms>ms"; the run enforces the same timeout itself, so none outlives it).
  An abort during either await is seen at its answer, as in the seed (F3, B1), or at the
  latest `WAVE_STOP_GRACE_MS` after the abort: during the ping the start is "cancelled before
  launch"; during the spawn it is `cancelled` ("wave '<flow>' was cancelled (spawn did not
  answer)", receipt without run ids), the subscription is released, and the spawn stays
  watched until its timeout has passed (at least the grace): a late run handle is then
  stopped, so no run is orphaned. Cancelling `start_wave_script` during the spawn does the
  same before re-raising. Because the spawn answer reaches the runner one loop turn later, a
  completion the adapter delivers in the same turn as its reply counts as one before it.
- Malformed answers never escape and are never guessed at: a ping answer that is not a
  `WavePing` counts as null (`unavailable`; the seed proceeds on any non-null answer); a spawn
  answer that is not a `WaveRunHandle` with string ids is `spawn-failed` at once (the seed
  waits for its timeout with no handle and calls `stop(null)`); a completion that is not a
  `WaveCompletion` (a null one included) is ignored (the seed buffers it, and F5's find then
  throws: spawn-failed with the run never stopped); only a `TerminalOutcome` marks a native
  partial (the seed takes any value but undefined and throws on null; Python cannot tell null
  from absent); ids are compared only as strings; children and retained entries that are not
  lists count as none.
- Whatever an adapter raises (any Exception, an ExceptionGroup, one whose str() and repr()
  raise: the detail then names its type) ends in one of the six reasons. A BaseException that
  is not an Exception (KeyboardInterrupt, SystemExit) propagates, after the subscription is
  released.
- Wrong argument types raise TypeError at the edge, naming the parameter and the type
  received: `WaveScriptSpec`'s fields (`timeout_ms` a number, bool refused), and
  `start_wave_script`/`run_wave_script`'s adapter (the five methods), spec and signal.
- Cancellation (`asyncio.CancelledError` has no JS counterpart). Cancelling the `result` task
  is an abort that is then re-raised: acceptance closes, the run is stopped (the stop is
  shielded and bounded by the same grace), the subscription is released, and the task ends
  cancelled, so TaskGroups and timeouts keep working. Like the seed's abort it loses to an
  outcome already decided: once a match has won, cancelling only abandons the read, with no
  stop. `run_wave_script` cancelled while awaiting the result behaves the same. Cancelled
  while it yields to let the back half start (below), `start_wave_script` cancels `result`
  and re-raises.
- Timeouts: a timeout below 1 ms (0, negatives, NaN) or infinite fires after 1 ms, the way
  Node's setTimeout clamps it, and the detail prints the value as given, as the seed's
  template does: "timed out after 0ms", "NaNms", "Infinityms". An integer past a float's
  range is an infinity of its sign, as a JS number holds it. Node's clamp of delays above
  2**31-1 ms to 1 ms is a runtime artifact and is not ported: a large finite timeout is
  honoured. Spawn params always carry the value as given.
  The effective timeout is resolved before the ping (the seed: before the spawn), since it
  bounds the ping too; PERK_WAVE_TIMEOUT_MS is parsed as JS `Number()` parses it (§5).
- A signal Event reused from an earlier `asyncio.run` (bound to another loop) is refused
  at the edge with a RuntimeError naming `signal`, never read as an abort. A completion
  handler called from another thread hands the completion to the loop's thread
  (`call_soon_threadsafe`), which it wakes. An `on_complete` that returns no callable
  refuses the start as `unavailable` ("completion subscription failed: ...") and leaves
  the handler inert. An abandoned adapter call (a stop past its grace, a read past its
  deadline) is gone: a `stop` that swallows its cancellation has its coroutine closed, so
  `asyncio.run` still returns (`_abandon`).
- `start_wave_script` yields once after launching the back half, so the `result` task has
  entered its body before anyone can cancel it (a task cancelled before its first step would
  skip its cleanup). The outcome race itself is armed before that, with no await since the
  spawn reply reached the runner.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import math
import os
import re
import threading
import weakref
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Coroutine
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from decimal import Decimal
from enum import StrEnum
from types import MappingProxyType
from typing import Any
from typing import Literal
from typing import Protocol
from typing import TypeVar

__all__ = [
    "WAVE_ACCEPTANCE",
    "WAVE_STOP_GRACE_MS",
    "WAVE_TIMEOUT_MS",
    "MemoryWaveAdapter",
    "MemoryWaveCalls",
    "TerminalOutcome",
    "WaveAdapter",
    "WaveAggregate",
    "WaveChildReceipt",
    "WaveCompletion",
    "WavePing",
    "WaveReceiptState",
    "WaveRunFailure",
    "WaveRunFailureReason",
    "WaveRunHandle",
    "WaveScriptReceipt",
    "WaveScriptResult",
    "WaveScriptSpec",
    "WaveScriptStart",
    "WaveSpawnParams",
    "run_wave_script",
    "start_wave_script",
]

_T = TypeVar("_T")

WAVE_TIMEOUT_MS = 900_000
"""The module-owned wave timeout (15 minutes); `spec.timeout_ms` or PERK_WAVE_TIMEOUT_MS win."""

WAVE_STOP_GRACE_MS = 1_000
"""How long a best-effort stop may take before it is abandoned (KB8c)."""

WAVE_ACCEPTANCE: Mapping[str, str] = MappingProxyType(
    {
        "level": "none",
        "reason": (
            "perk report-wave lanes complete via the engine-validated structured_output report"
        ),
    }
)
"""The acceptance disable every spawn carries: no competing completion contract for children."""


class WaveRunFailureReason(StrEnum):
    """The six reasons a script run itself can fail with."""

    UNAVAILABLE = "unavailable"
    SPAWN_FAILED = "spawn-failed"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    RUN_FAILED = "run-failed"
    AGGREGATE_UNREADABLE = "aggregate-unreadable"


class WaveReceiptState(StrEnum):
    """The terminal disposition of one launch ("running" is unreachable: the runner settles)."""

    UNAVAILABLE = "unavailable"
    SPAWN_FAILED = "spawn-failed"
    COMPLETE = "complete"
    FAILED = "failed"
    TIMED_OUT = "timed-out"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class WavePing:
    """A successful capability ping: the advertised async-complete channel."""

    async_complete_event: str


@dataclass(frozen=True)
class WaveRunHandle:
    """The detached async run a spawn launched."""

    async_id: str
    async_dir: str


@dataclass(frozen=True)
class WaveChildReceipt:
    """One child's identity and artifact trail; output-free by invariant."""

    key: str
    agent: str | None = None
    run_id: str | None = None
    success: bool | None = None
    output_state: Literal["present", "absent", "unknown"] | None = None
    artifact_paths: Mapping[str, str] | None = None


@dataclass(frozen=True)
class TerminalOutcome:
    """The explicit native-partial marker of a completion."""

    state: Literal["partial"]
    reason: Literal["timeout", "budget_exhausted"]


@dataclass(frozen=True)
class WaveCompletion:
    """An async-complete notification; real payloads carry at least one identifier."""

    async_id: str | None = None
    async_dir: str | None = None
    state: str | None = None
    success: bool | None = None
    children: list[WaveChildReceipt] | None = None
    terminal_outcome: TerminalOutcome | None = None
    retained_entries: list[Any] | None = None


@dataclass(frozen=True)
class WaveAggregate:
    """The run's durable aggregate (status.json)."""

    state: str
    value: Any = None
    error: str | None = None


@dataclass(frozen=True)
class WaveScriptSpec:
    """The judgement-bearing pieces of one script run."""

    flow: str
    workflow_script: str
    output_schema: Mapping[str, Any]
    model: str | None = None
    timeout_ms: float | None = None

    def __post_init__(self) -> None:
        _check_type("flow", self.flow, str, "a str")
        _check_type("workflow_script", self.workflow_script, str, "a str")
        _check_type("output_schema", self.output_schema, Mapping, "a Mapping")
        if self.model is not None:
            _check_type("model", self.model, str, "a str or None")
        if self.timeout_ms is not None:
            _check_number("timeout_ms", self.timeout_ms)


def _check_type(name: str, value: object, kind: type | tuple[type, ...], what: str) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}")


def _check_number(name: str, value: object) -> None:
    """A real number; bool is refused (True is not a number of milliseconds)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number of milliseconds, got {type(value).__name__}")


@dataclass(frozen=True)
class WaveSpawnParams:
    """The full spawn params; the last four are fixed by the module and refuse other values."""

    workflow_script: str
    output_schema: Mapping[str, Any]
    timeout_ms: float
    model: str | None = None
    async_: Literal[True] = True
    mission: Literal[False] = False
    context: Literal["fresh"] = "fresh"
    acceptance: Mapping[str, str] = field(default_factory=lambda: WAVE_ACCEPTANCE)

    def __post_init__(self) -> None:
        fixed = (self.async_, self.mission, self.context, self.acceptance)
        if fixed != (True, False, "fresh", WAVE_ACCEPTANCE):
            raise ValueError(
                f"WaveSpawnParams: async_, mission, context and acceptance are fixed "
                f"(got {fixed!r})"
            )


@dataclass(frozen=True)
class WaveRunFailure:
    """A wave-level failure: there is no assignment to blame, so `key` is always None."""

    reason: WaveRunFailureReason
    detail: str

    @property
    def key(self) -> None:
        return None


@dataclass(frozen=True)
class WaveScriptReceipt:
    """One launch's receipt: run ids iff the spawn succeeded, plus the observed children."""

    state: WaveReceiptState
    children: list[WaveChildReceipt]
    run_id: str | None = None
    async_dir: str | None = None


@dataclass(frozen=True)
class WaveScriptResult:
    """A script outcome: the durable value when ok, else the failure (and any partial evidence)."""

    ok: bool
    value: Any = None
    failure: WaveRunFailure | None = None
    receipt: WaveScriptReceipt = field(kw_only=True)


@dataclass(frozen=True)
class WaveScriptStart:
    """A launched run (`handle`, `result`) or a refused launch (`failure`, `receipt`)."""

    ok: bool
    handle: WaveRunHandle | None = None
    result: asyncio.Task[WaveScriptResult] | None = None
    failure: WaveRunFailure | None = None
    receipt: WaveScriptReceipt | None = None


class WaveAdapter(Protocol):
    """The seam to pi-subagents."""

    async def ping(self) -> WavePing | None:
        """Capability ping; None means unavailable. Called first."""

    async def spawn(self, params: WaveSpawnParams) -> WaveRunHandle:
        """Launch the async workflow-script run; raising means spawn-failed."""

    def on_complete(self, handler: Callable[[WaveCompletion], None]) -> Callable[[], None]:
        """Subscribe to completions of any run; returns the unsubscribe."""

    async def stop(self, handle: WaveRunHandle) -> None:
        """Best-effort stop of a live run."""

    async def read_aggregate(self, handle: WaveRunHandle) -> WaveAggregate:
        """Read the run's durable aggregate; raising means aggregate-unreadable."""


# ------------------------------------------------------------------ timeouts and JS numbers

_JS_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_JS_RADIX = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")


def _js_number(text: str) -> float:
    """JS `Number(text)` as far as a timeout needs it; NaN where JS says NaN (`_`, `２０`)."""
    text = text.strip()
    if _JS_RADIX.fullmatch(text):
        try:
            return float(int(text, 0))
        except OverflowError:  # JS gives Infinity
            return math.inf
    return float(text) if _JS_DECIMAL.fullmatch(text) else math.nan


def _env_timeout_ms() -> float:
    raw = _js_number(os.environ.get("PERK_WAVE_TIMEOUT_MS", ""))
    return raw if math.isfinite(raw) and raw > 0 else WAVE_TIMEOUT_MS


def _js_string(number: float) -> str:
    """JS `String(number)`: integers without `.0`; exponent form below 1e-6 and from 1e21."""
    if math.isnan(number):
        return "NaN"
    sign = "-" if number < 0 else ""
    if math.isinf(number):
        return sign + "Infinity"
    # Python's repr and JS both print the shortest round-tripping digits.
    parts = Decimal(repr(abs(float(number)))).normalize().as_tuple()
    digits = "".join(map(str, parts.digits))
    point = len(digits) + int(parts.exponent)  # digits before the decimal point
    if point > 21 or point <= -6:
        mantissa = f"{digits[0]}.{digits[1:]}" if len(digits) > 1 else digits
        return f"{sign}{mantissa}e{point - 1:+d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if len(digits) <= point:
        return sign + digits.ljust(point, "0")
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _runs_as_given(timeout_ms: float) -> bool:
    """The timer waits `timeout_ms` itself; else (below 1 ms, NaN, infinite) it waits 1 ms."""
    return math.isfinite(timeout_ms) and timeout_ms >= 1


def _delay_s(timeout_ms: float) -> float:
    # Node runs a delay below 1 ms (and NaN) after 1 ms; so do we, and an infinite one too.
    return timeout_ms / 1000 if _runs_as_given(timeout_ms) else 0.001


def _ms(timeout_ms: float) -> str:
    """`<ms>ms` for a detail: the value as given, as the seed's template prints it
    (`timed out after 0ms`, `NaNms`, `-5ms`, `Infinityms`), whatever the wait was."""
    return f"{_js_string(timeout_ms)}ms"


def _js_value(timeout_ms: float) -> float:
    """The timeout as a JS number holds it: an integer past a float's range is an infinity
    of its sign (`Number(10n ** 400n)` is Infinity), never an OverflowError."""
    try:
        float(timeout_ms)
    except OverflowError:
        return math.inf if timeout_ms > 0 else -math.inf
    return timeout_ms


def _text(thing: object) -> str:
    """`str(thing)` for a detail, from an adapter's exception or answer; never raises."""
    try:
        return str(thing)
    except Exception:
        try:
            return repr(thing)
        except Exception:
            return f"<{type(thing).__name__} whose str() and repr() raise>"


def _is_handle(answer: object) -> bool:
    return (
        isinstance(answer, WaveRunHandle)
        and isinstance(answer.async_id, str)
        and isinstance(answer.async_dir, str)
    )


# ------------------------------------------------------------------------ the wave state

# B1's winner: the matching completion, or what ended the wait instead.
_Outcome = WaveCompletion | Literal["timeout", "cancelled"]


def _matches(completion: WaveCompletion, handle: WaveRunHandle) -> bool:
    # Only strings are compared: an adapter's odd id object could raise in __eq__.
    by_dir, by_id = completion.async_dir, completion.async_id
    return (isinstance(by_dir, str) and by_dir == handle.async_dir) or (
        isinstance(by_id, str) and by_id == handle.async_id
    )


class _Wave:
    """One launch's completion intake (F4, F5) and its outcome race (B1)."""

    unsubscribe: Callable[[], None]  # set right after construction (F4)

    def __init__(self) -> None:
        # Acceptance (H5's `accepting`) is open exactly while this is undecided.
        self.loop = asyncio.get_running_loop()
        self.thread = threading.get_ident()
        self.outcome: asyncio.Future[_Outcome] = self.loop.create_future()
        self.handle: WaveRunHandle | None = None
        self.buffered: list[WaveCompletion] = []
        self.timer: asyncio.TimerHandle | None = None
        self.watch: asyncio.Task[None] | None = None

    def receive(self, completion: WaveCompletion) -> None:
        # F4 handler: buffer everything while the handle is unknown, then only a match counts.
        if threading.get_ident() != self.thread:
            # Called from another thread: handed to the loop's thread, which it wakes.
            with contextlib.suppress(RuntimeError):  # the loop has closed: the wave is over
                self.loop.call_soon_threadsafe(self.receive, completion)
            return
        if self.outcome.done() or not isinstance(completion, WaveCompletion):
            return
        if self.handle is None:
            self.buffered.append(completion)
        elif _matches(completion, self.handle):
            self.decide(completion)

    def arm(self, handle: WaveRunHandle, timeout_ms: float, signal: asyncio.Event | None) -> None:
        # F5 tail: the first buffered match; B1: a pre-reply match wins even if aborted.
        self.handle = handle
        matched = next((c for c in self.buffered if _matches(c, handle)), None)
        self.buffered.clear()
        if matched is not None:
            self.decide(matched)
            return
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(_delay_s(timeout_ms), self.decide, "timeout")
        if signal is not None:
            self.watch = loop.create_task(_watch(signal, self))
            if signal.is_set():
                self.decide("cancelled")

    def decide(self, outcome: _Outcome) -> None:
        # B1: the first source wins; acceptance closes now, before any stop or read (KB3).
        if self.timer is not None:
            self.timer.cancel()
        if self.watch is not None:
            self.watch.cancel()
        self.outcome.set_result(outcome)

    def release(self) -> None:
        # The seed's `finally` (and spawn-failure path); a raising unsubscribe is swallowed (KB8b).
        self.outcome.cancel()  # closes acceptance where nothing was decided (a no-op otherwise)
        self.buffered.clear()
        with contextlib.suppress(Exception):
            self.unsubscribe()


async def _watch(signal: asyncio.Event, wave: _Wave) -> None:
    await signal.wait()
    wave.decide("cancelled")


# ----------------------------------------------------------------------- bounded adapter calls

# An adapter call's outcome as a value: (True, answer) or (False, the exception it raised).
_Boxed = tuple[bool, Any]


async def _boxed(call: Callable[[], Awaitable[Any]]) -> _Boxed:
    """Await one adapter call in a task of its own, returning whatever it raised. Our own
    coroutine, so even a synchronous raise (or a non-awaitable answer) lands here. Every
    BaseException is boxed: asyncio re-raises a KeyboardInterrupt or SystemExit from a task
    straight out of the loop, before the runner could release the subscription; the runner
    re-raises them itself (`_answer`). Only the task's own cancellation propagates."""
    try:
        answer = call()
        if inspect.iscoroutine(answer) and (task := asyncio.current_task()) is not None:
            _CALLS[task] = answer  # so that an abandoned call can be closed (`_abandon`)
        return True, await answer
    except asyncio.CancelledError as error:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
        return False, error  # the adapter raised CancelledError of its own
    except BaseException as error:
        return False, error


def _answer(boxed: _Boxed) -> _Boxed:
    """A finished call's outcome; a BaseException that is not an Exception propagates."""
    ok, value = boxed
    if (
        not ok
        and not isinstance(value, Exception)
        and not isinstance(value, asyncio.CancelledError)
    ):
        raise value
    return ok, value


async def _within(task: asyncio.Task[Any], seconds: float) -> bool:
    """Wait up to `seconds`; an unfinished task is cancelled (abandoned). True iff it finished."""
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    finally:
        if not task.done():
            task.cancel()
            asyncio.get_running_loop().call_soon(_abandon, task)
    return bool(done)


_CALLS: weakref.WeakKeyDictionary[asyncio.Task[Any], Coroutine[Any, Any, Any]] = (
    weakref.WeakKeyDictionary()
)
"""The adapter's own coroutine each boxed call is awaiting, by its task."""


def _abandon(task: asyncio.Task[Any]) -> None:
    """Abandoned means gone. A call that swallowed the cancellation (an adapter `stop`
    catching CancelledError and awaiting again) would keep its task alive, and asyncio.run
    waits for every task before it returns: close the adapter's coroutine (GeneratorExit at
    its await) and cancel the task again, which then ends. Only a coroutine that swallows
    GeneratorExit too outlives this."""
    call = _CALLS.get(task)
    if task.done() or call is None:
        return
    with contextlib.suppress(RuntimeError):  # it ignored GeneratorExit: nothing more to do
        call.close()
    task.cancel()


async def _stop_note(adapter: WaveAdapter, handle: WaveRunHandle) -> str:
    """B2's best-effort stop; returns the detail suffix it earns."""
    stopping = asyncio.ensure_future(_boxed(lambda: adapter.stop(handle)))
    if not await _within(stopping, WAVE_STOP_GRACE_MS / 1000):
        return f" (stop did not finish within {WAVE_STOP_GRACE_MS}ms)"
    ok, error = _answer(stopping.result())
    return "" if ok else f" (stop failed: {_text(error)})"


async def _read(
    adapter: WaveAdapter, handle: WaveRunHandle, timeout_ms: float
) -> WaveAggregate | str:
    """B3: the aggregate, or why it is unreadable."""
    reading = asyncio.ensure_future(_boxed(lambda: adapter.read_aggregate(handle)))
    if not await _within(reading, _delay_s(timeout_ms)):
        return f"read did not finish within {_ms(timeout_ms)}"
    ok, aggregate = _answer(reading.result())
    if not ok:
        return _text(aggregate)
    if not isinstance(aggregate, WaveAggregate):
        return f"not a WaveAggregate: {type(aggregate).__name__}"
    if not isinstance(aggregate.state, str):
        return f"the aggregate's state is not a str: {type(aggregate.state).__name__}"
    return aggregate


class _Front:
    """One front-half await (ping, spawn), bounded: by the effective timeout, and once the
    abort is seen, by WAVE_STOP_GRACE_MS more at most (issue 8 §3: an abort settles promptly,
    whatever the adapter does). The call runs in its own task, which outlives a deadline only
    when the caller keeps it (a spawn watched for a late handle)."""

    def __init__(self, call: Callable[[], Awaitable[Any]], timeout_ms: float) -> None:
        loop = asyncio.get_running_loop()
        self.task: asyncio.Task[_Boxed] = loop.create_task(_boxed(call))
        self.until = loop.time() + _delay_s(timeout_ms)  # the effective timeout's deadline
        self.aborted = False  # the abort was seen while waiting

    async def wait(self, signal: asyncio.Event | None) -> bool:
        """True once answered; False when the deadline passed first."""
        loop = asyncio.get_running_loop()
        deadline = self.until
        turned = False
        watch = None if signal is None else loop.create_task(signal.wait())
        try:
            while not self.task.done():
                if watch is not None and watch.done() and not self.aborted:
                    self.aborted = True
                    deadline = min(deadline, loop.time() + WAVE_STOP_GRACE_MS / 1000)
                # Judged only after the call had its turn on the loop: an answer ready at
                # once wins over any deadline, however long the process was descheduled.
                if turned and loop.time() >= deadline:
                    return False
                turned = True
                wake: asyncio.Future[None] = loop.create_future()

                def ring(*_: object, wake: asyncio.Future[None] = wake) -> None:
                    if not wake.done():
                        wake.set_result(None)

                timer = loop.call_at(deadline, ring)  # exactly the deadline (virtual clocks)
                self.task.add_done_callback(ring)
                if watch is not None and not self.aborted:
                    watch.add_done_callback(ring)
                try:
                    await wake
                finally:
                    timer.cancel()
                    self.task.remove_done_callback(ring)
                    if watch is not None:
                        watch.remove_done_callback(ring)
            return True
        finally:
            if watch is not None:
                watch.cancel()
                await asyncio.wait({watch})  # gone before the wave goes on: nothing left behind

    def answer(self) -> _Boxed:
        return _answer(self.task.result())


_REAPERS: set[asyncio.Task[None]] = set()
"""Strong references to the watches on abandoned spawns (the loop keeps only weak ones)."""


def _reap(adapter: WaveAdapter, spawning: _Front) -> None:
    """Watch a spawn the wave gave up on (aborted or cancelled) until its effective timeout
    has passed, and for WAVE_STOP_GRACE_MS at least: a late run handle is stopped (within the
    stop grace), so no run is orphaned. After that the run's own timeout (the same value, in
    the spawn params) has ended it."""

    async def watch() -> None:
        loop = asyncio.get_running_loop()
        until = max(spawning.until, loop.time() + WAVE_STOP_GRACE_MS / 1000)
        timer = loop.call_at(until, spawning.task.cancel)
        try:
            ok, handle = await spawning.task
        except asyncio.CancelledError:
            return  # the deadline passed: abandoned
        finally:
            timer.cancel()
        if ok and _is_handle(handle):
            await _stop_note(adapter, handle)
        elif not ok:
            _answer((ok, handle))

    reaper = asyncio.get_running_loop().create_task(watch())
    _REAPERS.add(reaper)
    reaper.add_done_callback(_REAPERS.discard)


# ---------------------------------------------------------------------------- the runner


def _receipt(
    state: WaveReceiptState,
    handle: WaveRunHandle | None = None,
    children: list[WaveChildReceipt] | None = None,
) -> WaveScriptReceipt:
    if handle is None:
        return WaveScriptReceipt(state=state, children=[])
    return WaveScriptReceipt(
        state=state, children=children or [], run_id=handle.async_id, async_dir=handle.async_dir
    )


def _failed(
    reason: WaveRunFailureReason, detail: str, receipt: WaveScriptReceipt, value: Any = None
) -> WaveScriptResult:
    return WaveScriptResult(
        ok=False, value=value, failure=WaveRunFailure(reason, detail), receipt=receipt
    )


async def _read_result(
    adapter: WaveAdapter, handle: WaveRunHandle, timeout_ms: float, matched: WaveCompletion
) -> WaveScriptResult:
    """B3..B5: read the durable aggregate and map it onto the arms."""
    aggregate = await _read(adapter, handle, timeout_ms)
    children = matched.children if isinstance(matched.children, list) else None
    if isinstance(aggregate, str):
        # The receipt state labels the observed completion; the reason stays the verdict.
        state = WaveReceiptState.FAILED if matched.success is False else WaveReceiptState.COMPLETE
        return _failed(
            WaveRunFailureReason.AGGREGATE_UNREADABLE,
            f"wave aggregate unreadable: {aggregate}",
            _receipt(state, handle, children),
        )
    if aggregate.state == "complete":  # B5: the value's type is the logical tier's concern
        return WaveScriptResult(
            ok=True,
            value=aggregate.value,
            receipt=_receipt(WaveReceiptState.COMPLETE, handle, children),
        )
    err = "" if aggregate.error is None else f": {_text(aggregate.error)}"
    failed = _receipt(WaveReceiptState.FAILED, handle, children)
    partial = matched.terminal_outcome
    if aggregate.state in ("failed", "partial") and isinstance(partial, TerminalOutcome):
        # B4 partial arm: a durable array wins in full; only its absence admits retained entries.
        value = aggregate.value if isinstance(aggregate.value, list) else matched.retained_entries
        return _failed(
            WaveRunFailureReason.RUN_FAILED,
            f"wave run ended '{aggregate.state}' (native partial: {_text(partial.reason)}){err}",
            failed,
            value if isinstance(value, list) else [],
        )
    return _failed(
        WaveRunFailureReason.RUN_FAILED, f"wave run ended '{aggregate.state}'{err}", failed
    )


# B2's two arms: failure reason, receipt state, and what the detail says happened.
_STOPPED = {
    "timeout": (WaveRunFailureReason.TIMEOUT, WaveReceiptState.TIMED_OUT, "timed out after {ms}"),
    "cancelled": (WaveRunFailureReason.CANCELLED, WaveReceiptState.CANCELLED, "was cancelled"),
}


async def _back_half(
    adapter: WaveAdapter, flow: str, handle: WaveRunHandle, timeout_ms: float, wave: _Wave
) -> WaveScriptResult:
    """transport.ts B1..B5 (`settle`); returns in every arm and raises only when cancelled."""
    stopping: asyncio.Task[str] | None = None

    def stop() -> asyncio.Task[str]:
        nonlocal stopping
        if stopping is None:
            stopping = asyncio.ensure_future(_stop_note(adapter, handle))
        return stopping

    try:
        # Shielded: a cancellation must leave the outcome future to the race (below).
        outcome = await asyncio.shield(wave.outcome)
        if isinstance(outcome, WaveCompletion):
            return await _read_result(adapter, handle, timeout_ms, outcome)
        # B2: shielded too, so a cancellation arriving now still lets the stop finish (below).
        note = await asyncio.shield(stop())
        reason, state, what = _STOPPED[outcome]
        detail = f"wave '{flow}' {what.format(ms=_ms(timeout_ms))}{note}"
        return _failed(reason, detail, _receipt(state, handle))
    except asyncio.CancelledError:
        # Cancellation is an abort (module docstring): it loses to an outcome already decided.
        if not wave.outcome.done():
            wave.decide("cancelled")
        if wave.outcome.result() in ("timeout", "cancelled"):
            await asyncio.wait({stop()})  # bounded by the stop grace
        raise
    finally:
        wave.release()
        if stopping is not None:
            stopping.cancel()  # only still running if cancelled twice


_LIVE: set[asyncio.Task[WaveScriptResult]] = set()
"""Strong references to running back halves: the loop keeps only weak ones."""


_ADAPTER_METHODS = ("ping", "spawn", "on_complete", "stop", "read_aggregate")


def _check_edge(adapter: object, spec: object, signal: object) -> None:
    """TypeError naming the parameter and the type received, before anything runs."""
    missing = [name for name in _ADAPTER_METHODS if not callable(getattr(adapter, name, None))]
    if missing:
        raise TypeError(
            f"adapter must be a WaveAdapter (no {', '.join(missing)}), got {type(adapter).__name__}"
        )
    _check_type("spec", spec, WaveScriptSpec, "a WaveScriptSpec")
    if signal is not None:
        _check_type("signal", signal, asyncio.Event, "an asyncio.Event or None")
    if isinstance(signal, asyncio.Event):
        _check_loop(signal)


def _check_loop(signal: asyncio.Event) -> None:
    """An Event belongs to the first loop that waited on it: one reused from an earlier
    `asyncio.run` cannot be watched, and would read as an abort. Refuse it at the edge with
    asyncio's own RuntimeError, naming the parameter."""
    probe = signal.wait()
    try:
        probe.send(None)  # binds an unbound event to this loop, or raises
    except StopIteration:
        pass  # already set
    except RuntimeError as error:
        raise RuntimeError(
            f"signal is an asyncio.Event of another event loop ({error}); "
            "make a new Event inside each asyncio.run"
        ) from None
    finally:
        probe.close()  # withdraws the waiter the probe left


async def start_wave_script(
    adapter: WaveAdapter, spec: WaveScriptSpec, signal: asyncio.Event | None = None
) -> WaveScriptStart:
    """Launch one workflow script (front half); on success `result` carries the back half."""
    _check_edge(adapter, spec, signal)

    def refused(reason: WaveRunFailureReason, detail: str) -> WaveScriptStart:
        # Receipt state and reason share their text on every refused arm.
        failure = WaveRunFailure(reason, detail)
        return WaveScriptStart(
            ok=False, failure=failure, receipt=_receipt(WaveReceiptState(reason))
        )

    def aborted() -> bool:
        return signal is not None and signal.is_set()

    before_launch = f"wave '{spec.flow}' was cancelled before launch"
    if aborted():  # F1
        return refused(WaveRunFailureReason.CANCELLED, before_launch)
    # Resolved before the ping (the seed: before the spawn), since it bounds the ping too.
    timeout_ms = _js_value(spec.timeout_ms) if spec.timeout_ms is not None else _env_timeout_ms()

    pinging = _Front(adapter.ping, timeout_ms)  # F2: loud degrade, never a fallback
    try:
        answered = await pinging.wait(signal)
    except asyncio.CancelledError:
        pinging.task.cancel()
        raise
    if not answered:
        pinging.task.cancel()
        if pinging.aborted:
            return refused(WaveRunFailureReason.CANCELLED, before_launch)
        failed = f"ping did not answer within {_ms(timeout_ms)}"
        return refused(WaveRunFailureReason.UNAVAILABLE, f"subagent RPC ping failed: {failed}")
    ok, ping = pinging.answer()
    if not ok:
        return refused(WaveRunFailureReason.UNAVAILABLE, f"subagent RPC ping failed: {_text(ping)}")
    if not isinstance(ping, WavePing):
        return refused(
            WaveRunFailureReason.UNAVAILABLE,
            "pi-subagents did not advertise the report-wave capabilities"
            " (ping failed or incomplete)",
        )
    if aborted():  # F3: an abort during the ping never launches (KB1)
        return refused(WaveRunFailureReason.CANCELLED, before_launch)

    wave = _Wave()
    try:  # F4: subscribe before spawn; a completion may beat the spawn reply (KB8a)
        unsubscribe = adapter.on_complete(wave.receive)
    except Exception as error:
        return refused(
            WaveRunFailureReason.UNAVAILABLE, f"completion subscription failed: {_text(error)}"
        )
    if not callable(unsubscribe):
        # No way to unsubscribe: the handler is made inert (its wave is over) and the start
        # refused, as for a subscription that raised.
        wave.unsubscribe = lambda: None
        wave.release()
        return refused(
            WaveRunFailureReason.UNAVAILABLE,
            "completion subscription failed: on_complete returned "
            f"{type(unsubscribe).__name__}, not an unsubscribe function",
        )
    wave.unsubscribe = unsubscribe

    params = WaveSpawnParams(
        workflow_script=spec.workflow_script,
        output_schema=spec.output_schema,
        timeout_ms=timeout_ms,
        model=spec.model,
    )
    spawning = _Front(lambda: adapter.spawn(params), timeout_ms)  # F5
    try:
        answered = await spawning.wait(signal)
        if answered:
            ok, handle = spawning.answer()
    except BaseException:  # cancelled (or a KeyboardInterrupt): released, then propagated
        wave.release()
        if not spawning.task.done():
            _reap(adapter, spawning)
        raise
    if not answered:
        wave.release()
        if spawning.aborted:
            _reap(adapter, spawning)
            return WaveScriptStart(
                ok=False,
                failure=WaveRunFailure(
                    WaveRunFailureReason.CANCELLED,
                    f"wave '{spec.flow}' was cancelled (spawn did not answer)",
                ),
                receipt=_receipt(WaveReceiptState.CANCELLED),
            )
        spawning.task.cancel()
        failed = f"spawn did not answer within {_ms(timeout_ms)}"
        return refused(WaveRunFailureReason.SPAWN_FAILED, f"wave spawn failed: {failed}")
    if not ok or not _is_handle(handle):
        wave.release()
        why = _text(handle) if not ok else f"not a WaveRunHandle: {type(handle).__name__}"
        return refused(WaveRunFailureReason.SPAWN_FAILED, f"wave spawn failed: {why}")

    wave.arm(handle, timeout_ms, signal)  # B1, with no await since the reply
    result = asyncio.get_running_loop().create_task(
        _back_half(adapter, spec.flow, handle, timeout_ms, wave)
    )
    _LIVE.add(result)
    result.add_done_callback(_LIVE.discard)
    try:
        await asyncio.sleep(0)  # F6: the back half enters its body before anyone can cancel it
    except asyncio.CancelledError:
        result.cancel()
        raise
    return WaveScriptStart(ok=True, handle=handle, result=result)


async def run_wave_script(
    adapter: WaveAdapter, spec: WaveScriptSpec, signal: asyncio.Event | None = None
) -> WaveScriptResult:
    """The blocking form: start plus await; a refused start has no value."""
    start = await start_wave_script(adapter, spec, signal)
    if start.result is None:
        assert start.receipt is not None  # a refused start always carries its receipt
        return WaveScriptResult(ok=False, failure=start.failure, receipt=start.receipt)
    return await start.result


# ---------------------------------------------------------------------- the memory adapter


@dataclass
class MemoryWaveCalls:
    """Every call a `MemoryWaveAdapter` received: counts, or the arguments in call order."""

    ping: int = 0
    subscribe: int = 0
    unsubscribe: int = 0
    spawn: list[WaveSpawnParams] = field(default_factory=list)
    stop: list[WaveRunHandle] = field(default_factory=list)
    read_aggregate: list[WaveRunHandle] = field(default_factory=list)


class MemoryWaveAdapter:
    """An in-memory `WaveAdapter` for tests (wave-transport.md §9).

    Knobs: `ping` (the answer; None means unavailable), `spawn_error` (spawn records its params,
    then raises it; the handle counter does not advance), `ordering` ("reply-then-complete":
    the completion arrives on a later loop turn; "complete-then-reply": inside spawn, before
    the reply), `completion=False` (no automatic completion: use `emit_completion`),
    `aggregate` (default `WaveAggregate("complete", [])`, see `set_aggregate`), `aggregates`
    (per-run FIFO keyed by async_dir, falling back to `aggregate`), `aggregate_error` (reads
    raise "simulated unreadable status.json") and `completion_detail` (fields merged,
    unvalidated, into the automatic completion, which is otherwise identity plus
    `state="complete", success=True`). Handles are `wave-async-<n>` /
    `/memory/wave-async-<n>` from 1. `calls` records every call; stop never raises.
    """

    def __init__(
        self,
        *,
        ping: WavePing | None = WavePing("subagent:async-complete"),
        spawn_error: Exception | None = None,
        ordering: Literal["reply-then-complete", "complete-then-reply"] = "reply-then-complete",
        completion: bool = True,
        aggregate: WaveAggregate | None = None,
        aggregates: Mapping[str, Sequence[WaveAggregate]] | None = None,
        aggregate_error: bool = False,
        completion_detail: Mapping[str, Any] | None = None,
    ) -> None:
        if spawn_error is not None:
            _check_type("spawn_error", spawn_error, Exception, "an Exception or None")
        if ordering not in ("reply-then-complete", "complete-then-reply"):
            raise ValueError(
                "ordering must be one of 'reply-then-complete', 'complete-then-reply', "
                f"got {ordering!r}"
            )
        self.calls = MemoryWaveCalls()
        self._ping = ping
        self._spawn_error = spawn_error
        self._ordering = ordering
        self._completion = completion
        self._aggregate = aggregate or WaveAggregate(state="complete", value=[])
        self._aggregates = {d: list(queue) for d, queue in (aggregates or {}).items()}
        self._aggregate_error = aggregate_error
        self._detail = dict(completion_detail or {})
        self._handlers: dict[int, Callable[[WaveCompletion], None]] = {}
        self._spawned = 0

    @property
    def subscribers(self) -> int:
        """How many completion handlers are currently subscribed."""
        return len(self._handlers)

    def set_aggregate(self, aggregate: WaveAggregate) -> None:
        self._aggregate = aggregate

    def emit_completion(self, completion: WaveCompletion) -> None:
        """Deliver synchronously to every current handler."""
        for handler in list(self._handlers.values()):
            handler(completion)

    async def ping(self) -> WavePing | None:
        self.calls.ping += 1
        return self._ping

    def on_complete(self, handler: Callable[[WaveCompletion], None]) -> Callable[[], None]:
        if self.calls.ping == 0 or self._ping is None:  # the ping answer is fixed
            raise RuntimeError("on_complete before a successful ping")
        self.calls.subscribe += 1
        key = self.calls.subscribe
        self._handlers[key] = handler

        def unsubscribe() -> None:  # idempotent: a second call removes nothing
            self.calls.unsubscribe += 1
            self._handlers.pop(key, None)

        return unsubscribe

    async def spawn(self, params: WaveSpawnParams) -> WaveRunHandle:
        self.calls.spawn.append(params)
        if self._spawn_error is not None:
            raise self._spawn_error
        self._spawned += 1
        n = self._spawned
        handle = WaveRunHandle(async_id=f"wave-async-{n}", async_dir=f"/memory/wave-async-{n}")
        if self._completion:
            done = WaveCompletion(
                async_id=handle.async_id, async_dir=handle.async_dir, state="complete", success=True
            )
            done = replace(done, **self._detail)
            if self._ordering == "reply-then-complete":
                asyncio.get_running_loop().call_soon(self.emit_completion, done)
            else:
                self.emit_completion(done)
        return handle

    async def stop(self, handle: WaveRunHandle) -> None:
        self.calls.stop.append(handle)

    async def read_aggregate(self, handle: WaveRunHandle) -> WaveAggregate:
        self.calls.read_aggregate.append(handle)
        if self._aggregate_error:
            raise RuntimeError("simulated unreadable status.json")
        queue = self._aggregates.get(handle.async_dir)
        return queue.pop(0) if queue else self._aggregate
