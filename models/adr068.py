"""ADR-068 as a closed loop: the daemon, ECC's floor gate, the edge reflex and the link.

Built by `compose` from four component specs (duplex-d1.md §7, §8; seed `duplex.rs`):

- `daemon`: the `duplex` spec as it is (its rows, not a copy), its ERL taken from
  `ERL_CLASS`, the classes ECC's gate tells apart (§7: below 0.50, exactly 0.50, above,
  NaN, +inf, -inf; a missing ERL is `none`). The daemon only stores, copies and forwards
  an ERL, so the classes lose nothing (`with_domain`). Its `erl` observation is free: the
  edge relays an ERL with no state change of its own (§8 "ERL measured"). GrantAgent,
  TurnShift and Backchannel are free too: no rule in the seeds produces them (§7).
- `gate`: `floor.rs`'s `floor_verdict_from_erl` (§7). A TurnClaim is held; ECC's floor
  read answers it: GrantUser iff its ERL is finite and >= 0.50, else DenyBarge (NaN, ±inf
  and missing included). A newer claim replaces a held one.
- `edge`: the reflex shadow of §8: Streaming, Muted, Degraded with `tx` and `speaker`.
  The renderer's Play is the edge's free `play` (Phase 1 environment, §8's coupling
  note). Silence and Config are left out: no party of this loop sends them in Phase 0
  (Silence acts as Mute does, Config does nothing; §8). Squelch is off (its default), so
  the mic transmits iff `tx`.
- `link`: up or down; losing it is the edge's one self-firing rule (§8), synchronous
  with the loss. The daemon notices on its own: its heartbeat_lost and link_restored
  stay free (a heartbeat may time out late or spuriously).

Channels: the daemon's TurnClaim impulses to the gate and the gate's verdicts to the
daemon are synchronous (ECC's tick is the gate's `floor_read`); the daemon's commands
reach the edge through the control lane, a FIFO of two that delays them, loses what does
not fit, and loses what is in flight when the link is lost or re-made (a new connection
starts empty): the link drops or delays commands.
"""

from __future__ import annotations

import enum

from models import duplex
from models.duplex import COMMANDS
from models.duplex import OVERLAP
from models.duplex import SPEAKING
from models.duplex import Command
from models.duplex import Impulse
from models.kernel import Bool
from models.kernel import Expr
from models.kernel import Finite
from models.kernel import Option
from models.kernel import Output
from models.kernel import Param
from models.kernel import Row
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import Variant
from models.kernel import always
from models.kernel import and_
from models.kernel import channel
from models.kernel import compose
from models.kernel import eq
from models.kernel import ignore
from models.kernel import implies
from models.kernel import is_in
from models.kernel import is_none
from models.kernel import is_some
from models.kernel import ne
from models.kernel import not_
from models.kernel import nxt
from models.kernel import or_
from models.kernel import out
from models.kernel import param
from models.kernel import row
from models.kernel import some
from models.kernel import sometimes
from models.kernel import trigger_is
from models.kernel import var
from models.kernel.compose import with_domain
from models.kernel.layout import Layout


class ErlClass(enum.Enum):
    """An ERL as ECC's gate sees it (floor.rs `ERL_BARGE_FLOOR = 0.50`, inclusive)."""

    BELOW = "0.49"
    AT_FLOOR = "0.50"
    ABOVE = "0.75"
    NAN = "NaN"
    POS_INF = "+inf"
    NEG_INF = "-inf"


ERL_CLASS = Finite.of_enum(ErlClass, "Erl")
ADMITTED = (ErlClass.AT_FLOOR, ErlClass.ABOVE)  # finite and >= 0.50


class Verdict(enum.Enum):
    GRANT_USER = "GrantUser"
    DENY_BARGE = "DenyBarge"


GRANT_USER, DENY_BARGE = Verdict


def _reads(admitted: tuple[ErlClass | None, ...], cite: str) -> dict[str, Row]:
    """The floor read: GrantUser for an admitted ERL, DenyBarge for any other."""
    held = eq(var("held"), True)
    ok = is_in(var("erl"), *admitted)
    done = {"held": False, "erl": None}
    grants, denies = (
        row(
            "read_grants",
            "floor_read",
            None,
            guard=and_(held, ok),
            sets=done,
            emits={"verdict": some(GRANT_USER)},
            cite=cite,
        ),
        row(
            "read_denies",
            "floor_read",
            None,
            guard=and_(held, not_(ok)),
            sets=done,
            emits={"verdict": some(DENY_BARGE)},
            cite=cite,
        ),
    )
    return {r.name: r for r in (grants, denies)}


