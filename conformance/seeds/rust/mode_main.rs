//! The mode.rs seed harness: builds the unmodified seed and drives it one walk per line.
//!
//! Built by conformance/seeds/policy.py and admission.py with `rustc --edition 2021 -O`
//! alone; the framework replaces the `@SEED@` path with `$SEEDS_DIR/mode.rs`. The
//! program's first argument chooses the spec: `policy` (PolicyCell: change/wave/call)
//! or `admission` (admits / mode_admits).
//!
//! Stubs, kept to what mode.rs names outside its `#[cfg(test)]` block:
//! - `kernel` (the seed's kernel crate), reached through `extern crate self as kernel`:
//!   the four policy enums with `ALL`/`as_str` (spelled as api.md and models/policy.py
//!   spell them), `RunPolicy` and `RunPolicy::of`, `AxCode::GateDenied`, and
//!   `AxError::failure(..).with_recovery(..)` keeping its fields, `ToolName::EXEC`;
//! - `crate::catalog::CatalogEntry` (a plain record);
//! - `crate::tools::*Tool::NAME`, the resident tool names of policy-take.md §6.
#![allow(dead_code)]

extern crate self as kernel;

#[path = "@SEED@"]
mod mode;
#[path = "@JSON@"]
mod json;

macro_rules! string_enum {
    ($name:ident { $($variant:ident => $text:literal),* $(,)? }) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),* }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }
            pub fn parse(text: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|v| v.as_str() == text)
            }
        }
    };
}

string_enum!(Mode { Chat => "chat", Work => "work" });
string_enum!(WriteLimit { Full => "full", Create => "create" });
string_enum!(AdmissionRequirement {
    Standing => "standing",
    Tested => "tested",
    ContractKept => "contract_kept",
    DoubleValidated => "double_validated",
});
string_enum!(LandingPolicy { Ordinary => "ordinary", Experiment => "experiment" });

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunPolicy {
    pub mode: Mode,
    pub write: WriteLimit,
    pub admit: AdmissionRequirement,
    pub landing: LandingPolicy,
}

