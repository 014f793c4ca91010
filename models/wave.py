"""The report-wave runner and its environment in one transition system (seed `transport.ts`).

The control variable is the runner's phase (wave-transport.md §2–§3): the abort pre-check
(F1), the ping (F2), the abort re-check (F3), the subscribe (F4), the spawn await (F5), the
wait for an outcome (B1), the stop (B2), the aggregate read (B3–B5), and settled. Each step
emits `calls`, the adapter calls it made in order: the adapter's call log, step by step;
the step that settles the run also emits its result (ok, one of the six reasons, or the
task's CancelledError), receipt state, whether the receipt has run ids, where the value
comes from, and the detail's line in §4's table. The state holds the subscription, the
completion buffer and the match, B1's decision, the environment's flags and a settlement
count. No row sets a failure's key (`keyed`): the seed builds every failure with `key:
null`, and conformance reads the port's key on every failure.

Triggers come in three groups, each drawn in its own line style:

- `runner`: the runner's own steps: the launch (with how its timeout is given, §5), the
  abort re-check and the subscribe (`on_complete` is synchronous: it returns or raises).
- `env`: the adapter's answers to the awaits (`ping_replies(answer)`, `spawn_replies`,
  `stop_replies`, `read_replies(state, value)`, `read_fails`), each of which may never come
  (issue 7, issue 8 §3: "whatever the adapter does"); an abort; a completion (this run's, of
  seven kinds, a foreign one, or null; a duplicate is any completion after the first match; a
  late one, any after settling); the caller cancelling the task (Python only, decided
  below); a pending stop or read declared hung for good.
- `time`: the next deadline passes: the ping's and the spawn's (the effective timeout, or
  the stop grace once aborted), the wave timer while waiting, the stop grace while stopping,
  the read's deadline while reading (api.md's KB8 closure and impl/waves.py's §3 decisions).

The fixed model bounds every await, so `always-settles` (a runner or time step is enabled in
every unsettled state) holds with every answer left to the environment. An abort during the
ping or the spawn is seen at its answer, as in the seed, or at the latest when the stop
grace passes: cancelled before launch, or cancelled with the spawn still watched
(`reaping`), so that a late run handle is stopped and no run is orphaned.

Completions are abstracted to what the runner tells apart: whether they carry this run's ids
(conformance varies which id matches), and for this run's, what the arms read (`success ===
false`, the native-partial marker, retained entries). The buffer is abstracted to its first
match, or FOREIGN when it holds only others', which is all the spawn reply reads (F5). From
the ping reply to the spawn call the runner never awaits (F3–F5), so nothing can land in the
re-check and subscribe phases: there the environment's events are ignore rows.

Cancellation has no JS counterpart; issue 3 decided it (impl/waves.py docstring): cancelling
the task while it waits or stops is an abort that stops the run (within the same stop grace),
releases the subscription and re-raises `CancelledError`: a distinct settled outcome with no
result and no receipt. It loses to a decided match: the read is abandoned without a stop. A
second cancel abandons the cleanup stop.

Settling resets what nothing reads afterwards (the abort, hang and cancel flags, the raising
unsubscribe, the buffer, the decision); the match stays, since the receipt's children come
from it. The abort flag is also dropped once B1 decides (the listener is removed).

Liveness is checked as the issue asks: every unsettled reachable state enables a runner or
time step (`always-settles`), and a rank over the phase drops with every runner or time step
and never rises with an environment step, from `RANK_BOUND`: at most RANK_BOUND - 1 runner
or time steps before settling.

The seed's own answers to malformed input (wave:seed, observed by running transport.ts):
a non-null ping answer of any shape is taken as a WavePing; a spawn answer that is null or no
handle leaves the wave waiting for its timeout with nothing matching (`anon`), then
`stop(null)` and a receipt without ids; a buffered null completion makes F5's find throw
(spawn-failed, the run never stopped: `nulls`); any `terminalOutcome` but undefined is a
marker, a null one throwing in settle; no await is bounded.

Variants: `seed` is transport.ts exactly (KB8 open; no cancellation, JS has none);
`h1-no-abort-recheck` drops F3 (KB1); `h4-buffer-everything` buffers every completion for
the wave's life (KB2, KB3).
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from models.kernel import TRUE
from models.kernel import Bool
from models.kernel import Expr
from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Output
from models.kernel import Param
from models.kernel import Row
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import Variant
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import enabled
from models.kernel import eq
from models.kernel import eventually
from models.kernel import ge
from models.kernel import group_is
from models.kernel import ignore
from models.kernel import implies
from models.kernel import is_in
from models.kernel import is_none
from models.kernel import is_some
from models.kernel import ite
from models.kernel import le
from models.kernel import lt
from models.kernel import ne
from models.kernel import not_
from models.kernel import nxt
from models.kernel import or_
from models.kernel import others
from models.kernel import out
from models.kernel import param
from models.kernel import row
from models.kernel import row_is
from models.kernel import some
from models.kernel import trigger_is
from models.kernel import unchanged
from models.kernel import var
from models.kernel import weak
from models.kernel.layout import Layout

# ---------------------------------------------------------------- vocabulary


class Phase(enum.Enum):
    """The runner's phases: the control variable and the diagram's nodes."""

    PRECHECK = "abort pre-check"
    PING = "ping"
    RECHECK = "abort re-check"
    SUBSCRIBE = "subscribe"
    SPAWN = "spawn"
    WAIT = "wait"
    STOP = "stop"
    READ = "aggregate read"
    SETTLED = "settled"


class Completion(enum.Enum):
    """A completion as the runner can tell it apart (§2 handler, §9 completion details)."""

    FOREIGN = "another run's ids (or none)"
    OWN = "this run's ids, success"
    OWN_FAILED = "this run's ids, success === false"
    OWN_PARTIAL = "this run's ids, native-partial marker, retained entries"
    OWN_PARTIAL_BARE = "this run's ids, native-partial marker, nothing retained"
    OWN_FAILED_PARTIAL = "this run's ids, success === false and the marker, retained entries"
    OWN_NULL_OUTCOME = "this run's ids, terminalOutcome: null"
    OWN_BAD_OUTCOME = "this run's ids, a terminalOutcome that is not one (say {})"
    NULL = "null, not a completion at all"


class Call(enum.Enum):
    """An adapter call (api.md WaveAdapter)."""

    PING = "ping"
    SUBSCRIBE = "on_complete"
    SPAWN = "spawn"
    STOP = "stop"
    READ = "read_aggregate"
    UNSUBSCRIBE = "unsubscribe"


class PingAnswer(enum.Enum):
    ADVERTISED = "a WavePing"
    NULL = "null"
    RAISES = "raises"
    MALFORMED = "something that is neither null nor a WavePing"


class SubscribeAnswer(enum.Enum):
    SUBSCRIBED = "returns an unsubscribe"
    UNSUBSCRIBE_RAISES = "returns an unsubscribe that raises"
    RAISES = "raises"


class SpawnAnswer(enum.Enum):
    HANDLE = "a run handle"
    RAISES = "raises"
    NULL = "null"
    MALFORMED = "something that is neither null nor a run handle"


class Timeout(enum.Enum):
    """The effective timeout a launch runs with (wave-transport.md §5): how it is given, not
    how long it is. No row reads it: the runner behaves alike under each (time is the
    `deadline` trigger), which conformance and the seed differential check; the detail's
    `<ms>` text differs (impl/waves.py docstring)."""

    GIVEN = "spec.timeout_ms, a positive number"
    BELOW_ONE = "spec.timeout_ms 0, negative, NaN or Infinity (Node runs it after 1 ms)"
    HUGE = "spec.timeout_ms above 2**31-1 ms (Node runs it after 1 ms)"
    DEFAULT = "omitted: PERK_WAVE_TIMEOUT_MS when a finite positive number, else 900000"


class StopAnswer(enum.Enum):
    RETURNS = "returns"
    RAISES = "raises"


class AggState(enum.Enum):
    """The aggregate's `state` (§3 B4–B5)."""

    COMPLETE = "complete"
    FAILED = "failed"
    PARTIAL = "partial"
    OTHER = "another state"


class AggValue(enum.Enum):
    """The aggregate's `value`."""

    ARRAY = "an array"
    SCALAR = "not an array"
    ABSENT = "absent"


class ReadFailure(enum.Enum):
    RAISES = "raises"
    MALFORMED = "answers something that is not an aggregate"


class Decision(enum.Enum):
    """B1's winner."""

    UNDECIDED = "undecided"
    MATCH = "complete"
    TIMER = "timeout"
    ABORT = "cancelled"


class Result(enum.Enum):
    """How the run settled: ok, one of the six reasons (§1), or an exception."""

    NO_RESULT = "nothing settled in this step"
    OK = "ok"
    UNAVAILABLE = "unavailable"
    SPAWN_FAILED = "spawn-failed"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    RUN_FAILED = "run-failed"
    AGGREGATE_UNREADABLE = "aggregate-unreadable"
    CANCELLED_ERROR = "CancelledError re-raised"
    REJECTED = "another exception escapes"


class Receipt(enum.Enum):
    """The receipt's state (§1), or no receipt."""

    NO_RECEIPT = "no receipt"
    R_UNAVAILABLE = "unavailable"
    R_SPAWN_FAILED = "spawn-failed"
    R_COMPLETE = "complete"
    R_FAILED = "failed"
    R_TIMED_OUT = "timed-out"
    R_CANCELLED = "cancelled"


class Value(enum.Enum):
    """The result's value: where it comes from."""

    NO_VALUE = "none"
    ARRAY = "the aggregate's array"
    SCALAR = "the aggregate's non-array value"
    RETAINED = "the completion's retained entries"
    EMPTY = "[]"