GATE_CITE = "duplex-d1 §7 (floor.rs floor_verdict_from_erl: finite and >= ERL_BARGE_FLOOR)"

GATE = Spec(
    name="ecc_gate",
    source="docs/duplex-d1.md §7 (floor.rs@a6bcfe75)",
    doc="ECC's floor gate: holds the last TurnClaim, answers it at the floor read.",
    vars=(
        Var("held", Bool(), False, doc="a TurnClaim awaits the floor read"),
        Var("erl", Option(ERL_CLASS), None, doc="the ERL the held claim carried"),
    ),
    triggers=(
        Trigger("claim", (Param("erl", Option(ERL_CLASS)),), doc="a TurnClaim reaches ECC"),
        Trigger("floor_read", doc="ECC's tick reads the floor"),
    ),
    outputs=(Output("verdict", Option(Finite.of_enum(Verdict)), None),),
    rows=(
        row(
            "claim_held",
            "claim",
            None,
            sets={"held": True, "erl": param("erl")},
            cite="duplex-d1 §5.1 (ECC judges at the floor read); §7",
        ),
        *_reads(ADMITTED, GATE_CITE).values(),
        ignore(
            "read_nothing_held",
            "floor_read",
            None,
            guard=eq(var("held"), False),
            cite="duplex-d1 §7 (a verdict answers a claim)",
        ),
    ),
)


class EdgeState(enum.Enum):
    STREAMING = "Streaming"
    MUTED = "Muted"
    DEGRADED = "Degraded"


STREAMING, MUTED, EDGE_DEGRADED = EdgeState
EDGE_CITE = "duplex-d1 §8 (edge_reflex.rs@97250c74)"


def _commands(
    cmds: tuple[str, ...], effect: str, *, to: EdgeState, speaker: bool, rule: str
) -> tuple[Row, ...]:
    """Each command's two rows: from Streaming or Muted to `to` with the speaker set as `rule`
    says, and ignored while Degraded."""
    return tuple(
        r
        for cmd in cmds
        for r in (
            row(
                f"{cmd}_{effect}",
                cmd,
                (STREAMING, MUTED),
                to,
                sets={"speaker": speaker},
                cite=f"{EDGE_CITE}: {rule}",
            ),
            ignore(
                f"{cmd}_ignored_degraded",
                cmd,
                EDGE_DEGRADED,
                cite=f"{EDGE_CITE}: any command while Degraded is ignored",
            ),
        )
    )


EDGE = Spec(
    name="edge_reflex",
    source="docs/duplex-d1.md §8 (edge_reflex.rs@97250c74)",
    doc="The edge reflex: it sees only EdgeCommands and its own link.",
    control="state",
    vars=(
        Var("state", Finite.of_enum(EdgeState), STREAMING),
        Var("tx", Bool(), True, doc="the mic transmits (squelch off)"),
        Var("speaker", Bool(), True),
    ),
    triggers=(
        Trigger("mute", group="command"),
        Trigger("cancel", group="command"),
        Trigger("resume", group="command"),
        Trigger("play", group="command", doc="the renderer's media (Phase 1)"),
        Trigger("link_lost", group="link"),
        Trigger("link_restored", group="link"),
    ),
    rows=(
        *_commands(
            ("mute", "cancel"),
            "cuts",
            to=MUTED,
            speaker=False,
            rule="Mute, Silence, Cancel → Muted, speaker off, tx unchanged",
        ),
        *_commands(
            ("resume", "play"),
            "speaks",
            to=STREAMING,
            speaker=True,
            rule="Resume, Play → Streaming, speaker on",
        ),
        row(
            "loss_degrades",
            "link_lost",
            (STREAMING, MUTED),
            EDGE_DEGRADED,
            sets={"tx": False, "speaker": False},
            cite=f"{EDGE_CITE}: link loss (the only self-firing rule) → Degraded, tx off, "
            "speaker off",
        ),
        row(
            "restore_streams_silent",
            "link_restored",
            EDGE_DEGRADED,
            STREAMING,
            # The speaker is already off (link loss turned it off): it stays off.
            sets={"tx": True},
            cite=f"{EDGE_CITE}: link restored → Streaming, tx on, speaker off (never speaks "
            "unprompted)",
        ),
    ),
    totality="enabled-only",
)


