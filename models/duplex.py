"""ADR-068 D1: the daemon-side conversation-floor machine (seed `duplex.rs`).

One spec covers both payload kinds: `payload` is chosen at the start and never
changes, so every property can say "under AUDIO" or "under TEXT". The ERL is a
real, so "an impulse carries the last ERL" is proved for every value; the
explorer tries the sample below. Rows cite the ADR's transition table
(docs/duplex-d1.md §3, rows 1–13) and the seed's match arms; the explicit
ignore rows are the seed's silent no-ops (§4, §5.14), so totality is checked
rather than assumed (§5.16).
"""

from __future__ import annotations

import enum
import itertools
from typing import NamedTuple

from models.kernel import AnyOf
from models.kernel import Expr
from models.kernel import Finite
from models.kernel import Option
from models.kernel import Output
from models.kernel import Param
from models.kernel import Real
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import Variant
from models.kernel import always
from models.kernel import and_
from models.kernel import eq
from models.kernel import group_is
from models.kernel import ignore
from models.kernel import implies
from models.kernel import is_in
from models.kernel import is_none
from models.kernel import is_some
from models.kernel import leads_to
from models.kernel import ne
from models.kernel import never
from models.kernel import nxt
from models.kernel import or_
from models.kernel import others
from models.kernel import out
from models.kernel import param
from models.kernel import row
from models.kernel import some
from models.kernel import sometimes
from models.kernel import trigger_is
from models.kernel import var
from models.kernel import weak
from models.kernel.layout import Layout


class State(enum.Enum):
    IDLE = "Idle"
    LISTENING = "Listening"
    THINKING = "Thinking"
    SPEAKING = "Speaking"
    OVERLAP = "Overlap"
    BACKCHANNEL = "Backchannel"
    DEGRADED = "Degraded"


class Payload(enum.Enum):
    AUDIO = "Audio"
    TEXT = "Text"


class Impulse(enum.Enum):
    """Every impulse type on the wire, so "only TurnClaim and EOU" is a real check."""

    BELIEF_UPDATE = 0x01
    COHERENCE_ALERT = 0x02
    NOVELTY_DETECTED = 0x03
    EDGE_CONFIRMED = 0x04
    EMBEDDING_REFINED = 0x05
    TURN_CLAIM = 0x50
    END_OF_UTTERANCE = 0x51
    TURN_SHIFT = 0x52
    BACKCHANNEL = 0x60


class Command(enum.Enum):
    PLAY = "Play"
    MUTE = "Mute"
    SILENCE = "Silence"
    RESUME = "Resume"
    CANCEL = "Cancel"
    CONFIG = "Config"


IDLE, LISTENING, THINKING, SPEAKING, OVERLAP, BACKCHANNEL, DEGRADED = State
AUDIO, TEXT = Payload
MUTE_CANCEL = (Command.MUTE, Command.CANCEL)
RESUME = (Command.RESUME,)
NO_COMMANDS: tuple[Command, ...] = ()

# Every command list of up to two commands, so the order [Mute, Cancel] is checked, not assumed.
COMMANDS = Finite.of_sequences(
    "Commands",
    Command,
    2,
    [(), *((c,) for c in Command), *itertools.product(Command, repeat=2)],
)
ERL = Real(samples=(0.25, 0.75))  # below and above floor.rs's 0.50 barge floor

OBSERVE = "observe"
APPLY = "apply"


def claim(kind: Impulse) -> dict[str, object]:
    """An impulse of `kind` carrying the ERL held when it is emitted (duplex.rs `turn_claim`)."""
    return {"impulse": some(kind), "impulse_erl": var("last_erl")}


