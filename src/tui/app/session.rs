//! A session's actions and `W`: every submission, policy switch and node
//! failure or recovery made from the keyboard is scheduled as a scripted
//! event (the command API's `[[events]]` path) at the next millisecond and
//! run to, so the session is its scenario plus those events, and `W`
//! writes exactly that: a headless run of the file replays the session
//! event for event, to the same `--json`.

use super::{clock, App};
use crate::model::{Action, EventSpec, JobSpec, Ms, Writer};
use crate::scenario::{profiles, DEFAULT_SCENARIO};
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// Why a session could not be saved, or an action not taken.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The engine refused the action (as a replay would log it).
    #[error("{0}")]
    Refused(String),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The scenario file is not the TOML it was when the run started.
    #[error("the scenario: {0}")]
    Scenario(String),
    /// Something the scenario format cannot say.
    #[error("{0}")]
    Unwritable(String),
    #[error("{0}")]
    Toml(#[from] toml::ser::Error),
}

impl App {
    /// Applies `action` as the session's next event: scheduled at the next
    /// millisecond and the run taken to it. An action the engine refuses
    /// is logged there, as a replay would log it, and returned here.
    ///
    /// Side by side, the action goes to every run at the same instant, so
    /// they stay comparable, except a policy switch, which goes to the
    /// focused run alone (saved as a `run = N` event).
    pub(super) fn act(&mut self, action: Action) -> Result<(), SessionError> {
        let at = self.acts_at();
        if self.is_side_by_side() {
            let only = matches!(action, Action::SwitchPolicy(_)).then_some(self.focus());
            for (k, p) in self.panes_mut().iter_mut().enumerate() {
                if only.is_none_or(|f| f == k) {
                    p.sim.schedule(at, action.clone());
                }
                p.sim.run_until(Some(at));
            }
            self.side_tape.push((
                EventSpec {
                    at,
                    action,
                    run: None,
                },
                only,
            ));
        } else {
            let at = self.sim_mut().schedule(at, action);
            self.sim_mut().run_until(Some(at));
        }
        let refused = self.take_in().into_iter().next();
        refused.map_or(Ok(()), |e| Err(SessionError::Refused(e)))
    }

    /// When an action taken now happens: the next millisecond (this one's
    /// events have run; side by side, every run's). The submit form, the
    /// log and the saved session all show this time.
    pub fn acts_at(&self) -> crate::model::Ms {
        self.now() + 1
    }

    /// `W`: writes the session as a scenario into [`App::session_dir`].
    pub(super) fn save_session(&mut self) {
        self.status = Some(match self.write_session() {
            Ok(p) => format!(
                "session saved to {} ({} events): {} replays it",
                p.display(),
                self.session_len(),
                self.replay_command(&p)
            ),
            Err(e) => format!("cannot save the session: {e}"),
        });
    }

    /// The command that replays a session saved now to `path`: up to now
    /// when the run has not ended.
    fn replay_command(&self, path: &Path) -> String {
        if self.is_side_by_side() {
            return format!("slotsim run {} {}", path.display(), self.policies_arg());
        }
        let mut cmd = format!("slotsim run {} --headless", path.display());
        if !self.sim().is_finished() {
            cmd.push_str(&format!(
                " --until {}",
                crate::units::fmt_secs(self.sim().view().now())
            ));
        }
        cmd
    }

    /// How many actions the session took from the keyboard.
    fn session_len(&self) -> usize {
        if self.is_side_by_side() {
            self.side_tape.len()
        } else {
            self.sim().session_events().len()
        }
    }

    /// The runs' starting policies as the command line takes them:
    /// `--policies fifo,fair`, or a `--policy` for each when one holds a
    /// comma; quoted for a shell where they need it.
    pub fn policies_arg(&self) -> String {
        let specs: Vec<String> = self
            .panes()
            .iter()
            .map(|p| p.sim.policy_specs()[0].to_string())
            .collect();
        if specs.iter().any(|s| s.contains(',')) {
            let each: Vec<String> = specs
                .iter()
                .map(|s| format!("--policy {}", shell_quote(s)))
                .collect();
            each.join(" ")
        } else {
            format!("--policies {}", shell_quote(&specs.join(",")))
        }
    }