class Detail(enum.Enum):
    """The failure's detail, by its line of §4's detail table (api.md's KB8 lines too)."""

    NO_DETAIL = ""
    BEFORE_LAUNCH = "wave '<flow>' was cancelled before launch"
    PING_FAILED = "subagent RPC ping failed: <msg>"
    NOT_ADVERTISED = "pi-subagents did not advertise the report-wave capabilities"
    SUBSCRIPTION_FAILED = "completion subscription failed: <msg>"
    SPAWN_FAILED = "wave spawn failed: <msg>"
    TIMED_OUT = "wave '<flow>' timed out after <ms>ms"
    TIMED_OUT_STOP_FAILED = "wave '<flow>' timed out after <ms>ms (stop failed: <msg>)"
    TIMED_OUT_STOP_ABANDONED = (
        "wave '<flow>' timed out after <ms>ms (stop did not finish within 1000ms)"
    )
    WAS_CANCELLED = "wave '<flow>' was cancelled"
    WAS_CANCELLED_STOP_FAILED = "wave '<flow>' was cancelled (stop failed: <msg>)"
    WAS_CANCELLED_STOP_ABANDONED = "wave '<flow>' was cancelled (stop did not finish within 1000ms)"
    WAS_CANCELLED_SPAWN_ABANDONED = "wave '<flow>' was cancelled (spawn did not answer)"
    UNREADABLE = "wave aggregate unreadable: <msg>"
    NATIVE_PARTIAL = "wave run ended '<state>' (native partial: <reason>)"
    RUN_ENDED = "wave run ended '<state>'"


PRECHECK, PING, RECHECK, SUBSCRIBE, SPAWN, WAIT, STOP, READ, SETTLED = Phase
(
    FOREIGN,
    OWN,
    OWN_FAILED,
    OWN_PARTIAL,
    OWN_PARTIAL_BARE,
    OWN_FAILED_PARTIAL,
    OWN_NULL_OUTCOME,
    OWN_BAD_OUTCOME,
    NULL_COMPLETION,
) = Completion
OWN_KINDS = (
    OWN,
    OWN_FAILED,
    OWN_PARTIAL,
    OWN_PARTIAL_BARE,
    OWN_FAILED_PARTIAL,
    OWN_NULL_OUTCOME,
    OWN_BAD_OUTCOME,
)
# `success === false`: the unreadable arm's receipt says failed (§4).
SUCCESS_FALSE = (OWN_FAILED, OWN_FAILED_PARTIAL)
# A well-formed native-partial marker (a TerminalOutcome); with retained entries.
MARKED = (OWN_PARTIAL, OWN_PARTIAL_BARE, OWN_FAILED_PARTIAL)
RETAINING = (OWN_PARTIAL, OWN_FAILED_PARTIAL)
UNDECIDED, MATCH, TIMER, ABORT = Decision
R = Receipt

RUNNER = "runner"
ENV = "env"
TIME = "time"

COMPLETION = Finite.of_enum(Completion)
# The call log of one step: up to two calls, in order (any two, so a wrong one is visible).
CALL_LISTS = Finite.of_sequences(
    "Calls", Call, 2, [(), *((c,) for c in Call), *itertools.product(Call, repeat=2)]
)


OUTPUTS = (
    Output("calls", CALL_LISTS, (), doc="the adapter calls the step made, in order"),
    Output("result", Finite.of_enum(Result), Result.NO_RESULT, doc="ok, a reason, or raised"),
    Output("receipt", Finite.of_enum(Receipt), R.NO_RECEIPT, doc="receipt.state"),
    Output("ids", Bool(), False, doc="the receipt carries run_id and async_dir"),
    Output("value", Finite.of_enum(Value), Value.NO_VALUE, doc="the result's value"),
    Output("detail", Finite.of_enum(Detail), Detail.NO_DETAIL, doc="failure.detail, by line"),
    Output("keyed", Bool(), False, doc="failure.key is set (no row sets it: the seed's null)"),
)


def calls_with(call: Call) -> Expr:
    """The step's calls include `call`."""
    return is_in(out("calls"), *(seq for seq in CALL_LISTS.values if call in seq))


# ---------------------------------------------------------------- row builders

# Settling resets every variable but the phase, the settlement count and the match (the
# receipt's children come from it): the run is over and nothing reads them afterwards. The
# settling step emits the result.
_RESET: dict[str, object] = {
    "aborted": False,
    "subscribed": False,
    "unsub_raises": False,
    "buffer": None,
    "decided": UNDECIDED,
    "cancelled": False,
    "hung": False,
    "anon": False,
    "nulls": False,
    "reaping": False,
}


def settling(
    name: str,
    trigger: str,
    source: Phase | tuple[Phase, ...] | None,
    result: object,
    *,
    cite: str,
    guard: Expr | None = None,
    receipt: object = R.NO_RECEIPT,
    ids: object = False,
    value: object = Value.NO_VALUE,
    detail: object = Detail.NO_DETAIL,
    calls: tuple[Call, ...] = (),
    release: bool = False,
    reaping: bool = False,
) -> Row:
    """A row that settles the run after `calls`, emitting its result; `release` then
    unsubscribes (the seed's `finally`); `reaping` leaves the spawn await running so that a
    late run handle is stopped."""
    emitted: dict[str, object] = {
        "calls": (*calls, Call.UNSUBSCRIBE) if release else calls,
        "result": result,
        "receipt": receipt,
        "ids": ids,
        "value": value,
        "detail": detail,
    }
    defaults = {o.name: o.default for o in OUTPUTS}
    emits = {k: v for k, v in emitted.items() if isinstance(v, Expr) or v != defaults[k]}
    return row(
        name,
        trigger,
        source,
        SETTLED,
        guard=guard if guard is not None else TRUE,
        sets={
            **_RESET,
            "reaping": reaping,
            "settles": ite(lt(var("settles"), 2), add(var("settles"), 1), 2),
        },
        emits=emits,
        cite=cite,
    )


def deciding(
    name: str,
    trigger: str,
    source: Phase | tuple[Phase, ...],
    decision: Decision,
    *,
    cite: str,
    guard: Expr | None = None,
    sets: Mapping[str, object] | None = None,
) -> Row:
    """B1: the first source to fire wins and closes acceptance; B2's stop or B3's read follows
    at once. The abort signal is no longer read."""
    target, call = (READ, Call.READ) if decision is MATCH else (STOP, Call.STOP)
    return row(
        name,
        trigger,
        source,
        target,
        guard=guard if guard is not None else TRUE,
        sets={**(sets or {}), "decided": decision, "aborted": False, "buffer": None},
        emits={"calls": (call,)},
        cite=cite,
    )


TIMED = eq(var("decided"), TIMER)
NOT_HUNG = not_(var("hung"))
PARTIAL_MARKED = is_in(var("matched"), *MARKED)
OWN_COMPLETION = is_in(param("of"), *OWN_KINDS)
NO_MATCH_BUFFERED = is_in(var("buffer"), None, FOREIGN)
BUFFERED_MATCH = is_in(var("buffer"), *OWN_KINDS)
HANDLE_ANSWER = eq(param("answer"), SpawnAnswer.HANDLE)
NO_HANDLE_ANSWER = is_in(param("answer"), SpawnAnswer.NULL, SpawnAnswer.MALFORMED)
REAPING = var("reaping")
FAILED_OR_PARTIAL = is_in(param("state"), AggState.FAILED, AggState.PARTIAL)


def stopped(name: str, trigger: str, guard: Expr, detail: tuple[Detail, Detail], cite: str) -> Row:
    """B2's two arms (timer first, abort first): the detail says which, and how the stop went."""
    return settling(
        name,
        trigger,
        STOP,
        ite(TIMED, Result.TIMEOUT, Result.CANCELLED),
        guard=guard,
        receipt=ite(TIMED, R.R_TIMED_OUT, R.R_CANCELLED),
        ids=not_(var("anon")),
        detail=ite(TIMED, *detail),
        release=True,
        cite=cite,
    )


def unreadable(name: str, trigger: str, guard: Expr | None, cite: str) -> Row:
    """The unreadable arm: the receipt labels the observed completion (§4)."""
    return settling(
        name,
        trigger,
        READ,
        Result.AGGREGATE_UNREADABLE,
        guard=guard,
        receipt=ite(is_in(var("matched"), *SUCCESS_FALSE), R.R_FAILED, R.R_COMPLETE),
        ids=True,
        detail=Detail.UNREADABLE,
        release=True,
        cite=cite,
    )


def run_failed(name: str, guard: Expr, detail: Detail, value: object, cite: str) -> Row:
    return settling(
        name,
        "read_replies",
        READ,
        Result.RUN_FAILED,
        guard=and_(NOT_HUNG, guard),
        receipt=R.R_FAILED,
        ids=True,
        value=value,
        detail=detail,
        release=True,
        cite=cite,
    )


def cancelled_error(
    name: str, source: Phase, *, trigger: str = "cancel", guard: Expr | None = None, cite: str
) -> Row:
    """The task ends cancelled: CancelledError re-raised, no result, no receipt. Every source
    but the ping has subscribed, so it releases the subscription; cancelled during the spawn
    await, it leaves that await running to stop a late handle."""
    return settling(
        name,
        trigger,
        source,
        Result.CANCELLED_ERROR,
        guard=guard,
        release=source is not PING,
        reaping=source is SPAWN,
        cite=cite,
    )


DECIDED_CANCEL = "issue 3 cancellation decision (impl/waves.py docstring)"

# ---------------------------------------------------------------- rows