ROWS = (
    # ---- observe(Erl): a scalar refresh in every state, Degraded included (d1 §4)
    row(
        "erl_update",
        "erl",
        None,
        sets={"last_erl": some(param("value"))},
        cite="duplex.rs observe Erl(v) arm; duplex-d1 §4",
    ),
    # ---- observe(VadOnset)
    row(
        "onset_claims_idle",
        "vad_onset",
        IDLE,
        LISTENING,
        emits=claim(Impulse.TURN_CLAIM),
        cite="ADR-068 D1 row 1",
    ),
    row(
        "onset_enters_overlap",
        "vad_onset",
        SPEAKING,
        OVERLAP,
        guard=eq(var("payload"), AUDIO),
        emits=claim(Impulse.TURN_CLAIM),
        cite="ADR-068 D1 row 7; duplex-d1 §5.1 (no ERL gate)",
    ),
    row(
        "onset_in_text_speaking",
        "vad_onset",
        SPEAKING,
        guard=eq(var("payload"), TEXT),
        emits=claim(Impulse.TURN_CLAIM),
        cite="duplex.rs VadOnset `_` arm; duplex-d1 §5.15 (D6)",
    ),
    row(
        "onset_floor_pressure",
        "vad_onset",
        (LISTENING, THINKING, OVERLAP, BACKCHANNEL),
        emits=claim(Impulse.TURN_CLAIM),
        cite="duplex.rs VadOnset `_` arm; duplex-d1 §5.12",
    ),
    ignore(
        "onset_ignored_degraded",
        "vad_onset",
        DEGRADED,
        cite="duplex.rs VadOnset Degraded arm (no link, no stream)",
    ),
    # ---- observe(SmartTurnEou)
    row(
        "eou_ends_utterance",
        "smart_turn_eou",
        LISTENING,
        THINKING,
        emits=claim(Impulse.END_OF_UTTERANCE),
        cite="ADR-068 D1 row 2",
    ),
    ignore(
        "eou_ignored", "smart_turn_eou", others(LISTENING), cite="duplex.rs SmartTurnEou `_` arm"
    ),
    # ---- observe(PlaybackDrained)
    row("drain_ends_turn", "playback_drained", SPEAKING, IDLE, cite="ADR-068 D1 row 5"),
    row(
        "drain_leaves_overlap_or_backchannel",
        "playback_drained",
        (OVERLAP, BACKCHANNEL),
        IDLE,
        cite="duplex.rs PlaybackDrained arm; duplex-d1 §5.5",
    ),
    ignore(
        "drain_ignored",
        "playback_drained",
        others(SPEAKING, OVERLAP, BACKCHANNEL),
        cite="duplex.rs PlaybackDrained `_` arm",
    ),
    # ---- observe(VadOffset)
    row(
        "offset_ends_backchannel",
        "vad_offset",
        BACKCHANNEL,
        SPEAKING,
        cite="ADR-068 D1 row 11; duplex-d1 §5.7",
    ),
    ignore("offset_ignored", "vad_offset", others(BACKCHANNEL), cite="duplex.rs VadOffset `_` arm"),
    # ---- observe(HeartbeatLost): any state, Degraded itself included (d1 §5.9)
    row(
        "heartbeat_lost_degrades",
        "heartbeat_lost",
        None,
        DEGRADED,
        cite="ADR-068 D1 row 12; duplex-d1 §5.9",
    ),
    # ---- observe(LinkRestored)
    row(
        "link_restored_resets",
        "link_restored",
        DEGRADED,
        IDLE,
        sets={"last_erl": None},
        cite="ADR-068 D1 row 13; duplex-d1 §5.8",
    ),
    ignore(
        "link_restored_ignored",
        "link_restored",
        others(DEGRADED),
        cite="duplex.rs LinkRestored `_` arm",
    ),
    # ---- apply(GrantUser)
    row(
        "grant_user_takes_floor",
        "grant_user",
        OVERLAP,
        LISTENING,
        emits={"commands": MUTE_CANCEL},
        cite="ADR-068 D1 row 8; duplex-d1 §5.3 (order [Mute, Cancel])",
    ),
    ignore(
        "grant_user_ignored",
        "grant_user",
        others(OVERLAP),
        cite="duplex.rs GrantUser `_` arm; duplex-d1 §5.14",
    ),
    # ---- apply(DenyBarge)
    row(
        "deny_barge_resumes",
        "deny_barge",
        OVERLAP,
        SPEAKING,
        emits={"commands": RESUME},
        cite="ADR-068 D1 row 9; duplex-d1 §5.4",
    ),
    ignore(
        "deny_barge_ignored",
        "deny_barge",
        others(OVERLAP),
        cite="duplex.rs DenyBarge `_` arm; duplex-d1 §5.14",
    ),
    # ---- apply(GrantAgent)
    row(
        "grant_agent_speaks",
        "grant_agent",
        THINKING,
        SPEAKING,
        cite="ADR-068 D1 row 3; duplex-d1 §5.10",
    ),
    row(
        "grant_agent_supersedes",
        "grant_agent",
        SPEAKING,
        SPEAKING,
        cite="ADR-068 D1 row 6; duplex-d1 §5.10",
    ),
    ignore(
        "grant_agent_ignored",
        "grant_agent",
        others(THINKING, SPEAKING),
        cite="duplex.rs GrantAgent `_` arm; duplex-d1 §5.14",
    ),
    # ---- apply(Backchannel)
    row(
        "backchannel_continues",
        "backchannel",
        SPEAKING,
        BACKCHANNEL,
        guard=eq(var("payload"), AUDIO),
        cite="ADR-068 D1 row 10; duplex-d1 §5.6",
    ),
    ignore(
        "backchannel_inert_in_text",
        "backchannel",
        SPEAKING,
        guard=eq(var("payload"), TEXT),
        cite="duplex.rs Backchannel text arm; duplex-d1 §5.15 (D6)",
    ),
    ignore(
        "backchannel_ignored",
        "backchannel",
        others(SPEAKING),
        cite="duplex.rs Backchannel `_` arm; duplex-d1 §5.14",
    ),
    # ---- apply(TurnShift)
    row("turn_shift_resumes_user", "turn_shift", THINKING, LISTENING, cite="ADR-068 D1 row 4"),
    ignore(
        "turn_shift_ignored",
        "turn_shift",
        others(THINKING),
        cite="duplex.rs TurnShift `_` arm; duplex-d1 §5.14",
    ),
)

