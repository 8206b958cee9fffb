//! `slotsim serve`: runs driven by their caller. The caller writes JSON
//! Lines on stdin and reads them on stdout: a `reset` starts an episode,
//! in which slotsim speaks protocol 2 with the caller in the policy's
//! place (`start`, every message in order, `end` with its `reason`); a
//! bad reset is answered with an `error` line and the next one awaited;
//! `close` or the end of stdin ends the process.

use super::{sets, Failure};
use serde_json::Value;
use slotsim::error::InputError;
use slotsim::report::{summary, trace};
use slotsim::runs::build_sim;
use slotsim::sched::external::{serve_caller, Caller};
use slotsim::units::parse_duration;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The policy every episode runs: the caller, spoken to in protocol 2.
const CALLER_SPEC: &str = "external[label=caller;protocol=2]:-";

pub fn cmd_serve() -> Result<(), Failure> {
    // A signal (Ctrl-C reaches the caller and slotsim alike) ends the
    // episode under way with its outputs written as partial, then the
    // process.
    let stop = super::run::stop_on_signals();
    let signalled = || stop.lock().ok().and_then(|g| *g);
    let caller = Arc::new(Mutex::new(Caller::stdio()?));
    serve_caller(Some(caller.clone()));
    let said = |line: &Value| -> Result<(), Failure> {
        let text = serde_json::to_vec(line).map_err(std::io::Error::from)?;
        caller
            .lock()
            .map_err(|_| Failure::Other("serve: the caller's line is poisoned".into()))?
            .say(&text)
            .map_err(Failure::from)
    };
    loop {
        let line = caller.lock().ok().and_then(|mut c| c.next_line());
        let Some(line) = line else {
            return match signalled() {
                Some(name) => Err(Failure::Interrupted(format!("stopped by {name}"))),
                None => Ok(()),
            };
        };
        if let Some(name) = signalled() {
            return Err(Failure::Interrupted(format!("stopped by {name}")));
        }
        if line.trim().is_empty() {
            continue;
        }
        let req: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                said(&error(format!("not a JSON line ({e}): {}", clip(&line))))?;
                continue;
            }
        };
        match req.get("type").and_then(Value::as_str) {
            Some("close") => return Ok(()),
            Some("reset") => match episode(&req, &stop) {
                Err(EpisodeError::Stopped { signal, at_s }) => {
                    return Err(Failure::Interrupted(format!(
                        "stopped by {signal} at {at_s:.1} s simulated; the outputs asked for hold the episode up to then (\"partial\": true)"
                    )))
                }
                Err(why) => said(&error(why.to_string()))?,
                Ok(()) => {}
            },
            Some(other) => said(&error(format!(
                "a \"{other}\" line between episodes; expected \"reset\" or \"close\""
            )))?,
            None => said(&error(
                "a line with no \"type\"; expected {\"type\":\"reset\",\"scenario\":PATH,...} or {\"type\":\"close\"}".into(),
            ))?,
        }
    }
}

fn error(message: String) -> Value {
    serde_json::json!({"type": "error", "message": message})
}

fn clip(s: &str) -> String {
    if s.chars().count() <= 120 {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(119).collect();
        t.push('…');
        t
    }
}

/// The keys a reset may have.
const RESET_KEYS: [&str; 6] = ["type", "scenario", "seed", "set", "until", "outputs"];