ROWS: tuple[Row, ...] = (
    # ---- launch: F1, the abort pre-check; then the ping is called
    settling(
        "launch_refuses_aborted",
        "launch",
        PRECHECK,
        Result.CANCELLED,
        guard=var("aborted"),
        receipt=R.R_CANCELLED,
        detail=Detail.BEFORE_LAUNCH,
        cite="transport.ts F1 `if (aborted()) return cancelledBeforeLaunch()`; "
        "wave-transport.md §4 table, cancelled before launch",
    ),
    row(
        "launch_pings",
        "launch",
        PRECHECK,
        PING,
        guard=not_(var("aborted")),
        emits={"calls": (Call.PING,)},
        cite="transport.ts F2 `await adapter.ping()`; wave-transport.md §2 F2",
    ),
    ignore(
        "launch_once", "launch", others(PRECHECK), cite="wave-transport.md §2: one launch per call"
    ),
    # ---- ping_replies: F2
    row(
        "ping_advertised",
        "ping_replies",
        PING,
        RECHECK,
        guard=eq(param("answer"), PingAnswer.ADVERTISED),
        cite="transport.ts F2 (a WavePing); wave-transport.md §2 F2",
    ),
    settling(
        "ping_null_unavailable",
        "ping_replies",
        PING,
        Result.UNAVAILABLE,
        guard=eq(param("answer"), PingAnswer.NULL),
        receipt=R.R_UNAVAILABLE,
        detail=Detail.NOT_ADVERTISED,
        cite="transport.ts F2 `if (ping === null)`; wave-transport.md §4 table, ping null",
    ),
    settling(
        "ping_raises_unavailable",
        "ping_replies",
        PING,
        Result.UNAVAILABLE,
        guard=eq(param("answer"), PingAnswer.RAISES),
        receipt=R.R_UNAVAILABLE,
        detail=Detail.PING_FAILED,
        cite="transport.ts F2 catch; wave-transport.md §4 table, ping throws",
    ),
    settling(
        "ping_malformed_unavailable",
        "ping_replies",
        PING,
        Result.UNAVAILABLE,
        guard=eq(param("answer"), PingAnswer.MALFORMED),
        receipt=R.R_UNAVAILABLE,
        detail=Detail.NOT_ADVERTISED,
        cite="impl/waves.py docstring (an answer that is not a WavePing counts as null); "
        "api.md `ping() -> WavePing | None`",
    ),
    ignore("no_ping_pending", "ping_replies", others(PING), cite="transport.ts F2 (one ping)"),
    # ---- recheck: F3
    settling(
        "recheck_refuses_aborted",
        "recheck",
        RECHECK,
        Result.CANCELLED,
        guard=var("aborted"),
        receipt=R.R_CANCELLED,
        detail=Detail.BEFORE_LAUNCH,
        cite="transport.ts F3 (the post-ping re-check, H2); wave-transport.md §2 F3, §8 KB1",
    ),
    row(
        "recheck_passes",
        "recheck",
        RECHECK,
        SUBSCRIBE,
        guard=not_(var("aborted")),
        cite="transport.ts F3; wave-transport.md §2 F3",
    ),
    ignore("recheck_once", "recheck", others(RECHECK), cite="transport.ts F3 (one re-check)"),
    # ---- subscribe: F4, then F5 calls spawn (no await between them)
    row(
        "subscribe_then_spawn",
        "subscribe",
        SUBSCRIBE,
        SPAWN,
        guard=ne(param("answer"), SubscribeAnswer.RAISES),
        sets={
            "subscribed": True,
            "unsub_raises": eq(param("answer"), SubscribeAnswer.UNSUBSCRIBE_RAISES),
        },
        emits={"calls": (Call.SUBSCRIBE, Call.SPAWN)},
        cite="transport.ts F4 `adapter.onComplete(...)`, then F5 `await adapter.spawn(...)`; "
        "wave-transport.md §2 F4–F5 (subscribe before spawn)",
    ),
    settling(
        "subscribe_raises_unavailable",
        "subscribe",
        SUBSCRIBE,
        Result.UNAVAILABLE,
        guard=eq(param("answer"), SubscribeAnswer.RAISES),
        receipt=R.R_UNAVAILABLE,
        detail=Detail.SUBSCRIPTION_FAILED,
        calls=(Call.SUBSCRIBE,),
        cite="api.md KB8 close: on_complete raising → unavailable, spawn never called; "
        "wave-transport.md §8 KB8(a)",
    ),
    ignore("subscribe_once", "subscribe", others(SUBSCRIBE), cite="transport.ts F4 (one handler)"),
    # ---- spawn_replies: the tail of F5, then B1 is armed with no await since the reply
    deciding(
        "spawn_reply_takes_buffered_match",
        "spawn_replies",
        SPAWN,
        MATCH,
        guard=and_(HANDLE_ANSWER, BUFFERED_MATCH),
        sets={"matched": var("buffer")},
        cite="transport.ts F5 `matched = buffered.find(matchesHandle)`, B1 (`matched` set: "
        "complete, a pre-reply match wins even if aborted), B3; wave-transport.md §3 B1",
    ),
    deciding(
        "spawn_reply_sees_abort",
        "spawn_replies",
        SPAWN,
        ABORT,
        guard=and_(HANDLE_ANSWER, NO_MATCH_BUFFERED, var("aborted")),
        cite="transport.ts B1 (the synchronous `signal?.aborted` check → cancelled), B2; "
        "wave-transport.md §2 (an abort during the spawn is caught by the back half)",
    ),
    row(
        "spawn_reply_arms_wait",
        "spawn_replies",
        SPAWN,
        WAIT,
        guard=and_(HANDLE_ANSWER, NO_MATCH_BUFFERED, not_(var("aborted"))),
        sets={"buffer": None},
        cite="transport.ts F5–F6, B1 (timer, abort listener and notifyMatch armed); "
        "wave-transport.md §3 B1, §6 (armed before start returns)",
    ),
    settling(
        "spawn_raises_spawn_failed",
        "spawn_replies",
        SPAWN,
        Result.SPAWN_FAILED,
        guard=eq(param("answer"), SpawnAnswer.RAISES),
        receipt=R.R_SPAWN_FAILED,
        detail=Detail.SPAWN_FAILED,
        release=True,
        cite="transport.ts F5 catch (accepting=false, unsubscribe, clear); "
        "wave-transport.md §4 table, spawn throws (also while aborted)",
    ),
    settling(
        "spawn_not_a_handle_spawn_failed",
        "spawn_replies",
        SPAWN,
        Result.SPAWN_FAILED,
        guard=NO_HANDLE_ANSWER,
        receipt=R.R_SPAWN_FAILED,
        detail=Detail.SPAWN_FAILED,
        release=True,
        cite="impl/waves.py docstring (a spawn answer that is not a WaveRunHandle is "
        "spawn-failed: nothing could be matched or stopped); api.md `spawn -> WaveRunHandle`",
    ),
    row(
        "late_spawn_reply_stopped",
        "spawn_replies",
        SETTLED,
        guard=and_(REAPING, HANDLE_ANSWER),
        sets={"reaping": False},
        emits={"calls": (Call.STOP,)},
        cite="issue 8 §3 (cancelled with a stop once a late spawn reply arrives, so no run is "
        "orphaned); impl/waves.py docstring",
    ),
    row(
        "late_spawn_reply_without_a_run",
        "spawn_replies",
        SETTLED,
        guard=and_(REAPING, not_(HANDLE_ANSWER)),
        sets={"reaping": False},
        cite="impl/waves.py docstring: a late spawn that raises or gives no handle left no run",
    ),
    ignore(
        "no_spawn_pending",
        "spawn_replies",
        others(SPAWN),
        guard=not_(REAPING),
        cite="transport.ts F5 (one spawn)",
    ),
    # ---- stop_replies: B2
    stopped(
        "stop_returns",
        "stop_replies",
        and_(eq(param("answer"), StopAnswer.RETURNS), NOT_HUNG, not_(var("cancelled"))),
        (Detail.TIMED_OUT, Detail.WAS_CANCELLED),
        "transport.ts B2 `await adapter.stop(spawned)`; wave-transport.md §4 table, "
        "timer first / abort first (post-spawn)",
    ),
    stopped(
        "stop_raises_into_the_detail",
        "stop_replies",
        and_(eq(param("answer"), StopAnswer.RAISES), NOT_HUNG, not_(var("cancelled"))),
        (Detail.TIMED_OUT_STOP_FAILED, Detail.WAS_CANCELLED_STOP_FAILED),
        "transport.ts B2 catch → ` (stop failed: <msg>)`; wave-transport.md §10 property 6",
    ),
    cancelled_error(
        "stop_replies_then_reraises",
        STOP,
        trigger="stop_replies",
        guard=and_(NOT_HUNG, var("cancelled")),
        cite=f"{DECIDED_CANCEL}: a cancel waits for the same stop, then re-raises",
    ),
    ignore(
        "no_stop_answer",
        "stop_replies",
        None,
        guard=or_(ne(var("phase"), STOP), var("hung")),
        cite="transport.ts B2 (one stop); a hung stop never answers (§8 KB8(c))",
    ),
    # ---- read_replies: B3–B5, the aggregate's state × value, with or without the marker
    settling(
        "read_complete_ok",
        "read_replies",
        READ,
        Result.OK,
        guard=and_(
            NOT_HUNG, eq(param("state"), AggState.COMPLETE), ne(param("value"), AggValue.ABSENT)
        ),
        receipt=R.R_COMPLETE,
        ids=True,
        value=ite(eq(param("value"), AggValue.ARRAY), Value.ARRAY, Value.SCALAR),
        release=True,
        cite="transport.ts B5 (the value's type is not checked); wave-transport.md §4 table, "
        "complete",
    ),
    settling(
        "read_complete_ok_without_value",
        "read_replies",
        READ,
        Result.OK,
        guard=and_(
            NOT_HUNG, eq(param("state"), AggState.COMPLETE), eq(param("value"), AggValue.ABSENT)
        ),
        receipt=R.R_COMPLETE,
        ids=True,
        release=True,
        cite="transport.ts B5 (`value: aggregate.value`, undefined when absent); "
        "wave-transport.md §4 table, complete",
    ),
    run_failed(
        "read_native_partial_durable_array",
        and_(FAILED_OR_PARTIAL, PARTIAL_MARKED, eq(param("value"), AggValue.ARRAY)),
        Detail.NATIVE_PARTIAL,
        Value.ARRAY,
        "transport.ts B4 partial arm (H5); wave-transport.md §4 table, partial (a durable "
        "array is authoritative in full)",
    ),
    run_failed(
        "read_native_partial_retained",
        and_(FAILED_OR_PARTIAL, PARTIAL_MARKED, ne(param("value"), AggValue.ARRAY)),
        Detail.NATIVE_PARTIAL,
        ite(is_in(var("matched"), *RETAINING), Value.RETAINED, Value.EMPTY),
        "transport.ts B4 partial arm (H5); wave-transport.md §4 table, partial (no durable "
        "array: `retainedEntries ?? []`)",
    ),
    run_failed(
        "read_run_failed",
        or_(eq(param("state"), AggState.OTHER), and_(FAILED_OR_PARTIAL, not_(PARTIAL_MARKED))),
        Detail.RUN_ENDED,
        Value.NO_VALUE,
        'transport.ts B4 `state !== "complete"` without the marker (KB4 fixed in H5 only for '
        "marked runs); wave-transport.md §4 table, other non-complete",
    ),
    ignore(
        "no_read_answer",
        "read_replies",
        None,
        guard=or_(ne(var("phase"), READ), var("hung")),
        cite="transport.ts B3 (one read); a hung read never answers (§8)",
    ),
    # ---- read_fails: B3's unreadable arm
    unreadable(
        "read_raises_unreadable",
        "read_fails",
        and_(NOT_HUNG, eq(param("how"), ReadFailure.RAISES)),
        "transport.ts B3 catch; wave-transport.md §4 table, read throws",
    ),
    unreadable(
        "read_malformed_unreadable",
        "read_fails",
        and_(NOT_HUNG, eq(param("how"), ReadFailure.MALFORMED)),
        "api.md KB8 close: an answer that is not a WaveAggregate → aggregate-unreadable",
    ),
    ignore(
        "no_read_to_fail",
        "read_fails",
        None,
        guard=or_(ne(var("phase"), READ), var("hung")),
        cite="transport.ts B3 (one read); a hung read never answers (§8)",
    ),
    # ---- abort (env)
    row(
        "abort_sets_the_signal",
        "abort",
        (PRECHECK, PING, SPAWN),
        sets={"aborted": True},
        cite="transport.ts `signal.aborted`; wave-transport.md §2 (not observed during the "
        "ping or spawn awaits: F1, F3 and B1 read it)",
    ),
    deciding(
        "abort_decides_cancelled",
        "abort",
        WAIT,
        ABORT,
        cite="transport.ts B1 (the `once` abort listener → cancelled), B2; "
        "wave-transport.md §4 table, abort first (post-spawn)",
    ),
    ignore(
        "abort_unheard",
        "abort",
        (RECHECK, SUBSCRIBE, STOP, READ, SETTLED),
        cite="transport.ts F3–F5 run without an await (nothing lands there); B1 removes the "
        "listener once an outcome is decided",
    ),
    # ---- completion (env)
    row(
        "completion_buffered_as_first_match",
        "completion",
        SPAWN,
        guard=and_(OWN_COMPLETION, NO_MATCH_BUFFERED),
        sets={"buffer": some(param("of"))},
        cite="transport.ts F4 handler `if (handle === null) buffered.push(completion)`; "
        "wave-transport.md §2 (a completion before the spawn reply)",
    ),
    row(
        "completion_buffered_behind",
        "completion",
        SPAWN,
        guard=or_(
            eq(param("of"), FOREIGN),
            and_(ne(param("of"), NULL_COMPLETION), not_(NO_MATCH_BUFFERED)),
        ),
        sets={"buffer": ite(is_none(var("buffer")), some(FOREIGN), var("buffer"))},
        cite="transport.ts F4 handler (every completion is buffered while the handle is "
        "unknown; F5 takes the first match)",
    ),
    deciding(
        "completion_matches",
        "completion",
        WAIT,
        MATCH,
        guard=OWN_COMPLETION,
        sets={"matched": some(param("of"))},
        cite="transport.ts F4 handler `matched = completion; notifyMatch?.()`, B1 → complete, "
        "B3; wave-transport.md §10 property 9",
    ),
    ignore(
        "foreign_completion_dropped",
        "completion",
        WAIT,
        guard=eq(param("of"), FOREIGN),
        cite="transport.ts F4 handler `if (!matchesHandle(completion) ...) return`",
    ),
    ignore(
        "null_completion_ignored",
        "completion",
        (SPAWN, WAIT),
        guard=eq(param("of"), NULL_COMPLETION),
        cite="impl/waves.py docstring (a completion that is not a WaveCompletion is ignored); "
        "api.md `handler: Callable[[WaveCompletion], None]`",
    ),
    ignore(
        "completion_unheard",
        "completion",
        others(SPAWN, WAIT),
        cite="transport.ts F4 (no handler before the subscribe); the handler's "
        "`if (!accepting) return` (H5, KB3) once decided; late ones after settle",
    ),
    # ---- cancel (env): the caller cancels the task (start, then the result)
    cancelled_error(
        "cancel_during_ping",
        PING,
        cite=f"{DECIDED_CANCEL}: CancelledError propagates from the ping await",
    ),
    cancelled_error(
        "cancel_during_spawn",
        SPAWN,
        cite=f"{DECIDED_CANCEL}: cancelled during the spawn await, start releases the "
        "subscription and re-raises",
    ),
    deciding(
        "cancel_while_waiting",
        "cancel",
        WAIT,
        ABORT,
        sets={"cancelled": True},
        cite=f"{DECIDED_CANCEL}: cancelling `result` is an abort (stop within the grace), "
        "then re-raised",
    ),
    row(
        "cancel_during_stop",
        "cancel",
        STOP,
        guard=not_(var("cancelled")),
        sets={"cancelled": True},
        cite=f"{DECIDED_CANCEL}: the same stop is awaited",
    ),
    cancelled_error(
        "cancel_again_abandons_stop",
        STOP,
        guard=var("cancelled"),
        cite=f"{DECIDED_CANCEL}: cancelled twice, the cleanup stop is abandoned",
    ),
    cancelled_error(
        "cancel_during_read",
        READ,
        cite=f"{DECIDED_CANCEL}: it loses to a decided match (the read is abandoned, no stop)",
    ),
    ignore(
        "cancel_ignored",
        "cancel",
        (PRECHECK, RECHECK, SUBSCRIBE, SETTLED),
        cite="no task runs yet; F3–F5 run without an await (a cancel lands at the next one); "
        "cancelling a finished task is a no-op",
    ),
    # ---- hang (env): the pending stop or read never answers
    row(
        "pending_call_hangs",
        "hang",
        (STOP, READ),
        sets={"hung": True},
        cite="wave-transport.md §8 KB8(c) (a stop never resolves) and the same family "
        "(a readAggregate never resolves)",
    ),
    ignore(
        "nothing_to_hang",
        "hang",
        others(STOP, READ),
        cite="a ping or spawn that never answers is the environment never replying "
        "(always-settles); nothing else is pending",
    ),
    # ---- deadline (time): the next deadline passes
    deciding(
        "timer_fires_timeout",
        "deadline",
        WAIT,
        TIMER,
        cite="transport.ts B1 `setTimeout(..., timeoutMs)` → timeout, B2; "
        "wave-transport.md §4 table, timer first",
    ),
    stopped(
        "grace_abandons_stop",
        "deadline",
        not_(var("cancelled")),
        (Detail.TIMED_OUT_STOP_ABANDONED, Detail.WAS_CANCELLED_STOP_ABANDONED),
        "api.md KB8 close: a stop unfinished after WAVE_STOP_GRACE_MS is abandoned",
    ),
    cancelled_error(
        "grace_abandons_stop_then_reraises",
        STOP,
        trigger="deadline",
        guard=var("cancelled"),
        cite=f"{DECIDED_CANCEL}: stop within the grace, release, re-raise",
    ),
    unreadable(
        "read_deadline_unreadable",
        "deadline",
        None,
        "api.md KB8 close: a read unfinished within the effective timeout → aggregate-unreadable",
    ),
    settling(
        "ping_deadline_unavailable",
        "deadline",
        PING,
        Result.UNAVAILABLE,
        guard=not_(var("aborted")),
        receipt=R.R_UNAVAILABLE,
        detail=Detail.PING_FAILED,
        cite="impl/waves.py docstring: a ping unanswered within the effective timeout failed "
        "(`subagent RPC ping failed: ping did not answer within <ms>ms`); issue 8 §3",
    ),
    settling(
        "ping_deadline_after_abort",
        "deadline",
        PING,
        Result.CANCELLED,
        guard=var("aborted"),
        receipt=R.R_CANCELLED,
        detail=Detail.BEFORE_LAUNCH,
        cite="issue 8 §3 (an abort settles promptly: cancelled before launch); impl/waves.py "
        "docstring (aborted, the ping gets WAVE_STOP_GRACE_MS more, then is abandoned)",
    ),
    settling(
        "spawn_deadline_spawn_failed",
        "deadline",
        SPAWN,
        Result.SPAWN_FAILED,
        guard=not_(var("aborted")),
        receipt=R.R_SPAWN_FAILED,
        detail=Detail.SPAWN_FAILED,
        release=True,
        cite="impl/waves.py docstring: a spawn unanswered within the effective timeout failed "
        "(the run enforces the same timeout itself, so none outlives it)",
    ),
    settling(
        "spawn_deadline_after_abort",
        "deadline",
        SPAWN,
        Result.CANCELLED,
        guard=var("aborted"),
        receipt=R.R_CANCELLED,
        detail=Detail.WAS_CANCELLED_SPAWN_ABANDONED,
        release=True,
        reaping=True,
        cite="issue 8 §3 (an abort settles promptly, and a late spawn reply is stopped); "
        "impl/waves.py docstring (aborted, the spawn gets WAVE_STOP_GRACE_MS more)",
    ),
    row(
        "late_spawn_abandoned",
        "deadline",
        SETTLED,
        guard=REAPING,
        sets={"reaping": False},
        cite="impl/waves.py docstring: the late-spawn watch ends at the effective timeout, "
        "when the run's own deadline has passed",
    ),
    ignore(
        "no_deadline_pending",
        "deadline",
        (PRECHECK, RECHECK, SUBSCRIBE, SETTLED),
        guard=not_(REAPING),
        cite="transport.ts: the timer is armed at B1 and cleared once an outcome is decided; "
        "no await is pending in the instants or once settled",
    ),
)