    /// Always into one place, the session directory (the current one
    /// unless set): `NAME-session-K.toml`, the first K free.
    fn write_session(&self) -> Result<PathBuf, SessionError> {
        let text = self.session_toml()?;
        let stem = match &self.source {
            Some(p) => p
                .file_stem()
                .map_or("session".into(), |s| s.to_string_lossy().into_owned()),
            None => "quickstart".to_string(),
        };
        let path = (1..)
            .map(|k| self.session_dir.join(format!("{stem}-session-{k}.toml")))
            .find(|p| !p.exists())
            .expect("some name is free");
        std::fs::write(&path, text).map_err(|source| SessionError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// The session as a scenario: the file it runs, with the seed and the
    /// starting policy it ran with, and the session's actions appended to
    /// its `[[events]]`. (Comments of the original are not kept.)
    pub fn session_toml(&self) -> Result<String, SessionError> {
        let text = match &self.source {
            Some(p) => std::fs::read_to_string(p).map_err(|source| SessionError::Io {
                path: p.clone(),
                source,
            })?,
            None => DEFAULT_SCENARIO.to_string(),
        };
        let mut doc: Table = text
            .parse()
            .map_err(|e: toml::de::Error| SessionError::Scenario(e.to_string()))?;
        doc.insert("seed".into(), Value::Integer(self.scenario.seed as i64));
        let sched = doc
            .entry("scheduler")
            .or_insert_with(|| Value::Table(Table::new()))
            .as_table_mut()
            .ok_or_else(|| SessionError::Scenario("[scheduler] is not a table".into()))?;
        sched.insert("policy".into(), Value::String(self.scenario.policy.label()));
        let events = doc
            .entry("events")
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| SessionError::Scenario("events is not an array of tables".into()))?;
        if self.is_side_by_side() {
            for (e, only) in &self.side_tape {
                let mut t = event_toml(e)?;
                if let Some(k) = only {
                    t.insert("run".into(), Value::Integer(*k as i64 + 1));
                }
                events.push(Value::Table(t));
            }
        } else {
            for e in self.sim().session_events() {
                events.push(Value::Table(event_toml(e)?));
            }
        }
        // The file lives in the session directory: traces the scenario
        // names relative to its own file are named from there.
        if let (Some(src), Some(Value::Array(ws))) = (&self.source, doc.get_mut("workloads")) {
            let base = src.parent().unwrap_or(Path::new(""));
            for w in ws.iter_mut().filter_map(Value::as_table_mut) {
                if let Some(Value::String(t)) = w.get_mut("trace") {
                    if Path::new(t.as_str()).is_relative() {
                        *t = base.join(t.as_str()).to_string_lossy().into_owned();
                    }
                }
            }
        }
        let this = Path::new("THIS-FILE");
        let mut out = format!(
            "# The scenario {} with the actions of a TUI session, seed {}, saved at {}:\n\
             # {} replays it{}.\n",
            self.scenario.name,
            self.scenario.seed,
            clock(self.sim().view().now()),
            self.replay_command(this),
            if self.sim().is_finished() || self.is_side_by_side() {
                ""
            } else {
                " up to then (without --until it runs on to the end)"
            }
        );
        out.push_str(&toml::to_string(&doc)?);
        Ok(out)
    }
}

/// `s` as one shell word: as it is when it needs no quoting, else in
/// single quotes.
fn shell_quote(s: &str) -> String {
    let plain = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-.,=/:+@%".contains(c));
    if plain && !s.is_empty() {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn duration(ms: Ms) -> Value {
    Value::String(format!("{ms}ms"))
}

/// One `[[events]]` entry, as the scenario format writes it.
fn event_toml(e: &EventSpec) -> Result<Table, SessionError> {
    let mut t = Table::new();
    t.insert("at".into(), duration(e.at));
    let name = |n: &str| Value::String(n.to_string());
    let (action, key, value) = match &e.action {
        Action::KillJob(j) => ("kill_job", "job", name(j)),
        Action::SetPriority(j, p) => {
            t.insert("priority".into(), name(p.as_str()));
            ("set_priority", "job", name(j))
        }
        Action::MoveJob(j, pool) => {
            t.insert("pool".into(), name(pool));
            ("move_job", "job", name(j))
        }
        Action::SwitchPolicy(p) => ("switch_policy", "policy", Value::String(p.label())),
        Action::Heartbeat(n) => ("heartbeat", "node", Value::Integer(*n as i64)),
        Action::FailNode(n) => ("fail_node", "node", Value::Integer(*n as i64)),
        Action::RecoverNode(n) => ("recover_node", "node", Value::Integer(*n as i64)),
        Action::Submit(j) => ("submit", "job", Value::Table(job_toml(j)?)),
    };
    t.insert("action".into(), Value::String(action.into()));
    t.insert(key.into(), value);
    Ok(t)
}

/// A job as `[[jobs]]` writes it: every key that the loader would not
/// give it by default, so loading the table gives the same job.
fn job_toml(j: &JobSpec) -> Result<Table, SessionError> {
    if j.recorded.is_some() {
        return Err(SessionError::Unwritable(format!(
            "job {} replays a trace's recorded times, which a scenario cannot write",
            j.name
        )));
    }
    let mut t = Table::new();
    let s = |x: &str| Value::String(x.to_string());
    t.insert("name".into(), s(&j.name));
    t.insert("profile".into(), s(j.profile.name));
    t.insert("input".into(), s(&format!("{}MB", j.input_mb)));
    t.insert("maps".into(), Value::Integer(j.maps as i64));
    t.insert("reduces".into(), Value::Integer(j.reduces as i64));
    t.insert("pool".into(), s(&j.pool));
    t.insert("user".into(), s(&j.user));
    t.insert("priority".into(), s(j.priority.as_str()));
    t.insert("fp".into(), Value::Float(j.fp));
    let named = profiles::lookup(j.profile.name);
    let differs =
        |f: fn(&crate::model::Profile) -> f64| named.as_ref().is_none_or(|p| f(p) != f(&j.profile));
    if differs(|p| p.map_s_per_mb) {
        t.insert("map_cost".into(), Value::Float(j.profile.map_s_per_mb));
    }
    if differs(|p| p.reduce_s_per_mb) {
        t.insert(
            "reduce_cost".into(),
            Value::Float(j.profile.reduce_s_per_mb),
        );
    }
    if differs(|p| p.reduce_output) {
        t.insert(
            "reduce_output".into(),
            Value::Float(j.profile.reduce_output),
        );
    }
    if let Some(ms) = j.map_time {
        t.insert("map_time".into(), duration(ms));
    }
    if let Some(ms) = j.reduce_time {
        t.insert("reduce_time".into(), duration(ms));
    }
    if let Some(b) = &j.blocks {
        let rows = b
            .iter()
            .map(|r| Value::Array(r.iter().map(|&n| Value::Integer(n as i64)).collect()))
            .collect();
        t.insert("blocks".into(), Value::Array(rows));
    }
    match j.writer {
        None => {}
        Some(Writer::Client) => {
            t.insert("writer".into(), s("client"));
        }
        Some(Writer::Maps) => {
            t.insert("writer".into(), s("maps"));
        }
        Some(Writer::Jobs) => {
            t.insert("writer".into(), s("jobs"));
        }
        Some(Writer::Node(n)) => {
            t.insert("writer".into(), Value::Integer(n as i64));
        }
    }
    if let Some(r) = j.output_replication {
        t.insert("output_replication".into(), Value::Integer(r as i64));
    }
    Ok(t)
}