# duplex.rs `enum FloorVerdict` and `enum StreamObservation`, variant by variant.
FLOOR_VERDICTS = ("grant_user", "grant_agent", "deny_barge", "backchannel", "turn_shift")
STREAM_OBSERVATIONS = (
    "vad_onset",
    "vad_offset",
    "smart_turn_eou",
    "playback_drained",
    "erl",
    "heartbeat_lost",
    "link_restored",
)

TRIGGERS = (
    Trigger("vad_onset", group=OBSERVE, doc="observe(VadOnset())"),
    Trigger("vad_offset", group=OBSERVE, doc="observe(VadOffset())"),
    Trigger("smart_turn_eou", group=OBSERVE, doc="observe(SmartTurnEou())"),
    Trigger("playback_drained", group=OBSERVE, doc="observe(PlaybackDrained())"),
    Trigger("erl", (Param("value", ERL),), group=OBSERVE, doc="observe(Erl(value))"),
    Trigger("heartbeat_lost", group=OBSERVE, doc="observe(HeartbeatLost())"),
    Trigger("link_restored", group=OBSERVE, doc="observe(LinkRestored())"),
    Trigger("grant_user", group=APPLY, doc="apply(GRANT_USER)"),
    Trigger("grant_agent", group=APPLY, doc="apply(GRANT_AGENT)"),
    Trigger("deny_barge", group=APPLY, doc="apply(DENY_BARGE)"),
    Trigger("backchannel", group=APPLY, doc="apply(BACKCHANNEL)"),
    Trigger("turn_shift", group=APPLY, doc="apply(TURN_SHIFT)"),
)


