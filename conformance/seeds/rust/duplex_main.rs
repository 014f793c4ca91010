//! The duplex.rs seed harness: builds the unmodified seed and drives it one walk per line.
//!
//! Built by conformance/seeds/duplex.py with `rustc --edition 2021 -O` alone; the
//! framework replaces the `@SEED@` path below with `$SEEDS_DIR/duplex.rs`.
//! The only stub is `crate::impulse::ImpulseType` (the seed imports nothing else):
//! the nine ECC impulse kinds, named as in models/duplex.py `Impulse`.
//!
//! Each step is printed as a check-trace line in the duplex model's vocabulary. The
//! `erl` argument is logged as the seed received it, narrowed to f32 by `Erl(f32)`.
#![allow(dead_code)]

#[path = "@SEED@"]
mod duplex;
#[path = "@JSON@"]
mod json;

/// Stub of the seed's `crate::impulse` (ECC's impulse queue): only the type duplex.rs names.
mod impulse {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ImpulseType {
        BeliefUpdate,
        CoherenceAlert,
        NoveltyDetected,
        EdgeConfirmed,
        EmbeddingRefined,
        TurnClaim,
        EndOfUtterance,
        TurnShift,
        Backchannel,
    }
}

use duplex::{DuplexChannel, DuplexState, EdgeCommand, FloorVerdict, PayloadKind, StreamObservation};
use impulse::ImpulseType;
use json::{obj, s, Json};

fn state_name(st: DuplexState) -> &'static str {
    match st {
        DuplexState::Idle => "IDLE",
        DuplexState::Listening => "LISTENING",
        DuplexState::Thinking => "THINKING",
        DuplexState::Speaking => "SPEAKING",
        DuplexState::Overlap => "OVERLAP",
        DuplexState::Backchannel => "BACKCHANNEL",
        DuplexState::Degraded => "DEGRADED",
    }
}

fn payload_name(p: PayloadKind) -> &'static str {
    match p {
        PayloadKind::Audio => "AUDIO",
        PayloadKind::Text => "TEXT",
    }
}

fn impulse_name(k: ImpulseType) -> &'static str {
    match k {
        ImpulseType::BeliefUpdate => "BELIEF_UPDATE",
        ImpulseType::CoherenceAlert => "COHERENCE_ALERT",
        ImpulseType::NoveltyDetected => "NOVELTY_DETECTED",
        ImpulseType::EdgeConfirmed => "EDGE_CONFIRMED",
        ImpulseType::EmbeddingRefined => "EMBEDDING_REFINED",
        ImpulseType::TurnClaim => "TURN_CLAIM",
        ImpulseType::EndOfUtterance => "END_OF_UTTERANCE",
        ImpulseType::TurnShift => "TURN_SHIFT",
        ImpulseType::Backchannel => "BACKCHANNEL",
    }
}

fn command_name(c: &EdgeCommand) -> &'static str {
    match c {
        EdgeCommand::Play(_) => "PLAY",
        EdgeCommand::Mute => "MUTE",
        EdgeCommand::Silence => "SILENCE",
        EdgeCommand::Resume => "RESUME",
        EdgeCommand::Cancel => "CANCEL",
        EdgeCommand::Config => "CONFIG",
    }
}

fn erl(v: Option<f32>) -> Json {
    v.map_or(Json::Null, |x| Json::Num(f64::from(x)))
}

fn state(ch: &DuplexChannel) -> Json {
    obj(vec![
        ("state", s(state_name(ch.state()))),
        ("payload", s(payload_name(ch.payload()))),
        ("last_erl", erl(ch.last_erl())),
    ])
}

fn run(walk: &Json) -> Result<Vec<Json>, String> {
    let payload = match walk.get("init").and_then(|i| i.get("payload")).and_then(Json::str) {
        Some("AUDIO") => PayloadKind::Audio,
        Some("TEXT") => PayloadKind::Text,
        other => return Err(format!("init.payload: {other:?}")),
    };
    let mut ch = DuplexChannel::new(payload);
    let mut log = vec![obj(vec![("init", state(&ch))])];
    let steps = walk.get("steps").map(Json::arr).unwrap_or(&[]);
    for step in steps {
        let trigger = step.get("trigger").and_then(Json::str).ok_or("step without trigger")?;
        let mut args = obj(vec![]);
        let observation = match trigger {
            "vad_onset" => Some(StreamObservation::VadOnset),
            "vad_offset" => Some(StreamObservation::VadOffset),
            "smart_turn_eou" => Some(StreamObservation::SmartTurnEou),
            "playback_drained" => Some(StreamObservation::PlaybackDrained),
            "heartbeat_lost" => Some(StreamObservation::HeartbeatLost),
            "link_restored" => Some(StreamObservation::LinkRestored),
            "erl" => {
                let value = step
                    .get("args")
                    .and_then(|a| a.get("value"))
                    .and_then(Json::num)
                    .ok_or("erl without args.value")?;
                let narrowed = value as f32; // the seed's `Erl(f32)`
                args = obj(vec![("value", Json::Num(f64::from(narrowed)))]);
                Some(StreamObservation::Erl(narrowed))
            }
            _ => None,
        };
        let (impulse, commands) = match observation {
            Some(o) => ch.observe(o),
            None => {
                let verdict = match trigger {
                    "grant_user" => FloorVerdict::GrantUser,
                    "grant_agent" => FloorVerdict::GrantAgent,
                    "deny_barge" => FloorVerdict::DenyBarge,
                    "backchannel" => FloorVerdict::Backchannel,
                    "turn_shift" => FloorVerdict::TurnShift,
                    other => return Err(format!("unknown trigger {other:?}")),
                };
                (None, ch.apply(verdict))
            }
        };
        let outputs = obj(vec![
            ("impulse", impulse.as_ref().map_or(Json::Null, |i| s(impulse_name(i.kind)))),
            ("impulse_erl", impulse.as_ref().map_or(Json::Null, |i| erl(i.erl))),
            ("commands", Json::Arr(commands.iter().map(|c| s(command_name(c))).collect())),
        ]);
        log.push(obj(vec![
            ("trigger", s(trigger)),
            ("args", args),
            ("outputs", outputs),
            ("state", state(&ch)),
        ]));
    }
    Ok(log)
}

fn main() {
    json::serve(run);
}