TRIGGERS = (
    Trigger(
        "launch",
        (Param("timeout", Finite.of_enum(Timeout)),),
        group=RUNNER,
        doc="start_wave_script is called (with this timeout): F1, then ping()",
    ),
    Trigger(
        "ping_replies",
        (Param("answer", Finite.of_enum(PingAnswer)),),
        group=ENV,
        doc="the adapter answers the ping (or raises)",
    ),
    Trigger("recheck", group=RUNNER, doc="F3, the abort re-check"),
    Trigger(
        "subscribe",
        (Param("answer", Finite.of_enum(SubscribeAnswer)),),
        group=RUNNER,
        doc="F4 on_complete(handler), then F5 calls spawn",
    ),
    Trigger(
        "spawn_replies",
        (Param("answer", Finite.of_enum(SpawnAnswer)),),
        group=ENV,
        doc="the adapter answers the spawn (or raises); B1 is armed",
    ),
    Trigger(
        "stop_replies",
        (Param("answer", Finite.of_enum(StopAnswer)),),
        group=ENV,
        doc="the adapter answers the stop (or raises)",
    ),
    Trigger(
        "read_replies",
        (Param("state", Finite.of_enum(AggState)), Param("value", Finite.of_enum(AggValue))),
        group=ENV,
        doc="the adapter answers read_aggregate with an aggregate",
    ),
    Trigger(
        "read_fails",
        (Param("how", Finite.of_enum(ReadFailure)),),
        group=ENV,
        doc="read_aggregate raises, or answers something that is not an aggregate",
    ),
    Trigger("abort", group=ENV, doc="the abort signal is set"),
    Trigger(
        "completion",
        (Param("of", COMPLETION),),
        group=ENV,
        doc="the adapter delivers a completion to its subscribers",
    ),
    Trigger("cancel", group=ENV, doc="the caller cancels the task (start, then the result)"),
    Trigger("hang", group=ENV, doc="the pending stop or read will never answer"),
    Trigger("deadline", group=TIME, doc="time passes to the next pending deadline"),
)