def _moves(*pairs: tuple[State, State]) -> Expr:
    return or_(*(and_(eq(var("state"), a), eq(nxt("state"), b)) for a, b in pairs))


class D1Row(NamedTuple):
    """One row of the ADR's transition table, as duplex-d1 §3 and §4 resolve it."""

    sources: tuple[State, ...]
    event: str
    to: State
    audio_only: bool = False


# ADR-068 D1's 13 rows, from the doc's table (duplex-d1 §3), not from ROWS: row 5 also drains
# Overlap and Backchannel (§5.5), row 12 includes Degraded itself (§5.9, a self-loop, so no move).
D1_ROWS = (
    D1Row((IDLE,), "vad_onset", LISTENING),  # 1
    D1Row((LISTENING,), "smart_turn_eou", THINKING),  # 2
    D1Row((THINKING,), "grant_agent", SPEAKING),  # 3
    D1Row((THINKING,), "turn_shift", LISTENING),  # 4
    D1Row((SPEAKING, OVERLAP, BACKCHANNEL), "playback_drained", IDLE),  # 5
    D1Row((SPEAKING,), "grant_agent", SPEAKING),  # 6
    D1Row((SPEAKING,), "vad_onset", OVERLAP, audio_only=True),  # 7
    D1Row((OVERLAP,), "grant_user", LISTENING),  # 8
    D1Row((OVERLAP,), "deny_barge", SPEAKING),  # 9
    D1Row((SPEAKING,), "backchannel", BACKCHANNEL, audio_only=True),  # 10
    D1Row((BACKCHANNEL,), "vad_offset", SPEAKING),  # 11
    D1Row(tuple(State), "heartbeat_lost", DEGRADED),  # 12
    D1Row((DEGRADED,), "link_restored", IDLE),  # 13
)


def _d1_event(r: D1Row) -> Expr:
    parts = [is_in(var("state"), *r.sources), trigger_is(r.event)]
    if r.audio_only:
        parts.append(eq(var("payload"), AUDIO))
    return and_(*parts)


def _d1_row(r: D1Row) -> Expr:
    return and_(_d1_event(r), eq(nxt("state"), r.to))


TEXT_STATES = (IDLE, LISTENING, THINKING, SPEAKING, DEGRADED)
silent = and_(eq(out("commands"), NO_COMMANDS), is_none(out("impulse")))


def _at(payload: Payload, state: State) -> Expr:
    """The channel in `state`, carrying `payload`."""
    return and_(eq(var("payload"), payload), eq(var("state"), state))