class LinkEvent(enum.Enum):
    LOST = "lost"
    RESTORED = "restored"


LINK = Spec(
    name="link",
    source="docs/duplex-d1.md §8 (coupling notes: link loss degrades both sides)",
    doc="The edge's link to the daemon: lost and restored by the environment.",
    vars=(Var("up", Bool(), True),),
    triggers=(Trigger("lose"), Trigger("restore")),
    outputs=(Output("event", Option(Finite.of_enum(LinkEvent)), None),),
    rows=(
        row(
            "goes_down",
            "lose",
            None,
            guard=eq(var("up"), True),
            sets={"up": False},
            emits={"event": some(LinkEvent.LOST)},
            cite="ADR-068 D4, D5 (link loss); duplex-d1 §8",
        ),
        row(
            "comes_back",
            "restore",
            None,
            guard=eq(var("up"), False),
            sets={"up": True},
            emits={"event": some(LinkEvent.RESTORED)},
            cite="ADR-068 D1 row 13 (link restored); duplex-d1 §8",
        ),
        ignore("already_down", "lose", None, guard=eq(var("up"), False), cite="a lost link"),
        ignore("already_up", "restore", None, guard=eq(var("up"), True), cite="a live link"),
    ),
)

DAEMON = with_domain(duplex.SPEC, duplex.ERL, ERL_CLASS)
LANE = (Command.MUTE, Command.CANCEL, Command.RESUME)  # what the daemon sends down

CHANNELS = (
    channel(
        "claims",
        ("daemon", "impulse"),
        "gate",
        {
            Impulse.TURN_CLAIM: ("claim", {"erl": out("impulse_erl")}),
            Impulse.END_OF_UTTERANCE: None,
        },
        cite="duplex.rs turn_claim (the ERL rides the TurnClaim); duplex-d1 §5.1, §7",
        doc="TurnClaim impulses up to ECC (EndOfUtterance goes to ECC's commit, not the gate)",
    ),
    channel(
        "verdicts",
        ("gate", "verdict"),
        "daemon",
        {GRANT_USER: "grant_user", DENY_BARGE: "deny_barge"},
        cite="duplex.rs apply (the only ECC-authoritative path); duplex-d1 §7",
    ),
    channel(
        "control",
        ("daemon", "commands"),
        "edge",
        dict(zip(LANE, ("mute", "cancel", "resume"), strict=True)),
        capacity=2,
        cleared_by=[("link", "lose"), ("link", "restore")],
        overflow="drop",
        cite="ADR-068 D3 (the control lane carries EdgeCommands only); duplex-d1 §8",
        doc="the control lane: EdgeCommands down to the edge, in order, delayed",
    ),
    channel(
        "link_events",
        ("link", "event"),
        "edge",
        {LinkEvent.LOST: "link_lost", LinkEvent.RESTORED: "link_restored"},
        cite="duplex-d1 §8 (link loss is the edge's only self-firing rule)",
    ),
)

MUTES = tuple(
    c for c in COMMANDS.members if isinstance(c, tuple) and {Command.MUTE, Command.CANCEL} & set(c)
)
AGENT_HOLDS = (SPEAKING, OVERLAP, duplex.BACKCHANNEL)
AT_REST = and_(eq(var("link_up"), True), eq(var("control"), ()))
speaker_turns_on = and_(eq(var("edge_speaker"), False), eq(nxt("edge_speaker"), True))


def _moved(component: str, names: tuple[str, ...]) -> Expr:
    return or_(*(ne(nxt(f"{component}_{n}"), var(f"{component}_{n}")) for n in names))