VARS = (
    Var("phase", Finite.of_enum(Phase), PRECHECK, doc="the runner's phase (control)"),
    Var("aborted", Bool(), False, doc="the abort signal is set (while the runner reads it)"),
    Var("subscribed", Bool(), False, doc="the completion handler is subscribed"),
    Var("unsub_raises", Bool(), False, doc="the unsubscribe the adapter returned raises"),
    Var("buffer", Option(COMPLETION), None, doc="its first match, FOREIGN if none (F4)"),
    Var("matched", Option(COMPLETION), None, doc="the match (`matched`)"),
    Var("decided", Finite.of_enum(Decision), UNDECIDED, doc="B1's winner"),
    Var("cancelled", Bool(), False, doc="the task was cancelled while stopping"),
    Var("hung", Bool(), False, doc="the pending stop or read will never answer"),
    Var("settles", IntRange(0, 2), 0, doc="times the run settled"),
    Var("anon", Bool(), False, doc="the seed waits with a spawn answer that is no handle"),
    Var("nulls", Bool(), False, doc="the seed's buffer holds a null completion"),
    Var(
        "reaping", Bool(), False, doc="settled with the spawn unanswered: a late handle is stopped"
    ),
)


# ---------------------------------------------------------------- the rank (liveness)

RANK_BOUND = 6
# The settlement count plus the most runner and time steps left from each phase, plus one
# while unsettled (from the start: launch, re-check, subscribe, timer, stop grace). The
# adapter's answers are the environment's: they may lower the rank, never raise it.
_STEPS_LEFT = (
    (PRECHECK, 6),
    (PING, 5),
    (RECHECK, 5),
    (SUBSCRIBE, 4),
    (SPAWN, 3),
    (WAIT, 3),
    (STOP, 2),
    (READ, 2),
)


def rank(at: str = "pre") -> Expr:
    ref = var if at == "pre" else nxt
    settles = add(ref("settles"), 0)  # a sum: the kernel types it as any int, not 0..2
    expr: Expr = settles
    for phase, steps in reversed(_STEPS_LEFT):
        expr = ite(eq(ref("phase"), phase), add(settles, steps), expr)
    return expr


RUNNER_TRIGGERS = tuple(t.name for t in TRIGGERS if t.group == RUNNER)
TIME_TRIGGERS = tuple(t.name for t in TRIGGERS if t.group == TIME)
# Runner and time rows that do nothing (the ignore rows leave the state, and the rank, alone).
PASSIVE = tuple(
    r.name for r in ROWS if r.ignore and r.trigger in (*RUNNER_TRIGGERS, *TIME_TRIGGERS)
)

# ---------------------------------------------------------------- properties

UNSETTLED = ne(var("phase"), SETTLED)
SETTLED_NOW = eq(var("phase"), SETTLED)
SETTLING = and_(UNSETTLED, eq(nxt("phase"), SETTLED))
SPAWNED = is_in(var("phase"), WAIT, STOP, READ)  # past a spawn that returned a handle
SIX = (
    Result.UNAVAILABLE,
    Result.SPAWN_FAILED,
    Result.TIMEOUT,
    Result.CANCELLED,
    Result.RUN_FAILED,
    Result.AGGREGATE_UNREADABLE,
)
FAILURE = is_in(out("result"), *SIX)
EVERYTHING = tuple(v.name for v in VARS)
# What a run does or reports: a completion changes none of it unless it is the first match.
RUN = tuple(name for name in EVERYTHING if name != "buffer")
NO_OUTPUT = and_(*(eq(out(o.name), o.default) for o in OUTPUTS))


def only_once(call: Call) -> Expr:
    return ne(out("calls"), (call, call))


def enters(phase: Phase) -> Expr:
    """The step enters `phase`."""
    return and_(ne(var("phase"), phase), eq(nxt("phase"), phase))


def result_is(*results: Result) -> Expr:
    return is_in(out("result"), *results)