PROPERTIES = (
    *(
        sometimes(
            f"reach-{s.name.lower()}-audio",
            _at(AUDIO, s),
            cite="duplex-d1 §2 states table (all seven reachable in Audio)",
        )
        for s in State
    ),
    *(
        sometimes(
            f"reach-{s.name.lower()}-text",
            _at(TEXT, s),
            cite="duplex-d1 §2 states table (Reachable in Text)",
        )
        for s in TEXT_STATES
    ),
    # text-never-overlap, text-never-backchannel: the states TEXT never reaches
    *(
        never(
            f"text-never-{s.name.lower()}",
            _at(TEXT, s),
            cite="ADR-068 D6; duplex-d1 §4 derived facts",
        )
        for s in State
        if s not in TEXT_STATES
    ),
    always(
        "text-collapses-to-d6-path",
        implies(
            and_(eq(var("payload"), TEXT), ne(nxt("state"), var("state"))),
            or_(
                # the D6 path
                _moves(
                    (IDLE, LISTENING), (LISTENING, THINKING), (THINKING, SPEAKING), (SPEAKING, IDLE)
                ),
                _moves((THINKING, LISTENING)),  # ECC's TurnShift (row 4) is payload-blind
                eq(nxt("state"), DEGRADED),
                _moves((DEGRADED, IDLE)),
            ),
        ),
        cite="ADR-068 D6 (required conformance); duplex-d1 §6",
        doc="Under TEXT every move is on Idle→Listening→Thinking→Speaking→Idle, "
        "TurnShift back to Listening, or link loss and restore.",
    ),
    sometimes(
        "text-completes-d6-cycle",
        and_(eq(var("payload"), TEXT), eq(var("state"), SPEAKING), eq(nxt("state"), IDLE)),
        cite="ADR-068 D6",
    ),
    always(
        "observe-never-grants",
        implies(and_(group_is(OBSERVE), eq(var("state"), OVERLAP)), ne(nxt("state"), LISTENING)),
        cite="duplex.rs module doc (actuator/decider boundary); plan §2",
    ),
    always(
        "verdicts-are-applied-observations-observed",
        and_(
            eq(group_is(APPLY), trigger_is(*FLOOR_VERDICTS)),
            eq(group_is(OBSERVE), trigger_is(*STREAM_OBSERVATIONS)),
        ),
        cite="duplex.rs module doc (the two mutators are split by the type they consume: "
        "`apply` is the only method that takes a FloorVerdict); duplex.rs enum FloorVerdict, "
        "enum StreamObservation",
        doc="Who decides each step: ECC's verdicts go through apply, the stream's observations "
        "through observe. The two lists are the seed's enums, not the trigger table.",
    ),
    always(
        "observe-emits-no-command",
        implies(group_is(OBSERVE), eq(out("commands"), NO_COMMANDS)),
        cite="duplex.rs observe (always returns no commands); duplex-d1 §4",
    ),
    always(
        "apply-emits-no-impulse",
        implies(group_is(APPLY), is_none(out("impulse"))),
        cite="duplex.rs apply signature; duplex-d1 §4",
    ),
    always(
        "commands-only-from-apply-in-overlap",
        implies(ne(out("commands"), NO_COMMANDS), and_(group_is(APPLY), eq(var("state"), OVERLAP))),
        cite="duplex-d1 §4 derived facts",
    ),
    always(
        "grant-user-mutes-then-cancels",
        implies(
            and_(trigger_is("grant_user"), eq(var("state"), OVERLAP)),
            eq(out("commands"), MUTE_CANCEL),
        ),
        cite="ADR-068 D1 row 8; duplex-d1 §5.3",
    ),
    sometimes(
        "grant-user-in-overlap",
        and_(trigger_is("grant_user"), eq(var("state"), OVERLAP)),
        cite="ADR-068 D1 row 8",
    ),
    always(
        "degraded-is-silent",
        implies(or_(eq(var("state"), DEGRADED), eq(nxt("state"), DEGRADED)), silent),
        cite="duplex.rs HeartbeatLost arm (never command a dead link); ADR-068 D4",
    ),
    always(
        "heartbeat-lost-degrades",
        implies(trigger_is("heartbeat_lost"), eq(nxt("state"), DEGRADED)),
        cite="ADR-068 D1 row 12 (any → Degraded)",
    ),
    always(
        "impulse-carries-last-erl",
        implies(is_some(out("impulse")), eq(out("impulse_erl"), var("last_erl"))),
        cite="duplex.rs turn_claim; ADR-068 D1 self-cancel fix",
    ),
    always(
        "only-turn-claim-and-eou",
        is_in(out("impulse"), None, Impulse.TURN_CLAIM, Impulse.END_OF_UTTERANCE),
        cite="duplex-d1 §4 derived facts",
    ),
    always(
        "link-restored-clears-erl",
        implies(
            and_(trigger_is("link_restored"), eq(var("state"), DEGRADED)), is_none(nxt("last_erl"))
        ),
        cite="ADR-068 D1 row 13; duplex-d1 §5.8",
    ),
    always(
        "heartbeat-lost-keeps-erl",
        implies(trigger_is("heartbeat_lost"), eq(nxt("last_erl"), var("last_erl"))),
        cite="duplex-d1 §4 (HeartbeatLost keeps last_erl)",
    ),
    always(
        "every-move-is-a-d1-row",
        implies(
            ne(nxt("state"), var("state")),
            or_(*(_d1_row(r) for r in D1_ROWS)),
        ),
        cite="ADR-068 D1 transition rows 1-13 (with the seed's resolutions, duplex-d1 §5.5, §5.9)",
        doc="The floor changes hands only along the ADR's rows, each on its own event: no "
        "other event moves the channel, and no row leads anywhere else.",
    ),
    always(
        "every-d1-row-moves",
        and_(*(implies(_d1_event(r), eq(nxt("state"), r.to)) for r in D1_ROWS)),
        cite="ADR-068 D1 transition rows 1-13; duplex-d1 §4 total transition function",
        doc="Each ADR row's event, in its source state (and payload), takes the channel to "
        "the row's target: none is dropped or turned into a no-op.",
    ),
    always(
        "onsets-claim-unless-degraded",
        implies(
            and_(trigger_is("vad_onset"), ne(var("state"), DEGRADED)),
            eq(out("impulse"), some(Impulse.TURN_CLAIM)),
        ),
        cite="ADR-068 D1 rows 1, 7 (+TurnClaim 0x50); duplex-d1 §5.12 (floor pressure: an "
        "onset anywhere but Degraded still emits a TurnClaim)",
    ),
    always(
        "eou-exactly-on-the-commit",
        implies(
            trigger_is("smart_turn_eou"),
            eq(eq(out("impulse"), some(Impulse.END_OF_UTTERANCE)), eq(var("state"), LISTENING)),
        ),
        cite="ADR-068 D1 row 2 (smart-turn EOU → EndOfUtterance 0x51, Listening → Thinking); "
        "duplex-d1 §4 (SmartTurnEou is a no-op elsewhere)",
    ),
    always(
        "only-onsets-and-eou-emit-impulses",
        implies(is_some(out("impulse")), trigger_is("vad_onset", "smart_turn_eou")),
        cite="duplex-d1 §4 (observe table: only VadOnset and SmartTurnEou carry +TC/+EOU); "
        "duplex-d1 §5.11 (TurnShift and Backchannel are never emitted)",
    ),
    always(
        "deny-barge-resumes-playback",
        implies(
            and_(trigger_is("deny_barge"), eq(var("state"), OVERLAP)),
            eq(out("commands"), RESUME),
        ),
        cite="ADR-068 D1 row 9 (ECC denies: un-duck); duplex-d1 §5.4 (un-duck is Resume)",
    ),
    always(
        "an-erl-observation-is-recorded",
        implies(
            trigger_is("erl"),
            and_(eq(nxt("last_erl"), some(param("value"))), eq(nxt("state"), var("state"))),
        ),
        cite="duplex-d1 §4 (Erl(v) sets last_erl := v in every state, Degraded included, and "
        "moves nothing)",
        doc="It reads the observation's own value, which no row writes, so the impulse "
        "properties that read `last_erl` judge the value the edge really streamed.",
    ),
)