PROPERTIES = (
    # ---- the loop's wiring, as the docs describe it
    always(
        "claims-reach-ecc",
        and_(
            eq(eq(out("daemon_impulse"), Impulse.TURN_CLAIM), eq(out("gate_step"), "claim")),
            implies(
                eq(out("gate_step"), "claim"),
                and_(eq(nxt("gate_held"), True), eq(nxt("gate_erl"), out("daemon_impulse_erl"))),
            ),
        ),
        cite="duplex.rs turn_claim (the ERL rides the TurnClaim to ECC's floor read); "
        "duplex-d1 §5.1, §7",
        doc="Every TurnClaim, and only a TurnClaim, reaches the gate, with the ERL it carried.",
    ),
    always(
        "steps-are-attributed",
        and_(
            implies(_moved("daemon", ("state", "last_erl")), is_some(out("daemon_step"))),
            implies(_moved("gate", ("held", "erl")), is_some(out("gate_step"))),
            implies(_moved("edge", ("state", "tx", "speaker")), is_some(out("edge_step"))),
            implies(_moved("link", ("up",)), is_some(out("link_step"))),
        ),
        cite="compose: a component that moves names the trigger it took (the sequence charts "
        "read it)",
    ),
    always(
        "the-control-lane-hands-over-its-head",
        implies(
            trigger_is("control_deliver"),
            or_(
                and_(eq(var("control"), ()), eq(nxt("control"), ())),
                *(and_(eq(var("control"), (a,)), eq(nxt("control"), ())) for a in LANE),
                *(
                    and_(eq(var("control"), (a, b)), eq(nxt("control"), (b,)))
                    for a in LANE
                    for b in LANE
                ),
            ),
        ),
        cite="ADR-068 D3 (the control lane: EdgeCommands in order); duplex-d1 §8",
        doc="A delivery takes the first command off the lane and leaves the rest, in order.",
    ),
    always(
        "a-new-connection-starts-empty",
        implies(is_some(out("link_step")), eq(nxt("control"), ())),
        cite="duplex-d1 §8 (link loss degrades both sides and sends no command): what was in "
        "flight on the lost connection is gone, and a restored one starts empty",
    ),
    always(
        "the-link-announces-its-changes",
        and_(
            eq(
                eq(out("link_event"), LinkEvent.LOST),
                and_(eq(var("link_up"), True), eq(nxt("link_up"), False)),
            ),
            eq(
                eq(out("link_event"), LinkEvent.RESTORED),
                and_(eq(var("link_up"), False), eq(nxt("link_up"), True)),
            ),
        ),
        cite="duplex-d1 §8 (link loss is the edge's self-firing rule; the restore re-handshakes)",
    ),
    always(
        "a-linked-edge-acts-on-every-command",
        implies(
            and_(
                trigger_is("control_deliver"),
                ne(var("control"), ()),
                ne(var("edge_state"), EDGE_DEGRADED),
            ),
            is_some(out("edge_step")),
        ),
        cite="duplex-d1 §8 (only a Degraded edge ignores a command)",
    ),
    always(
        "edge-streams-exactly-while-linked",
        and_(
            eq(eq(var("edge_state"), EDGE_DEGRADED), eq(var("link_up"), False)),
            eq(var("edge_tx"), var("link_up")),
        ),
        cite="duplex-d1 §1 (the edge always streams), §8 (link loss → Degraded, tx off; "
        "restore → Streaming, tx on)",
    ),
    always(
        "edge-follows-its-table",
        and_(
            implies(
                is_in(out("edge_step"), "mute", "cancel"),
                and_(
                    eq(nxt("edge_state"), MUTED),
                    eq(nxt("edge_speaker"), False),
                    eq(nxt("edge_tx"), var("edge_tx")),
                ),
            ),
            implies(
                is_in(out("edge_step"), "resume", "play"),
                and_(eq(nxt("edge_state"), STREAMING), eq(nxt("edge_speaker"), True)),
            ),
        ),
        cite="duplex-d1 §8 (Mute, Cancel → Muted, speaker off, tx unchanged; Resume, Play → "
        "Streaming, speaker on)",
    ),
    always(
        "gate-holds-an-erl-only-with-a-claim",
        implies(eq(var("gate_held"), False), is_none(var("gate_erl"))),
        cite="duplex-d1 §7 (the gate judges the claim's own ERL)",
    ),
    # ---- D4, both halves
    always(
        "d4-no-open-mic-into-a-dead-link",
        implies(eq(var("link_up"), False), eq(var("edge_tx"), False)),
        cite="ADR-068 D4 (never holds an open mic into a dead link); duplex-d1 §8 link loss",
    ),
    always(
        "d4-silent-while-disconnected",
        implies(eq(var("link_up"), False), eq(var("edge_speaker"), False)),
        cite="ADR-068 D4 (a disconnected edge never speaks); duplex-d1 §8 link loss",
    ),
    always(
        "d4-never-speaks-unprompted",
        implies(speaker_turns_on, is_in(out("edge_step"), "play", "resume")),
        cite="ADR-068 D4 (never speaks unprompted); duplex-d1 §8 (only Resume and Play turn "
        "the speaker on)",
    ),
    always(
        "restore-leaves-the-speaker-off",
        implies(eq(out("edge_step"), "link_restored"), eq(nxt("edge_speaker"), False)),
        cite="duplex-d1 §8 (link restored: speaker off; after restore the speaker stays off "
        "until the next Play or Resume)",
        doc="With d4-never-speaks-unprompted: after a restore the speaker stays off until "
        "Play or Resume.",
    ),
    always(
        "daemon-never-commands-a-dead-link",
        implies(
            or_(eq(var("daemon_state"), duplex.DEGRADED), eq(nxt("daemon_state"), duplex.DEGRADED)),
            eq(out("daemon_commands"), ()),
        ),
        cite="ADR-068 D4; duplex.rs HeartbeatLost arm; duplex-d1 §6 (never command a dead link)",
    ),
    # ---- self-echo (ADR-068 D1's self-cancel fix)
    always(
        "self-echo-never-mutes-or-cancels",
        implies(is_in(out("daemon_commands"), *MUTES), is_in(var("gate_erl"), *ADMITTED)),
        cite="ADR-068 D1 (self-cancel fix); duplex-d1 §6 (low ERL must not Mute or Cancel; "
        "missing → deny), §7",
        doc="A Mute or Cancel is sent only on a floor read of a claim whose ERL was finite "
        "and >= 0.50: a low, NaN, infinite or missing ERL never leads to one.",
    ),
    always(
        "gate-follows-floor-rs",
        implies(
            eq(out("gate_step"), "floor_read"),
            and_(
                eq(eq(out("gate_verdict"), GRANT_USER), is_in(var("gate_erl"), *ADMITTED)),
                is_some(out("gate_verdict")),
                eq(nxt("gate_held"), False),
            ),
        ),
        cite="duplex-d1 §7 (ERL_BARGE_FLOOR = 0.50 inclusive; NaN, ±inf, missing → DenyBarge; "
        "one verdict per claim)",
    ),
    sometimes(
        "barge-at-the-floor-is-granted",
        and_(
            eq(var("daemon_state"), OVERLAP),
            eq(var("gate_erl"), ErlClass.AT_FLOOR),
            eq(out("gate_verdict"), GRANT_USER),
        ),
        cite="duplex-d1 §7 (0.50 is admitted)",
    ),
    # ---- actuator, not decider
    always(
        "edge-moves-only-on-commands-and-its-link",
        implies(
            is_some(out("edge_step")),
            trigger_is("control_deliver", "edge_play", "link_lose", "link_restore"),
        ),
        cite="ADR-068 D3 (actuator, not decider: the edge sees only EdgeCommands, never a "
        "verdict or an impulse code); duplex.rs EdgeCommand doc; duplex-d1 §6",
        doc="Every step of the edge is an EdgeCommand off the control lane, the renderer's "
        "Play, or its own link: no verdict (the gate's floor read) and no impulse (the "
        "daemon's observations) ever moves it. The edge's triggers are EdgeCommands and link "
        "events only, so it has no way to be handed either.",
    ),
    # ---- the floor, by each party's reading
    always(
        "floor-one-holder-by-each-reading",
        and_(
            # the edge: Muted (the user's barge cut) never with the speaker on (the agent's)
            implies(eq(var("edge_state"), MUTED), eq(var("edge_speaker"), False)),
            # ECC and the daemon: a verdict that moves the daemon moves it to ECC's holder
            implies(
                and_(eq(out("gate_verdict"), GRANT_USER), eq(var("daemon_state"), OVERLAP)),
                eq(nxt("daemon_state"), duplex.LISTENING),
            ),
            implies(
                and_(eq(out("gate_verdict"), DENY_BARGE), eq(var("daemon_state"), OVERLAP)),
                eq(nxt("daemon_state"), SPEAKING),
            ),
        ),
        cite="ADR-068 D1 states table (one holder: Listening the user's, Speaking the agent's), "
        "rows 8-9; duplex-d1 §8 (GrantUser → edge Muted, DenyBarge → Streaming)",
    ),
    # ---- §8's coupling note
    sometimes(
        "muted-through-the-next-speaking-turn",
        and_(
            AT_REST,
            eq(var("edge_state"), MUTED),
            eq(out("daemon_step"), "grant_agent"),
            eq(nxt("daemon_state"), SPEAKING),
        ),
        cite="duplex-d1 §8 coupling note (Phase 0 never emits Play: after a granted barge the "
        "edge stays Muted through the next Speaking turn)",
        doc="The witness of the note: GrantAgent starts the agent's next turn while the edge, "
        "muted by an earlier granted barge, has nothing in flight to un-mute it.",
    ),
    sometimes(
        "play-unmutes-the-next-turn",
        and_(
            eq(var("edge_state"), MUTED),
            eq(var("daemon_state"), SPEAKING),
            eq(out("edge_step"), "play"),
        ),
        cite="duplex-d1 §8 coupling note (unless the renderer's Play is modelled)",
    ),
)