/// One episode: loaded, run with the caller as its policy to its end (or
/// `until`), its outputs written. An error before it starts or during it
/// is what the `error` line says.
/// Why an episode did not start, or stopped.
#[derive(Debug, thiserror::Error)]
enum EpisodeError {
    /// The reset line itself.
    #[error("reset: {0}")]
    Reset(String),
    /// The scenario, or a `set` on it.
    #[error("{0}")]
    Input(#[from] InputError),
    /// The run could not be built, or its policy (the caller) stopped it.
    #[error("{0}")]
    Run(String),
    /// A signal stopped it (its outputs written as partial).
    #[error("stopped by {signal} at {at_s:.1} s simulated")]
    Stopped { signal: &'static str, at_s: f64 },
    #[error("{path}: {source}")]
    Output {
        path: String,
        source: std::io::Error,
    },
}

fn bad(msg: String) -> EpisodeError {
    EpisodeError::Reset(msg)
}

fn episode(req: &Value, stop: &super::run::StopFlag) -> Result<(), EpisodeError> {
    let obj = req
        .as_object()
        .ok_or_else(|| bad("a reset is a JSON object".into()))?;
    if let Some(k) = obj.keys().find(|k| !RESET_KEYS.contains(&k.as_str())) {
        return Err(bad(format!(
            "unknown key \"{k}\"; expected {}",
            RESET_KEYS[1..].join(", ")
        )));
    }
    let path = obj
        .get("scenario")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("\"scenario\" (a path) is missing; expected {\"type\":\"reset\",\"scenario\":\"scenarios/quickstart.toml\"}".into()))?;
    let seed = match obj.get("seed") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| bad(format!("seed {v} is not a whole number from 0")))?,
        ),
    };
    let set = match obj.get("set") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                Ok((
                    k.clone(),
                    toml_value(v)
                        .ok_or_else(|| bad(format!("set.{k}: {v} has no TOML value (null)")))?,
                ))
            })
            .collect::<Result<Vec<_>, EpisodeError>>()?,
        Some(v) => {
            return Err(bad(format!(
                "set is {v}; expected an object of dotted keys, {{\"network.nic_mbps\": 1250}}"
            )))
        }
    };
    let until = match obj.get("until") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(parse_duration(s).map_err(|e| bad(format!("until: {e}")))?),
        Some(v) => {
            return Err(bad(format!(
                "until is {v}; expected a duration such as \"10m\""
            )))
        }
    };
    let (json, trace_path) = outputs(obj.get("outputs"))?;
    let sc = sets::load(Some(Path::new(path)), &set, Some(CALLER_SPEC), seed)?;
    slotsim::scenario::single_run(&sc)?;
    // The outputs are opened first: a bad path costs no episode.
    let open = |p: &str, what: &str| {
        std::fs::File::create(p)
            .map(std::io::BufWriter::new)
            .map_err(|e| bad(format!("outputs.{what}: cannot create {p}: {e}")))
    };
    let mut json_out = json.as_deref().map(|p| open(p, "json")).transpose()?;
    let mut trace_out = trace_path
        .as_deref()
        .map(|p| open(p, "trace"))
        .transpose()?;
    let mut sim = build_sim(&sc).map_err(|e| EpisodeError::Run(format!("{path}: {e}")))?;
    if trace_out.is_none() {
        sim.drop_attempt_records();
    }
    // In slices of simulated time, so that a signal is seen between them.
    let signal = loop {
        let next = sim.next_event_time().map(|t| t + 5_000);
        let limit = match (next, until) {
            (Some(n), Some(u)) => Some(n.min(u)),
            (n, u) => n.or(u),
        };
        let more = sim.run_until(limit);
        let done = sim.is_finished() || !more || until.is_some_and(|u| sim.view().now() >= u);
        let signal = stop.lock().ok().and_then(|g| *g);
        if done || signal.is_some() {
            break signal.filter(|_| !done);
        }
    };
    let why = match signal {
        Some(_) => slotsim::sim::EndReason::Stopped,
        None => sim.ended_by(until),
    };
    sim.end(why);
    let mut sum = summary::summarize(&sim);
    if sim.halted().is_some() || !sim.is_finished() {
        sum.partial = true;
        sum.stopped_at_s = Some(sim.view().t_s());
    }
    let failed = |p: &Out| {
        let path = p.clone().unwrap_or_default();
        move |source: std::io::Error| EpisodeError::Output { path, source }
    };
    if let Some(out) = json_out.as_mut() {
        serde_json::to_writer_pretty(&mut *out, &sum)
            .map_err(std::io::Error::from)
            .and_then(|_| writeln!(out))
            .and_then(|_| out.flush())
            .map_err(failed(&json))?;
    }
    if let Some(out) = trace_out.as_mut() {
        trace::write_trace(&sim, out)
            .and_then(|_| out.flush())
            .map_err(failed(&trace_path))?;
    }
    match (sim.halted(), signal) {
        (Some(why), _) => Err(EpisodeError::Run(why.to_string())),
        (None, Some(signal)) => Err(EpisodeError::Stopped {
            signal,
            at_s: sim.view().t_s(),
        }),
        (None, None) => Ok(()),
    }
}

/// An output's path, if one is asked for.
type Out = Option<String>;

/// `outputs`: `{"json": PATH, "trace": PATH}`, files only (stdout is the
/// protocol's).
fn outputs(v: Option<&Value>) -> Result<(Out, Out), EpisodeError> {
    let m = match v {
        None | Some(Value::Null) => return Ok((None, None)),
        Some(Value::Object(m)) => m,
        Some(v) => {
            return Err(bad(format!(
                "outputs is {v}; expected {{\"json\": PATH, \"trace\": PATH}}"
            )))
        }
    };
    if let Some(k) = m.keys().find(|k| !["json", "trace"].contains(&k.as_str())) {
        return Err(bad(format!(
            "outputs.{k} is not an output; expected json or trace"
        )));
    }
    let path = |k: &str| -> Result<Out, EpisodeError> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(p)) if p == "-" => Err(bad(format!(
                "outputs.{k} is -, but stdout is the protocol's; expected a file"
            ))),
            Some(Value::String(p)) => Ok(Some(p.clone())),
            Some(v) => Err(bad(format!("outputs.{k} is {v}; expected a path"))),
        }
    };
    Ok((path("json")?, path("trace")?))
}

/// A JSON value as the TOML value a `--set` would give.
fn toml_value(v: &Value) -> Option<toml::Value> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64()?),
        },
        Value::String(s) => toml::Value::String(s.clone()),
        Value::Array(a) => toml::Value::Array(a.iter().map(toml_value).collect::<Option<_>>()?),
        Value::Object(m) => toml::Value::Table(
            m.iter()
                .map(|(k, v)| Some((k.clone(), toml_value(v)?)))
                .collect::<Option<_>>()?,
        ),
    })
}