# Liveness (issue 17). ECC answers every TurnClaim with a floor verdict (duplex-d1 §7:
# floor_verdict_from_erl is total, a missing ERL is denied), and `apply` is its only path, so
# ECC's verdicts are weakly fair; the daemon's observations get no fairness.
LIVENESS = (
    leads_to(
        "a-turn-claim-in-overlap-is-answered",
        eq(var("state"), OVERLAP),
        ne(var("state"), OVERLAP),
        cite="ADR-068 D1 rows 7-9 (Overlap is provisional: ECC grants or denies); duplex-d1 "
        "§5.1 (ECC judges at the floor read), §7 (floor_verdict_from_erl, missing → deny)",
        fair=[weak(APPLY)],
        doc="The TurnClaim raised on entering Overlap is answered: under weak fairness of ECC "
        "verdicts the floor leaves Overlap.",
    ),
    # Not promised: a lost link answers the claim only by dropping it, and nothing owes a
    # restore (LinkRestored is an observation, not fair); in Degraded every verdict is a
    # no-op, so a fair ECC may stay silent. The check must find that lasso.
    leads_to(
        "a-turn-claim-outlives-a-lost-link",
        eq(var("state"), OVERLAP),
        and_(ne(var("state"), OVERLAP), ne(var("state"), DEGRADED)),
        cite="duplex-d1 §2 (Degraded: the edge reflex owns safety), §5.8 (link restore is an "
        "observation, not an ECC reconcile), §5.14 (out-of-place verdicts are silent no-ops)",
        fair=[weak(APPLY)],
        doc="Not promised, shown by its lasso: a claim in Overlap, then the heartbeat is lost "
        "and the link stays lost; the claim is never granted, denied or drained.",
        promised=False,
    ),
)