impl RunPolicy {
    /// The kernel's default policy for a mode (api.md: full writes, standing, ordinary).
    pub fn of(mode: Mode) -> RunPolicy {
        RunPolicy {
            mode,
            write: WriteLimit::Full,
            admit: AdmissionRequirement::Standing,
            landing: LandingPolicy::Ordinary,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxCode {
    GateDenied,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AxError {
    pub code: AxCode,
    pub action: String,
    pub subject: String,
    pub recovery: String,
}

impl AxError {
    pub fn failure(code: AxCode, action: String, subject: String) -> AxError {
        AxError { code, action, subject, recovery: String::new() }
    }
    pub fn with_recovery(mut self, recovery: &str) -> AxError {
        self.recovery = recovery.to_owned();
        self
    }
}

pub struct ToolName;
impl ToolName {
    pub const EXEC: &'static str = "exec";
}

pub mod catalog {
    /// A catalog row; mode.rs builds these and the harness never reads them.
    #[derive(Debug, Clone)]
    pub struct CatalogEntry {
        pub name: String,
        pub disclosure: String,
        pub expansion: String,
        pub hash: Option<String>,
        pub package: Option<String>,
    }
}

pub mod tools {
    macro_rules! tool {
        ($name:ident, $text:literal) => {
            pub struct $name;
            impl $name {
                pub const NAME: &'static str = $text;
            }
        };
    }
    tool!(CallTool, "call");
    tool!(DescribeTool, "describe");
    tool!(EditTool, "edit");
    tool!(ReadTool, "read");
    tool!(SearchTool, "search");
    tool!(StatusTool, "status");
}

use json::{obj, s, Json};
use mode::{Admission, PolicyCell, Produced};

fn policy_label(p: &RunPolicy) -> String {
    format!("{}/{}/{}/{}", p.mode.as_str(), p.write.as_str(), p.admit.as_str(), p.landing.as_str())
}

fn parse_policy(text: &str) -> Result<RunPolicy, String> {
    let parts: Vec<&str> = text.split('/').collect();
    let bad = || format!("not a policy: {text:?}");
    if parts.len() != 4 {
        return Err(bad());
    }
    Ok(RunPolicy {
        mode: Mode::parse(parts[0]).ok_or_else(bad)?,
        write: WriteLimit::parse(parts[1]).ok_or_else(bad)?,
        admit: AdmissionRequirement::parse(parts[2]).ok_or_else(bad)?,
        landing: LandingPolicy::parse(parts[3]).ok_or_else(bad)?,
    })
}

fn label_or_null(p: Option<RunPolicy>) -> Json {
    p.map_or(Json::Null, |p| s(&policy_label(&p)))
}

/// `policy`: a PolicyCell, one gate's reader and the driver loop's notes window.
/// Outputs and the one observable variable (`in_force`) are logged as concrete policy
/// labels; the plugin maps them onto the model's watched/other abstraction.
fn run_policy(walk: &Json) -> Result<Vec<Json>, String> {
    let start = parse_policy(walk.get("start").and_then(Json::str).ok_or("walk without start")?)?;
    let mut cell = PolicyCell::new(start);
    let gate = cell.reader();
    let mut log = vec![obj(vec![("init", obj(vec![("in_force", s(&policy_label(&gate.now())))]))])];
    for step in walk.get("steps").map(Json::arr).unwrap_or(&[]) {
        let trigger = step.get("trigger").and_then(Json::str).ok_or("step without trigger")?;
        let mut args = obj(vec![]);
        let (mut read, mut taken, mut note) = (Json::Null, Json::Null, Json::Null);
        match trigger {
            "change" => {
                let text = step
                    .get("args")
                    .and_then(|a| a.get("policy"))
                    .and_then(Json::str)
                    .ok_or("change without args.policy")?;
                let policy = parse_policy(text)?;
                cell.arrive(policy);
                args = obj(vec![("policy", s(&policy_label(&policy)))]);
            }
            "wave" => {
                let got = cell.take_at_wave();
                taken = label_or_null(got);
                if let Some(p) = got {
                    // The driver loop appends the seed's note; it must name the policy taken.
                    let text = mode::policy_note(&p);
                    let names = text.contains(p.mode.as_str()) && text.contains(p.landing.as_str());
                    note = if names { s(&policy_label(&p)) } else { s(&text) };
                }
            }
            "call" => read = s(&policy_label(&gate.now())),
            other => return Err(format!("unknown trigger {other:?}")),
        }
        log.push(obj(vec![
            ("trigger", s(trigger)),
            ("args", args),
            ("outputs", obj(vec![("read", read), ("taken", taken), ("note", note)])),
            ("state", obj(vec![("in_force", s(&policy_label(&gate.now())))])),
        ]));
    }
    Ok(log)
}

fn opt_bool(v: Option<&Json>) -> Result<Option<bool>, String> {
    match v {
        Some(Json::Null) => Ok(None),
        Some(Json::Bool(b)) => Ok(Some(*b)),
        other => Err(format!("not an optional boolean: {other:?}")),
    }
}

/// The seven refusals, recognised by what the seed answers for the canonical input of each
/// line of policy-take.md §5 (so no refusal text is copied here).
fn refusals() -> Vec<(Admission, &'static str)> {
    let work = |admit, landing| RunPolicy { admit, landing, ..RunPolicy::of(Mode::Work) };
    let none = Produced::default();
    use AdmissionRequirement as A;
    use LandingPolicy::{Experiment, Ordinary};
    let cases = [
        ("EXPERIMENT_NEVER_LANDS", work(A::Standing, Experiment), none),
        ("TESTS_FAILED", work(A::Tested, Ordinary), Produced { tests_passed: Some(false), ..none }),
        ("NO_TESTS", work(A::Tested, Ordinary), none),
        ("CONTRACT_MOVED", work(A::ContractKept, Ordinary), Produced { contract_moved: true, ..none }),
        ("WORSE_HELD_IN", work(A::DoubleValidated, Ordinary), Produced { held_in: Some(false), ..none }),
        (
            "FAILED_HELD_OUT",
            work(A::DoubleValidated, Ordinary),
            Produced { held_in: Some(true), held_out: Some(false), ..none },
        ),
        ("HALF_MISSING", work(A::DoubleValidated, Ordinary), Produced { held_in: Some(true), ..none }),
    ];
    cases.iter().map(|(name, policy, produced)| (mode::admits(policy, produced), *name)).collect()
}

fn run_admission(walk: &Json, table: &[(Admission, &'static str)]) -> Result<Vec<Json>, String> {
    let mut log = vec![obj(vec![("init", obj(vec![]))])];
    for step in walk.get("steps").map(Json::arr).unwrap_or(&[]) {
        let trigger = step.get("trigger").and_then(Json::str).ok_or("step without trigger")?;
        let args = step.get("args").cloned().unwrap_or(obj(vec![]));
        let text = |k: &str| args.get(k).and_then(Json::str).ok_or(format!("args.{k} missing"));
        let mode = Mode::parse(&text("mode")?.to_lowercase()).ok_or("args.mode")?;
        let outputs = match trigger {
            "admits" => {
                let policy = RunPolicy {
                    mode,
                    write: WriteLimit::parse(&text("write")?.to_lowercase()).ok_or("args.write")?,
                    admit: AdmissionRequirement::parse(&text("admit")?.to_lowercase())
                        .ok_or("args.admit")?,
                    landing: LandingPolicy::parse(&text("landing")?.to_lowercase())
                        .ok_or("args.landing")?,
                };
                let produced = Produced {
                    tests_passed: opt_bool(args.get("tests_passed"))?,
                    contract_moved: args
                        .get("contract_moved")
                        .and_then(Json::opt_bool)
                        .ok_or("args.contract_moved")?,
                    held_in: opt_bool(args.get("held_in"))?,
                    held_out: opt_bool(args.get("held_out"))?,
                };
                let answer = mode::admits(&policy, &produced);
                let outcome = match answer {
                    Admission::Lands => "LANDS".to_owned(),
                    refused => table
                        .iter()
                        .find(|(known, _)| *known == refused)
                        .map_or_else(|| format!("{refused:?}"), |(_, name)| (*name).to_owned()),
                };
                obj(vec![("outcome", Json::Str(outcome))])
            }
            "mode_admits" => {
                let tool = text("tool")?;
                let allowed = mode::mode_admits(&RunPolicy::of(mode), tool).is_ok();
                obj(vec![
                    ("allowed", Json::Bool(allowed)),
                    ("judged", Json::Bool(mode::in_some_core(tool))),
                ])
            }
            other => return Err(format!("unknown trigger {other:?}")),
        };
        log.push(obj(vec![("trigger", s(trigger)), ("args", args.clone()), ("outputs", outputs)]));
    }
    Ok(log)
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    match which.as_str() {
        "policy" => json::serve(run_policy),
        "admission" => {
            let table = refusals();
            json::serve(|walk| run_admission(walk, &table));
        }
        _ => {
            eprintln!("usage: mode-harness policy|admission");
            std::process::exit(2);
        }
    }
}