PROPERTIES = (
    always(
        "settles-exactly-once",
        and_(le(var("settles"), 1), eq(SETTLED_NOW, eq(var("settles"), 1))),
        cite="wave-transport.md §10 property 2 (exactly one terminal arm per launch, never "
        '"running")',
        doc="The run settles once; settled is absorbing (terminal-absorbing checks it).",
    ),
    always(
        "settles-as-ok-or-one-of-six-reasons",
        and_(
            eq(SETTLING, ne(out("result"), Result.NO_RESULT)),
            implies(
                SETTLING,
                or_(
                    and_(
                        result_is(Result.OK),
                        eq(out("receipt"), R.R_COMPLETE),
                        eq(out("detail"), Detail.NO_DETAIL),
                    ),
                    and_(
                        FAILURE,
                        ne(out("receipt"), R.NO_RECEIPT),
                        ne(out("detail"), Detail.NO_DETAIL),
                    ),
                    and_(
                        result_is(Result.CANCELLED_ERROR),
                        eq(out("receipt"), R.NO_RECEIPT),
                        eq(out("detail"), Detail.NO_DETAIL),
                        eq(out("value"), Value.NO_VALUE),
                    ),
                ),
            ),
        ),
        cite="wave-transport.md §1 (the six reasons), §10 property 2; issue 3 cancellation "
        "decision (CancelledError re-raised, no result)",
        doc="Exactly the step into settled reports, and it reports ok, a failure with one of "
        "the six reasons, or the task's CancelledError.",
    ),
    always(
        "never-throws",
        ne(out("result"), Result.REJECTED),
        cite="wave-transport.md §10 property 1 (never rejects), §8 KB8; api.md KB8 close",
        doc="Nothing escapes the runner but the CancelledError of its own cancellation.",
    ),
    always(
        "failure-key-is-null",
        implies(FAILURE, not_(out("keyed"))),
        cite="wave-transport.md §1 (failure {key: null, ...}), §10 property 2; transport.ts "
        "`WaveRunFailure.key: null`",
    ),
    always(
        "a-raising-unsubscribe-is-swallowed",
        implies(
            and_(var("unsub_raises"), calls_with(Call.UNSUBSCRIBE)),
            is_in(out("result"), Result.OK, Result.CANCELLED_ERROR, *SIX),
        ),
        cite="api.md KB8 close (an unsubscribe that raises is swallowed: the outcome is "
        "unchanged); wave-transport.md §8 KB8(b)",
        doc="Releasing through an unsubscribe that raises still settles with the arm's result.",
    ),
    always(
        "receipt-matches-reason",
        and_(
            implies(result_is(Result.OK), eq(out("receipt"), R.R_COMPLETE)),
            implies(result_is(Result.UNAVAILABLE), eq(out("receipt"), R.R_UNAVAILABLE)),
            implies(result_is(Result.SPAWN_FAILED), eq(out("receipt"), R.R_SPAWN_FAILED)),
            implies(result_is(Result.TIMEOUT), eq(out("receipt"), R.R_TIMED_OUT)),
            implies(result_is(Result.CANCELLED), eq(out("receipt"), R.R_CANCELLED)),
            implies(result_is(Result.RUN_FAILED), eq(out("receipt"), R.R_FAILED)),
            implies(
                result_is(Result.AGGREGATE_UNREADABLE),
                eq(
                    out("receipt"),
                    ite(is_in(var("matched"), *SUCCESS_FALSE), R.R_FAILED, R.R_COMPLETE),
                ),
            ),
        ),
        cite="wave-transport.md §4 table (reason ↔ receipt state; unreadable: failed iff "
        "success === false, else complete), §10 property 3",
    ),
    always(
        "run-ids-iff-spawned",
        implies(ne(out("receipt"), R.NO_RECEIPT), eq(out("ids"), and_(SPAWNED, not_(var("anon"))))),
        cite="wave-transport.md §1 (ids present iff the spawn succeeded), §10 property 3",
    ),
    always(
        "no-spawn-after-abort-seen",
        implies(calls_with(Call.SPAWN), not_(var("aborted"))),
        cite="wave-transport.md §10 property 4, §8 KB1 (an abort during the ping never spawns)",
        doc="Spawn is never called while the signal the pre-check and the re-check read is "
        "set; an abort that arrives later is the back half's (B1).",
    ),
    always(
        "subscribed-before-spawn",
        and_(
            implies(
                calls_with(Call.SPAWN),
                or_(var("subscribed"), eq(out("calls"), (Call.SUBSCRIBE, Call.SPAWN))),
            ),
            implies(eq(var("phase"), SPAWN), var("subscribed")),
        ),
        cite="wave-transport.md §2 F4 (subscribe before spawn), §10 property 4",
        doc="Spawn is called after the subscription, which is live for the whole spawn await "
        "(the completion-before-reply race).",
    ),
    always(
        "unsubscribes-exactly-once",
        and_(
            implies(
                calls_with(Call.UNSUBSCRIBE),
                and_(var("subscribed"), not_(nxt("subscribed")), only_once(Call.UNSUBSCRIBE)),
            ),
            implies(and_(var("subscribed"), not_(nxt("subscribed"))), calls_with(Call.UNSUBSCRIBE)),
            implies(and_(not_(var("subscribed")), nxt("subscribed")), calls_with(Call.SUBSCRIBE)),
            implies(SETTLING, not_(nxt("subscribed"))),
        ),
        cite="wave-transport.md §10 property 5 (unsubscribe exactly once iff subscribed), "
        "§4 table (unsub column)",
        doc="Unsubscribe is called only on a live subscription, once, and every path has "
        "released it by the time it settles.",
    ),
    always(
        "stop-only-on-timeout-or-cancel",
        and_(
            implies(
                and_(calls_with(Call.STOP), not_(REAPING)),
                and_(
                    enters(STOP),
                    is_in(var("phase"), SPAWN, WAIT),
                    is_in(nxt("decided"), TIMER, ABORT),
                    only_once(Call.STOP),
                ),
            ),
            implies(enters(STOP), calls_with(Call.STOP)),
        ),
        cite="wave-transport.md §10 property 6 (stop exactly once iff timeout/cancelled after "
        "spawn), §4 table (stop column)",
        doc="Stop is called exactly on the step that enters the stop phase, from the spawn reply "
        "or the wait, deciding a timeout or a cancel. The phase is entered once: the rank "
        "(below) never rises, and going back would raise it.",
    ),
    always(
        "read-only-on-complete",
        and_(
            implies(
                calls_with(Call.READ),
                and_(
                    enters(READ),
                    is_in(var("phase"), SPAWN, WAIT),
                    eq(nxt("decided"), MATCH),
                    only_once(Call.READ),
                ),
            ),
            implies(enters(READ), calls_with(Call.READ)),
        ),
        cite="wave-transport.md §10 property 7 (readAggregate exactly once on the complete "
        "path, never on timeout/cancel), §4 table (read column)",
        doc="The aggregate is read exactly on the step that enters the read phase, deciding a "
        "match (once, by the rank).",
    ),
    always(
        "acceptance-closes-at-the-decision",
        implies(
            and_(trigger_is("completion"), is_in(var("phase"), STOP, READ, SETTLED)),
            and_(unchanged(*EVERYTHING), NO_OUTPUT),
        ),
        cite="wave-transport.md §10 property 8 (acceptance closes before stop and read; nothing "
        "later changes matched), §8 KB3",
        doc="Once B1 has decided (the stop or read phase) or the run has settled, a completion "
        "changes nothing.",
    ),
    always(
        "foreign-and-duplicate-completions-change-nothing",
        implies(
            trigger_is("completion"),
            or_(
                and_(unchanged(*RUN), NO_OUTPUT),
                and_(eq(var("phase"), WAIT), is_some(nxt("matched"))),
            ),
        ),
        cite="wave-transport.md §10 property 9 (only a match settles), §2 handler "
        "(duplicates, late and foreign ones are dropped)",
        doc="A completion changes what the run does or reports only as the first match of the "
        "wait; during the spawn await it only fills the buffer.",
    ),
    always(
        "first-match-wins",
        and_(
            implies(
                ne(nxt("matched"), var("matched")),
                and_(enters(READ), is_in(var("phase"), SPAWN, WAIT), ne(nxt("matched"), FOREIGN)),
            ),
            implies(
                is_in(var("buffer"), *OWN_KINDS),
                or_(eq(nxt("buffer"), var("buffer")), is_none(nxt("buffer"))),
            ),
            implies(
                and_(
                    trigger_is("spawn_replies"),
                    is_in(var("buffer"), *OWN_KINDS),
                    ne(nxt("matched"), var("matched")),
                ),
                eq(nxt("matched"), var("buffer")),
            ),
        ),
        cite="wave-transport.md §10 property 9 (first match wins), §2 F5 "
        "(`buffered.find(matchesHandle)`), §1 (children from the match)",
        doc="The match is set only on the step into the read phase (once, by the rank), to "
        "one of this run's completions, and never replaced (the receipt's children are its); "
        "the buffer keeps its first match, and the spawn reply takes that one.",
    ),
    always(
        "only-own-completions-match",
        ne(var("matched"), FOREIGN),
        cite="wave-transport.md §2 handler (asyncDir or asyncId defined and equal), "
        "§10 property 9 (only a match settles)",
    ),
    always(
        "buffer-only-while-handle-unknown",
        implies(is_some(var("buffer")), eq(var("phase"), SPAWN)),
        cite="wave-transport.md §10 property 10 (buffer non-empty only while the handle is "
        "unknown; released on settle), §8 KB2",
    ),
    always(
        "value-only-on-the-partial-arm",
        and_(
            implies(
                FAILURE,
                eq(ne(out("value"), Value.NO_VALUE), eq(out("detail"), Detail.NATIVE_PARTIAL)),
            ),
            implies(
                eq(out("detail"), Detail.NATIVE_PARTIAL),
                and_(result_is(Result.RUN_FAILED), is_in(var("matched"), *MARKED)),
            ),
            implies(not_(result_is(Result.OK, *SIX)), eq(out("value"), Value.NO_VALUE)),
        ),
        cite="wave-transport.md §10 property 14 (value absent on every failure but the partial "
        "arm), property 13 (the partial arm only with terminalOutcome, never ok), §4 table "
        "(the partial arm gives [] rather than none)",
    ),
    always(
        "pre-reply-match-beats-abort",
        implies(
            and_(
                trigger_is("spawn_replies"),
                is_in(var("buffer"), *OWN_KINDS),
                is_in(nxt("phase"), WAIT, STOP, READ),
                not_(nxt("anon")),
            ),
            eq(nxt("decided"), MATCH),
        ),
        cite="wave-transport.md §3 B1 (a pre-reply match wins even if aborted), §10 property 12",
    ),
    always(
        "cancellation-stops-releases-and-reraises",
        and_(
            implies(
                and_(trigger_is("cancel"), eq(var("phase"), WAIT)),
                and_(eq(nxt("decided"), ABORT), calls_with(Call.STOP)),
            ),
            implies(
                and_(trigger_is("cancel"), eq(var("phase"), READ)),
                not_(calls_with(Call.STOP)),
            ),
            implies(
                result_is(Result.CANCELLED_ERROR),
                or_(trigger_is("cancel"), var("cancelled")),
            ),
        ),
        cite=f"{DECIDED_CANCEL}: a waiting run is stopped (within the grace), a decided match "
        "is not; CancelledError is re-raised only after a cancel, once released",
    ),
    # ---- liveness, as the contract promises it (api.md KB8 close)
    always(
        "always-settles",
        implies(UNSETTLED, enabled(*RUNNER_TRIGGERS, *TIME_TRIGGERS)),
        cite="wave-transport.md §10 property 1 (every arm resolves) and liveness; "
        "api.md KB8 close (the stop grace, the read deadline)",
        doc="No reachable unsettled state lacks a runner or time step: the environment is "
        "never needed for progress, whatever the adapter does.",
    ),
    always(
        "a-hung-stop-is-abandoned",
        implies(and_(eq(var("phase"), STOP), var("hung")), enabled(*TIME_TRIGGERS)),
        cite="api.md KB8 close (a stop unfinished after WAVE_STOP_GRACE_MS is abandoned); "
        "wave-transport.md §8 KB8(c)",
        doc="A stop that never returns still leaves a deadline that settles the run.",
    ),
    always(
        "rank-stays-within-its-bound",
        and_(ge(rank(), 1), le(rank(), RANK_BOUND)),
        cite="wave-transport.md §10 liveness (settles within a bounded number of steps)",
        doc=f"The rank starts at {RANK_BOUND} and stays in 1..{RANK_BOUND}.",
    ),
    always(
        "runner-and-time-steps-lower-the-rank",
        implies(
            and_(group_is(RUNNER, TIME), UNSETTLED, not_(row_is(*PASSIVE))),
            lt(rank("post"), rank()),
        ),
        cite="wave-transport.md §10 liveness (after spawn, result settles within timeoutMs)",
        doc=f"With the bound: at most {RANK_BOUND - 1} runner or time steps before settling.",
    ),
    always(
        "runner-alone-before-spawn",
        and_(
            implies(
                and_(is_in(var("phase"), RECHECK, SUBSCRIBE), not_(group_is(RUNNER))),
                and_(unchanged(*EVERYTHING), NO_OUTPUT),
            ),
            implies(and_(eq(var("phase"), PRECHECK), ne(nxt("phase"), PRECHECK)), group_is(RUNNER)),
            implies(
                var("unsub_raises"), not_(is_in(var("phase"), PRECHECK, PING, RECHECK, SUBSCRIBE))
            ),
        ),
        cite="wave-transport.md §2 F1-F5 (startWaveScript runs F1's abort check, and after the "
        "ping reply F3's re-check and F4's onComplete, as its own synchronous steps: nothing "
        "is awaited before spawn; `onComplete(handler)` returns the unsubscribe)",
        doc="The runner's own steps before spawn: only a runner step (the launch) leaves the "
        "pre-check; in the re-check and subscribe phases an environment or time step changes "
        "nothing and emits nothing; and no run holds a raising unsubscribe before it has "
        "subscribed.",
    ),
    always(
        "environment-never-raises-the-rank",
        implies(group_is(ENV), le(rank("post"), rank())),
        cite="wave-transport.md §10 liveness (whatever the adapter and the caller do)",
    ),
    always(
        "the-winner-is-the-event-that-fired",
        implies(
            and_(eq(var("decided"), UNDECIDED), ne(nxt("decided"), UNDECIDED)),
            and_(
                implies(eq(nxt("decided"), TIMER), trigger_is("deadline")),
                implies(
                    eq(nxt("decided"), ABORT), or_(trigger_is("abort", "cancel"), var("aborted"))
                ),
                implies(eq(nxt("decided"), MATCH), trigger_is("completion", "spawn_replies")),
            ),
        ),
        cite="wave-transport.md §3 B1 (the timer → timeout, the abort listener or the "
        "synchronous `aborted` check → cancelled, notifyMatch → complete; the first to fire wins)",
        doc="B1's winner names the event that decided it: a timeout only when the deadline "
        "passes, a cancel only on an abort (or one already signalled), a match only when a "
        "completion arrives or was buffered before the spawn reply. `decided` is written by "
        "the deciding rows; the property judges it by the trigger, which no row writes.",
    ),
    always(
        "the-reason-names-the-decider",
        implies(
            and_(UNSETTLED, eq(nxt("phase"), SETTLED), not_(var("cancelled"))),
            and_(
                implies(TIMED, eq(out("result"), Result.TIMEOUT)),
                implies(eq(var("decided"), ABORT), eq(out("result"), Result.CANCELLED)),
                implies(
                    eq(var("decided"), MATCH),
                    is_in(
                        out("result"),
                        Result.OK,
                        Result.RUN_FAILED,
                        Result.AGGREGATE_UNREADABLE,
                        Result.CANCELLED_ERROR,
                    ),
                ),
            ),
        ),
        cite="wave-transport.md §3 B1-B3 (timer → timeout, abort → cancelled, a match → the "
        "read's ok, run-failed or aggregate-unreadable); issue 3 cancellation decision",
        doc="The reason a wave settles with names the event that decided it. It reads "
        "`decided` before the settling step (settling only resets it), which "
        "the-winner-is-the-event-that-fired judges by the trigger that set it.",
    ),
    always(
        "an-abort-is-heard-while-listening",
        implies(
            and_(trigger_is("abort"), is_in(var("phase"), PRECHECK, PING, SPAWN, WAIT)),
            or_(nxt("aborted"), eq(nxt("decided"), ABORT)),
        ),
        cite="wave-transport.md §2 (F1, F3 and B1 read the signal), §3 B1 (the `once` abort "
        "listener → cancelled)",
        doc="An abort before the wait is kept in the signal for the next check to read; "
        "during the wait it decides the outcome at once. It judges the abort rows by their "
        "trigger, which no row writes.",
    ),
    always(
        "a-cancel-is-never-lost",
        implies(
            and_(trigger_is("cancel"), is_in(var("phase"), PING, SPAWN, WAIT, STOP, READ)),
            or_(
                and_(not_(var("cancelled")), nxt("cancelled")),
                eq(out("result"), Result.CANCELLED_ERROR),
            ),
        ),
        cite=f"{DECIDED_CANCEL}; asyncio's convention (a cancelled task re-raises CancelledError)",
        doc="A cancel of a running wave either settles it at once by re-raising, or (while "
        "it stops within the grace) is remembered so that the settling step re-raises; a "
        "second cancel abandons the stop. It judges the cancel rows by their trigger.",
    ),
    always(
        "a-cancelled-wave-re-raises",
        implies(
            and_(var("cancelled"), ne(var("phase"), SETTLED), eq(nxt("phase"), SETTLED)),
            eq(out("result"), Result.CANCELLED_ERROR),
        ),
        cite=f"{DECIDED_CANCEL}",
        doc="Once cancelled, the wave settles only by re-raising CancelledError, whichever "
        "step settles it (the stop's reply, the grace deadline or a second cancel). The "
        "`cancelled` flag it reads is kept honest by a-cancel-is-never-lost, which judges "
        "the rows that set it by their trigger.",
    ),
    always(
        "a-settled-wave-holds-nothing",
        implies(
            SETTLED_NOW,
            and_(
                not_(var("aborted")),
                not_(var("subscribed")),
                not_(var("unsub_raises")),
                is_none(var("buffer")),
                eq(var("decided"), UNDECIDED),
                not_(var("cancelled")),
                not_(var("hung")),
            ),
        ),
        cite="wave-transport.md §3 (settle's `finally` sets accepting=false, unsubscribes, "
        "clears state), §10 property 10 (all released on settle), 11 (timer and listener "
        "cleared on settle)",
        doc="Once a wave has settled it holds no subscription, no buffered completion, no "
        "pending decision, abort flag or hung call: only the match it settled with stays. "
        "It reads state that the settling rows write, so it is kept honest from outside: the "
        "mutant gate checks that dropping any one of those releases breaks it.",
    ),
    always(
        "the-abort-is-seen-only-until-the-decision",
        implies(ne(var("decided"), UNDECIDED), not_(var("aborted"))),
        cite="wave-transport.md §4 B1 (the first source to fire wins and closes acceptance: "
        "an abort after it is no source); §3 (settle clears the abort listener)",
        doc="Once B1 has decided, no abort is held: the runner reads the signal only while "
        "undecided. `aborted` is written by the abort and decision rows; this reads it at "
        "every state, so a decision row that kept or set it is caught wherever it fires.",
    ),
    always(
        "never-waits-on-a-non-handle",
        not_(var("anon")),
        cite="api.md `spawn -> WaveRunHandle`; impl/waves.py docstring (a spawn answer that is "
        "not a WaveRunHandle is spawn-failed); issue 8 §2 (the seed-vs-impl decisions)",
        doc="The fixed runner never waits for a completion with a spawn answer that is no "
        "handle (the seed does: transport.ts F5, so wave:seed violates this).",
    ),
    always(
        "never-buffers-a-null-completion",
        not_(var("nulls")),
        cite="api.md `handler: Callable[[WaveCompletion], None]`; impl/waves.py docstring (a "
        "completion that is not a WaveCompletion is ignored)",
        doc="The fixed runner's buffer holds only completions (the seed buffers a null one: "
        "transport.ts F4, so wave:seed violates this).",
    ),
)