# A liveness-only fault: the row moves nothing and emits nothing, so every safety property
# holds; but it is a real arm, so ECC "answers" the claim with it and weak fairness is met.
BACKCHANNEL_HOLDS_OVERLAP = Variant(
    "backchannel-holds-overlap",
    doc="Overlap's Backchannel verdict handled as an answer that keeps the claim provisional "
    "(an `Overlap => {}` arm that consumes the verdict) instead of the seed's out-of-place "
    "no-op: an ECC that classifies every overlapping onset as a continuer answers each claim "
    "and the floor stays in Overlap forever. No safety property sees it; the liveness one does.",
    cite="duplex-d1 §5.6 (apply(Backchannel) in Overlap: the seed leaves it open, a model "
    "decision), §7 (backchannel classification is planned, an environment choice)",
    violates=("a-turn-claim-in-overlap-is-answered",),
    replace={
        "backchannel_ignored": ignore(
            "backchannel_ignored",
            "backchannel",
            others(SPEAKING, OVERLAP),
            cite="duplex.rs Backchannel `_` arm; duplex-d1 §5.14",
        )
    },
    add=(
        row(
            "backchannel_holds_overlap",
            "backchannel",
            OVERLAP,
            OVERLAP,
            cite="duplex-d1 §5.6 (the open case, resolved the other way)",
        ),
    ),
)

SPEC = Spec(
    name="duplex",
    source="seeds/duplex.rs (ADR-068 D1)",
    doc=__doc__ or "",
    control="state",
    vars=(
        Var("state", Finite.of_enum(State), IDLE, doc="the floor state"),
        Var("payload", Finite.of_enum(Payload), AnyOf(AUDIO, TEXT), doc="fixed at construction"),
        Var("last_erl", Option(ERL), None, doc="the last ERL the edge streamed up"),
    ),
    triggers=TRIGGERS,
    outputs=(
        Output("impulse", Option(Finite.of_enum(Impulse)), None),
        Output("impulse_erl", Option(ERL), None),
        Output("commands", COMMANDS, NO_COMMANDS),
    ),
    rows=ROWS,
    properties=PROPERTIES,
    liveness=LIVENESS,
    variants=(BACKCHANNEL_HOLDS_OVERLAP,),
    views={"audio": eq(var("payload"), AUDIO), "text": eq(var("payload"), TEXT)},
    # Who decides each edge: docs/duplex-d1.md §3 "Rule source" (rows 12-13: the edge reflex).
    layout=Layout(
        deciders={"heartbeat_lost": "reflex", "link_restored": "reflex"},
        meanings={
            OBSERVE: "daemon-local: observe() of the edge's stream",
            APPLY: "ECC floor verdict: apply()",
            "reflex": "edge reflex (ADR-068 D5), observed by the daemon",
        },
        provisional=(OVERLAP,),
        edge_outputs=("impulse", "commands"),
        updates=("last_erl",),
        rankdir="TB",
    ),
)

SPECS = (SPEC,)