VARIANTS = (
    (
        "edge",
        Variant(
            "edge_unmutes_on_restore",
            "The edge turns its speaker back on when the link is restored.",
            "duplex-d1 §8 (link restored: speaker off); ADR-068 D4",
            ("restore-leaves-the-speaker-off", "d4-never-speaks-unprompted"),
            replace={
                "restore_streams_silent": row(
                    "restore_streams_silent",
                    "link_restored",
                    EDGE_DEGRADED,
                    STREAMING,
                    sets={"tx": True, "speaker": True},
                    cite="variant: speaker on at restore",
                )
            },
        ),
    ),
    (
        "gate",
        Variant(
            "gate_admits_missing_erl",
            "The gate grants a barge whose claim carries no ERL.",
            "duplex-d1 §7 (missing → DenyBarge, the safe default)",
            ("self-echo-never-mutes-or-cancels", "gate-follows-floor-rs"),
            replace=_reads((*ADMITTED, None), "variant"),
        ),
    ),
    (
        "gate",
        Variant(
            "gate_exclusive_floor",
            "The gate admits only an ERL above 0.50, not 0.50 itself.",
            "duplex-d1 §7 (ERL_BARGE_FLOOR = 0.50 inclusive: 0.50 is admitted)",
            ("gate-follows-floor-rs", "barge-at-the-floor-is-granted"),
            replace=_reads((ErlClass.ABOVE,), "variant"),
        ),
    ),
    (
        "daemon",
        Variant(
            "daemon_commands_in_degraded",
            "The daemon cuts the speaker ([Mute, Cancel]) when it loses the heartbeat.",
            "duplex.rs HeartbeatLost arm (it emits no edge command: the link is down); ADR-068 D4",
            ("daemon-never-commands-a-dead-link", "self-echo-never-mutes-or-cancels"),
            replace={
                "heartbeat_lost_degrades": row(
                    "heartbeat_lost_degrades",
                    "heartbeat_lost",
                    None,
                    duplex.DEGRADED,
                    emits={"commands": duplex.MUTE_CANCEL},
                    cite="variant: commands on heartbeat loss",
                )
            },
        ),
    ),
)

SPEC = compose(
    "adr068",
    {"daemon": DAEMON, "gate": GATE, "edge": EDGE, "link": LINK},
    CHANNELS,
    source="docs/duplex-d1.md §7, §8; seeds/duplex.rs (ADR-068 closed loop)",
    doc=__doc__ or "",
    properties=PROPERTIES,
    # duplex's own properties hold of the daemon inside the loop (`daemon-<name>`)
    inherit={"daemon": tuple(p.name for p in duplex.SPEC.properties)},
    totality="explicit",
    variants=VARIANTS,
    # The step outputs repeat the trigger; the table shows what crosses a channel.
    layout=Layout(edge_outputs=("daemon_impulse", "daemon_commands", "gate_verdict"), rankdir="TB"),
)

SPECS = (SPEC,)