# ---------------------------------------------------------------- variants

_BY_NAME = {r.name: r for r in ROWS}
_SEED_CANCEL = "JS has no task cancellation: the seed's `result` cannot be cancelled"
# The seed's rows that release through an unsubscribe that may throw (KB8b).
_SEED_RELEASES = (
    "spawn_raises_spawn_failed",
    "stop_returns",
    "stop_raises_into_the_detail",
    "read_complete_ok",
    "read_complete_ok_without_value",
    "read_native_partial_durable_array",
    "read_native_partial_retained",
    "read_run_failed",
    "read_raises_unreadable",
)
_UNSUB_OK = not_(var("unsub_raises"))
_UNSUB_THROWS = var("unsub_raises")
_MASKS = "transport.ts settle `finally { unsubscribe() }` rejects `result`; §8 KB8(b)"


def _rejects(name: str, trigger: str, source: Phase, guard: Expr, cite: str) -> Row:
    """The seed: an exception escapes `startWaveScript` or `result` (after the unsubscribe)."""
    return settling(name, trigger, source, Result.REJECTED, guard=guard, release=True, cite=cite)


# The seed's F5 `buffered.find(matchesHandle)` throws on a buffered null: with a handle, when
# the null comes before the first match; with a non-null non-handle, on any null (nothing
# matches, so find reads every entry); with null, never (`handle !== null` is checked first).
_FIND_THROWS = or_(
    and_(HANDLE_ANSWER, eq(var("buffer"), NULL_COMPLETION)),
    and_(eq(param("answer"), SpawnAnswer.MALFORMED), var("nulls")),
)
_NO_HANDLE_WAITS = and_(NO_HANDLE_ANSWER, not_(_FIND_THROWS))
# The seed's marker is `matched.terminalOutcome !== undefined`: a malformed one counts, and a
# null one counts and then throws reading `.reason`.
_SEED_MARKED = is_in(var("matched"), *MARKED, OWN_BAD_OUTCOME)
_SEED_NO_HANDLE = "transport.ts F5 `handle = await adapter.spawn(...)` (not checked); §8 (a spawn "
_SEED_NO_HANDLE += "resolving to no handle waits for its timeout, then stop(null))"


SEED = Variant(
    "seed",
    doc="transport.ts exactly as written: on_complete raising rejects the start, an "
    "unsubscribe that raises rejects the start or the result, a malformed aggregate throws "
    "inside settle, and neither the stop nor the read is bounded. JS has no task cancellation.",
    cite="seeds/transport.ts; wave-transport.md §8 KB8 (open in the seed)",
    violates=(
        "never-throws",
        "a-raising-unsubscribe-is-swallowed",
        "a-hung-stop-is-abandoned",
        "always-settles",
        "eventually-settles",
        "value-only-on-the-partial-arm",
        "never-waits-on-a-non-handle",
        "never-buffers-a-null-completion",
    ),
    replace={
        **{
            name: replace(_BY_NAME[name], guard=and_(_BY_NAME[name].guard, _UNSUB_OK))
            for name in _SEED_RELEASES
        },
        "read_native_partial_durable_array": run_failed(
            "seed_read_partial_durable_array",
            and_(FAILED_OR_PARTIAL, _SEED_MARKED, eq(param("value"), AggValue.ARRAY), _UNSUB_OK),
            Detail.NATIVE_PARTIAL,
            Value.ARRAY,
            "transport.ts B4 `matched?.terminalOutcome !== undefined` (any value but undefined)",
        ),
        "read_native_partial_retained": run_failed(
            "seed_read_partial_retained",
            and_(FAILED_OR_PARTIAL, _SEED_MARKED, ne(param("value"), AggValue.ARRAY), _UNSUB_OK),
            Detail.NATIVE_PARTIAL,
            ite(is_in(var("matched"), *RETAINING), Value.RETAINED, Value.EMPTY),
            "transport.ts B4 partial arm, `retainedEntries ?? []`; a malformed marker's "
            "reason prints as `undefined`",
        ),
        "read_run_failed": run_failed(
            "seed_read_run_failed",
            and_(
                or_(
                    eq(param("state"), AggState.OTHER),
                    and_(
                        FAILED_OR_PARTIAL,
                        not_(_SEED_MARKED),
                        ne(var("matched"), OWN_NULL_OUTCOME),
                    ),
                ),
                _UNSUB_OK,
            ),
            Detail.RUN_ENDED,
            Value.NO_VALUE,
            'transport.ts B4 `state !== "complete"` without a terminalOutcome',
        ),
        "ping_malformed_unavailable": row(
            "seed_ping_any_non_null_passes",
            "ping_replies",
            PING,
            RECHECK,
            guard=eq(param("answer"), PingAnswer.MALFORMED),
            cite="transport.ts F2 `if (ping === null)`: any other answer is taken as a WavePing",
        ),
        "spawn_not_a_handle_spawn_failed": row(
            "seed_spawn_no_handle_waits",
            "spawn_replies",
            SPAWN,
            WAIT,
            guard=and_(_NO_HANDLE_WAITS, not_(var("aborted"))),
            sets={"anon": True, "buffer": None, "nulls": False},
            cite=_SEED_NO_HANDLE,
        ),
        "null_completion_ignored": row(
            "seed_null_completion_buffered",
            "completion",
            SPAWN,
            guard=eq(param("of"), NULL_COMPLETION),
            sets={
                "buffer": ite(NO_MATCH_BUFFERED, some(NULL_COMPLETION), var("buffer")),
                "nulls": True,
            },
            cite="transport.ts F4 handler `buffered.push(completion)` (not checked)",
        ),
        "completion_matches": replace(
            _BY_NAME["completion_matches"],
            guard=and_(OWN_COMPLETION, not_(var("anon"))),
        ),
        "ping_deadline_unavailable": ignore(
            "seed_ping_has_no_deadline",
            "deadline",
            PING,
            cite="transport.ts F2 `await adapter.ping()`, unbounded; §8 (a ping that never "
            "resolves hangs; abort cannot interrupt it)",
        ),
        "spawn_deadline_spawn_failed": ignore(
            "seed_spawn_has_no_deadline",
            "deadline",
            SPAWN,
            cite="transport.ts F5 `await adapter.spawn(...)`, unbounded; §8 (same family)",
        ),
        "subscribe_raises_unavailable": settling(
            "subscribe_raises_rejects_start",
            "subscribe",
            SUBSCRIBE,
            Result.REJECTED,
            guard=eq(param("answer"), SubscribeAnswer.RAISES),
            calls=(Call.SUBSCRIBE,),
            cite="transport.ts F4 (no try around onComplete); wave-transport.md §8 KB8(a)",
        ),
        "read_malformed_unreadable": _rejects(
            "read_malformed_throws_in_settle",
            "read_fails",
            READ,
            and_(NOT_HUNG, eq(param("how"), ReadFailure.MALFORMED)),
            "wave-transport.md §8 (a malformed answer throws inside settle, which has no catch)",
        ),
        "grace_abandons_stop": ignore(
            "seed_stop_has_no_grace",
            "deadline",
            STOP,
            guard=not_(var("cancelled")),
            cite="transport.ts B2 `await adapter.stop(spawned)`, unbounded; §8 KB8(c)",
        ),
        "grace_abandons_stop_then_reraises": ignore(
            "seed_stop_has_no_grace_when_cancelled",
            "deadline",
            STOP,
            guard=var("cancelled"),
            cite=_SEED_CANCEL,
        ),
        "read_deadline_unreadable": ignore(
            "seed_read_has_no_deadline",
            "deadline",
            READ,
            cite="transport.ts B3 `await adapter.readAggregate(spawned)`, unbounded; §8",
        ),
        **{
            name: ignore(
                f"seed_{name}",
                "cancel",
                _BY_NAME[name].source,
                guard=_BY_NAME[name].guard,
                cite=_SEED_CANCEL,
            )
            for name in (
                "cancel_during_ping",
                "cancel_during_spawn",
                "cancel_while_waiting",
                "cancel_during_stop",
                "cancel_again_abandons_stop",
                "cancel_during_read",
            )
        },
    },
    remove=(
        "ping_deadline_after_abort",
        "spawn_deadline_after_abort",
        "late_spawn_reply_stopped",
        "late_spawn_reply_without_a_run",
        "late_spawn_abandoned",
    ),
    add=(
        _rejects(
            "spawn_failure_unsubscribe_throws",
            "spawn_replies",
            SPAWN,
            and_(or_(eq(param("answer"), SpawnAnswer.RAISES), _FIND_THROWS), _UNSUB_THROWS),
            "transport.ts F5 catch `unsubscribe()` (no try): startWaveScript rejects; §8 KB8(b)",
        ),
        settling(
            "seed_spawn_reply_throws_on_a_buffered_null",
            "spawn_replies",
            SPAWN,
            Result.SPAWN_FAILED,
            guard=and_(_FIND_THROWS, _UNSUB_OK),
            receipt=R.R_SPAWN_FAILED,
            detail=Detail.SPAWN_FAILED,
            release=True,
            cite="transport.ts F5 `buffered.find(matchesHandle)` reads `null.asyncDir` inside "
            "the try: spawn-failed, and the spawned run is never stopped",
        ),
        deciding(
            "seed_spawn_no_handle_sees_abort",
            "spawn_replies",
            SPAWN,
            ABORT,
            guard=and_(_NO_HANDLE_WAITS, var("aborted")),
            sets={"anon": True, "nulls": False},
            cite=f"{_SEED_NO_HANDLE}; B1 sees the abort, B2 `stop(null)`",
        ),
        ignore(
            "seed_no_handle_matches_nothing",
            "completion",
            WAIT,
            guard=and_(OWN_COMPLETION, var("anon")),
            cite="transport.ts `matchesHandle` (`handle !== null`, then the ids of a non-handle "
            "are undefined): nothing matches, the wave waits for its timeout",
        ),
        ignore(
            "seed_null_completion_throws_in_the_handler",
            "completion",
            WAIT,
            guard=eq(param("of"), NULL_COMPLETION),
            cite="transport.ts F4 handler `matchesHandle(null)` throws into the adapter's emit "
            "(or, with no handle, buffers it); the runner is unchanged",
        ),
        _rejects(
            "seed_null_terminal_outcome_throws_in_settle",
            "read_replies",
            READ,
            and_(
                NOT_HUNG,
                FAILED_OR_PARTIAL,
                eq(var("matched"), OWN_NULL_OUTCOME),
                _UNSUB_OK,
            ),
            "transport.ts B4 `matched.terminalOutcome.reason` on null; settle has no catch (§8)",
        ),
        _rejects(
            "stop_path_unsubscribe_throws",
            "stop_replies",
            STOP,
            and_(NOT_HUNG, not_(var("cancelled")), _UNSUB_THROWS),
            _MASKS,
        ),
        _rejects(
            "read_path_unsubscribe_throws",
            "read_replies",
            READ,
            and_(NOT_HUNG, _UNSUB_THROWS),
            _MASKS,
        ),
        _rejects(
            "unreadable_path_unsubscribe_throws",
            "read_fails",
            READ,
            and_(NOT_HUNG, eq(param("how"), ReadFailure.RAISES), _UNSUB_THROWS),
            _MASKS,
        ),
    ),
)

H1_NO_ABORT_RECHECK = Variant(
    "h1-no-abort-recheck",
    doc="H0–H1: the abort is checked only before the ping, so an abort during the ping still "
    "subscribes, spawns, and then cancels with a stop.",
    cite="wave-transport.md §7 H1, §8 KB1 (fixed in H2)",
    violates=("no-spawn-after-abort-seen",),
    remove=("recheck_refuses_aborted",),
    replace={
        "recheck_passes": row(
            "h1_no_recheck",
            "recheck",
            RECHECK,
            SUBSCRIBE,
            cite="reportWave.ts@0a5f1f22 (H1): one abort check, before the ping",
        )
    },
)


def _keeps_buffer(name: str) -> Row:
    """An H4 spawn-reply row: the buffer is never cleared."""
    r = _BY_NAME[name]
    kept = {k: v for k, v in r.updates.items() if k != "buffer"}
    return replace(r, name=f"h4_{name}", updates=MappingProxyType(kept))


_KEPT = ite(is_none(var("buffer")), some(FOREIGN), var("buffer"))
H4_BUFFER_EVERYTHING = Variant(
    "h4-buffer-everything",
    doc="H0–H4: the handler appends every completion (foreign, duplicate, late) for the "
    "wave's life, the buffer is not cleared at the reply and the match is computed lazily; "
    "acceptance never closes, so completions are still taken while stopping or reading.",
    cite="wave-transport.md §7 H4 (transport.ts@5dd1cc2a), §8 KB2, KB3 (fixed in H5)",
    violates=("buffer-only-while-handle-unknown",),
    replace={
        **{
            name: _keeps_buffer(name)
            for name in (
                "spawn_reply_takes_buffered_match",
                "spawn_reply_sees_abort",
                "spawn_reply_arms_wait",
            )
        },
        "foreign_completion_dropped": row(
            "h4_foreign_completion_kept",
            "completion",
            WAIT,
            guard=eq(param("of"), FOREIGN),
            sets={"buffer": _KEPT},
            cite="H4 handler: `buffered.push(completion)` for every completion (KB2)",
        ),
        "completion_matches": row(
            "h4_completion_kept_and_matched",
            "completion",
            WAIT,
            READ,
            guard=OWN_COMPLETION,
            sets={
                "buffer": ite(NO_MATCH_BUFFERED, some(param("of")), var("buffer")),
                "matched": some(param("of")),
                "decided": MATCH,
                "aborted": False,
            },
            emits={"calls": (Call.READ,)},
            cite="H4 handler: push, then the lazy match (KB2)",
        ),
        "completion_unheard": ignore(
            "h4_completion_unheard",
            "completion",
            (PRECHECK, PING, RECHECK, SUBSCRIBE, SETTLED),
            cite="H4: no handler before the subscribe, none after settling",
        ),
    },
    add=(
        row(
            "h4_completion_kept_while_stopping_or_reading",
            "completion",
            (STOP, READ),
            sets={"buffer": _KEPT},
            cite="H4: no `accepting`, completions are still taken during stop and read (KB3)",
        ),
    ),
)

# Liveness under fairness (issue 17): the runner's own steps are code that waits on nothing
# and the clock always advances, so both are weakly fair; the adapter gets no fairness, so a
# ping, stop or read may never be answered. The rank above stays: it adds the bound.
FAIRNESS = weak(RUNNER, TIME)
LIVENESS = (
    eventually(
        "eventually-settles",
        SETTLED_NOW,
        cite="wave-transport.md §10 property 1 (every arm resolves); api.md KB8 close "
        "(the stop grace, the read deadline): the runner never rejects, always settles",
        doc="Every fair run settles, whatever the adapter does (it may never answer).",
    ),
    eventually(
        "eventually-stops-watching",
        and_(SETTLED_NOW, not_(REAPING)),
        cite="impl/waves.py docstring (the late-spawn watch ends at the effective timeout); "
        "wave-transport.md §10 property 1",
        doc="Every fair run ends: settled, and no longer watching for a late spawn reply.",
    ),
)

SPEC = Spec(
    name="wave",
    source="seeds/transport.ts startWaveScript/runWaveScript (wave-transport.md, api.md)",
    doc=__doc__ or "",
    control="phase",
    vars=VARS,
    triggers=TRIGGERS,
    outputs=OUTPUTS,
    rows=ROWS,
    properties=PROPERTIES,
    liveness=LIVENESS,
    fairness=FAIRNESS,
    terminal=and_(SETTLED_NOW, not_(REAPING)),
    variants=(SEED, H1_NO_ABORT_RECHECK, H4_BUFFER_EVERYTHING),
    layout=Layout(
        meanings={
            RUNNER: "the runner's own step (with the adapter's answer)",
            ENV: "the environment: abort, completion, cancel, hang",
            TIME: "time: the next deadline passes",
        },
        clusters=(
            ("front half (F1-F5)", (PRECHECK, PING, RECHECK, SUBSCRIBE, SPAWN)),
            ("back half (B1-B5)", (WAIT, STOP, READ)),
        ),
        arms=("result", SETTLED),
        edge_outputs=("calls",),
        footnotes=True,
        rankdir="TB",
        split=("front", "back"),
    ),
)

SPECS = (SPEC,)
