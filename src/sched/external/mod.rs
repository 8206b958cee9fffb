//! `external`: a policy in another process, in any language, speaking
//! slotsim's JSON Lines protocol (docs/write-a-policy.md): the engine's
//! notifications go to the process's stdin as they happen, and each
//! heartbeat is one request whose reply line names the tasks to launch.
//!
//! Protocol 1 (`protocol`) asks on heartbeats of nodes with a free slot,
//! on typed slots and unified containers. Protocol 2 (`v2`, the only one
//! on YARN) greets the policy and reads its `hello`, numbers every
//! request, tells of every attempt that starts, and asks on every
//! heartbeat of a live node, full or not, so that its reply may preempt
//! attempts anywhere, copy a running task speculatively, and size YARN
//! containers.
//!
//! The engine's own mechanics stay the engine's: set-up and clean-up
//! tasks, YARN's ApplicationMasters (placed after the reply, where they
//! fit, as YARN's FifoScheduler places them after older applications'
//! tasks), speculative copies (offered after each heartbeat under the
//! scenario's rule, as for every policy that does not speculate itself),
//! slowstart, failures. A reply that cannot be applied stops the run with
//! one error naming the message and the heartbeat ([`Policy::fault`]).

mod process;
mod protocol;
mod script;
mod v2;

pub use process::{keep_stderr, prefix_stderr, serve_caller, share_cpu, Caller};
pub use script::{script_of, Script};

use super::entry::{Entry, DEFAULT_SLOWSTART};
use super::settings::{ConfigError, Settings};
use crate::model::Models;
use crate::model::{ExternalSpec, JobId, Ms, NodeId, PolicySpec};
use crate::sim::policy::{BuildCtx, Built, Event, Inspection, Policy, Show, Snapshot, Values};
use crate::sim::{AttemptId, EndReason, Heartbeat, RunView};
use process::{AskError, NoReply, Process};
use std::time::{Duration, Instant};

/// `[scheduler.external]`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The program and its arguments: a list, or one string split on
    /// whitespace.
    pub command: Option<CommandLine>,
    /// The longest wait for one reply.
    #[serde(default, deserialize_with = "crate::units::de_opt_duration")]
    pub timeout: Option<Ms>,
    pub slowstart: Option<f64>,
    /// The protocol version the policy speaks: 1 or 2 (default 1; on
    /// YARN 2, the only one there).
    pub protocol: Option<u32>,
}

#[derive(Clone, Debug, serde::Deserialize)]
#[serde(
    untagged,
    expecting = "expected the policy's command: a list of strings such as [\"python3\", \"policy.py\"], or one string"
)]
pub enum CommandLine {
    Line(String),
    Argv(Vec<String>),
}

/// How long a policy process may take over one reply unless told.
pub const DEFAULT_TIMEOUT: Ms = 10_000;

pub const EXTERNAL: Entry = Entry {
    name: crate::model::spec::EXTERNAL,
    summary: "a policy in another process, in any language: JSON Lines on its stdin/stdout, one reply per heartbeat (`--policy \"external:CMD ARGS\"`)",
    source: "slotsim's external policy protocol, versions 1 and 2 (docs/write-a-policy.md; a Python client in clients/python/); on YARN version 2",
    runs_on: Models::ALL,
    meant_for: Models::ALL,
    build: |s, ctx| build(&ExternalSpec::default(), s, ctx).map(|b| b.policy),
    check: Some(check_settings),
};

/// Where the policy's decisions go wrong, for the error that stops the run:
/// the message it was answering, what it was, and when.
#[derive(Clone, Copy)]
struct Blame {
    message: u64,
    what: &'static str,
    at: Ms,
}

pub struct External {
    label: String,
    argv: Vec<String>,
    timeout: Duration,
    slowstart: f64,
    /// The protocol version it speaks.
    protocol: u32,
    /// Protocol 2: the number of the last request sent (`start` is 0).
    seq: u64,
    /// Protocol 2: what its `hello` said.
    hello: Option<v2::Hello>,
    /// The command's script, if a word of it names a readable file.
    script: Option<Script>,
    /// Started on first use, so that checking a scenario runs nothing.
    proc: Option<Process>,
    started: bool,
    fault: Option<String>,
    /// Lines sent so far: the number of the last one.
    sent: u64,
    /// What the policy has heard of each job, by id.
    heard: Vec<Heard>,
    /// Jobs that arrived held back by their pool's running-job limit:
    /// announced once runnable.
    held: Vec<JobId>,
    inspection: Inspection,
    /// The time of the last message, for `end` (sent when the policy is
    /// dropped, without the world).
    now: Ms,
    buf: Vec<u8>,
    stats: Option<protocol::Stats>,
    /// Told `end` ([`Policy::end`]): not again when dropped.
    ended: bool,
    /// The files its `hello` names, hashed when it said so.
    files: Vec<Script>,
    /// Under `"wake":"work"`: the earliest `call_me_at` not yet honoured.
    call_me_at: Option<Ms>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Heard {
    Nothing,
    Announced,
    Finished,
}

/// Checks `[scheduler.external]` without its command, which a spec
/// (`external:CMD`) may give instead.
pub fn check_settings(s: &Settings) -> Result<(), ConfigError> {
    let own: Config = s.own()?;
    timeout(own.timeout)?;
    s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?;
    if let Some(p) = own.protocol {
        protocol_number(p)?;
    }
    Ok(())
}

fn protocol_number(p: u32) -> Result<u32, ConfigError> {
    match p {
        1 | 2 => Ok(p),
        _ => Err(ConfigError::new(
            "scheduler.external.protocol",
            format!("protocol {p} is not spoken; expected 1 or 2"),
        )),
    }
}

/// The protocol a policy speaks: the spec's, else the table's, else 1 (2
/// on YARN, which protocol 1 cannot describe).
fn protocol(spec: Option<u32>, own: Option<u32>, ctx: &BuildCtx) -> Result<u32, ConfigError> {
    let yarn = ctx.capacity.app_masters();
    let p = protocol_number(spec.or(own).unwrap_or(if yarn { 2 } else { 1 }))?;
    if yarn && p == 1 {
        return Err(ConfigError::new(
            "scheduler.external.protocol",
            "protocol 1 has no words for YARN's containers and ApplicationMasters; on slot_model = \"yarn\" an external policy speaks protocol 2 (protocol = 2, or external[protocol=2]:CMD)",
        ));
    }
    Ok(p)
}

fn timeout(t: Option<Ms>) -> Result<Duration, ConfigError> {
    if t == Some(0) {
        return Err(ConfigError::new(
            "scheduler.external.timeout",
            "must be longer than 0 s",
        ));
    }
    Ok(Duration::from_millis(t.unwrap_or(DEFAULT_TIMEOUT)))
}

/// An external policy as `spec` gives it, the rest from `[scheduler.external]`.
pub fn build(spec: &ExternalSpec, s: &Settings, ctx: &BuildCtx) -> Result<Built, ConfigError> {
    let x = External::build(spec, s, ctx)?;
    let label = x.label.clone();
    Ok(Built {
        policy: Box::new(x),
        label,
    })
}

/// A policy in another process cannot be copied: a seek back replays the
/// run from its start.
impl Snapshot for External {
    fn snapshot(&self) -> Option<Box<dyn Policy>> {
        None
    }
}

impl External {
    fn build(spec: &ExternalSpec, s: &Settings, ctx: &BuildCtx) -> Result<External, ConfigError> {
        let own: Config = s.own()?;
        let argv = match (&spec.argv, &own.command) {
            (Some(argv), _) => argv.clone(),
            (None, None) => {
                return Err(ConfigError::new(
                    "scheduler.external.command",
                    "missing: the policy's program and its arguments, as in command = [\"python3\", \"policy.py\"] or --policy \"external:python3 policy.py\"",
                ))
            }
            (None, Some(CommandLine::Line(l))) => l.split_whitespace().map(str::to_string).collect(),
            (None, Some(CommandLine::Argv(v))) => v.clone(),
        };
        if argv.is_empty() || argv[0].is_empty() {
            return Err(ConfigError::new(
                "scheduler.external.command",
                "empty: expected the policy's program and its arguments",
            ));
        }
        let timeout = timeout(spec.timeout.or(own.timeout))?;
        let protocol = protocol(spec.protocol, own.protocol, ctx)?;
        let label = PolicySpec::External(spec.clone()).label_with(Some(&argv));
        Ok(External {
            label,
            script: None,
            argv,
            timeout,
            slowstart: s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?,
            protocol,
            seq: 0,
            hello: None,
            proc: None,
            started: false,
            fault: None,
            sent: 0,
            heard: Vec::new(),
            held: Vec::new(),
            inspection: Inspection::default(),
            now: 0,
            buf: Vec::new(),
            stats: std::env::var_os("SLOTSIM_EXTERNAL_STATS").map(|_| protocol::Stats::default()),
            ended: false,
            files: Vec::new(),
            call_me_at: None,
        })
    }

    /// The command as the error names it.
    fn command(&self) -> String {
        self.argv.join(" ")
    }

    /// Stops the run: records why and stops the process.
    fn fail(&mut self, blame: Option<Blame>, what: String) {
        if self.fault.is_some() {
            return;
        }
        let mut msg = format!("policy \"{}\"", self.command());
        if let Some(b) = blame {
            msg.push_str(&format!(
                ": message {} ({} at {})",
                b.message,
                b.what,
                crate::units::fmt_secs(b.at)
            ));
        }
        msg.push_str(": ");
        msg.push_str(&what);
        if let Some(p) = self.proc.as_mut() {
            let tail = p.stderr_tail();
            if !tail.is_empty() {
                msg.push_str("\n  its last lines on stderr:");
                for l in tail {
                    msg.push_str("\n    ");
                    msg.push_str(&l);
                }
            }
            p.kill();
        }
        self.fault = Some(msg);
    }

    /// Starts the process and greets it, once. False once the policy has
    /// failed.
    fn ready(&mut self, w: RunView<'_>) -> bool {
        if self.fault.is_some() {
            return false;
        }
        self.now = w.now();
        if self.started {
            return true;
        }
        self.started = true;
        let prefix = format!("{}, seed {}", self.label, w.seed());
        self.script = script_of(&self.argv);
        match Process::start(&self.argv, &prefix) {
            Ok(p) => self.proc = Some(p),
            Err(e) => {
                self.fail(None, format!("cannot start it: {e}"));
                return false;
            }
        }
        self.heard = vec![Heard::Nothing; w.jobs().len()];
        if self.protocol == 1 {
            protocol::start(&mut self.buf, w, self.slowstart);
            self.tell();
            return true;
        }
        v2::start(&mut self.buf, w, self.slowstart);
        self.sent += 1;
        let blame = Blame {
            message: self.sent,
            what: "start",
            at: w.now(),
        };
        let Some(line) = self.ask(&blame) else {
            return false;
        };
        let h = match v2::hello(&line) {
            Ok(h) => h,
            Err(e) => {
                self.fail(Some(blame), e.to_string());
                return false;
            }
        };
        if h.am == v2::AmMode::Policy && !w.capacity().app_masters() {
            self.fail(
                Some(blame),
                "its hello says \"am\":\"policy\", but only slot_model = \"yarn\" has ApplicationMasters to place".into(),
            );
            return false;
        }
        for f in &h.files {
            match Script::read(std::path::Path::new(f)) {
                Some(s) => self.files.push(s),
                None => {
                    self.fail(
                        Some(blame),
                        format!("its hello names file {f:?} in \"files\", which is not a readable file (paths are read from slotsim's working directory)"),
                    );
                    return false;
                }
            }
        }
        self.hello = Some(h);
        true
    }

    /// Who places ApplicationMasters, as the `hello` said.
    fn am(&self) -> v2::AmMode {
        self.hello.as_ref().map_or(v2::AmMode::Engine, |h| h.am)
    }

    /// Whether job `j` is announced now: once its tasks are schedulable,
    /// or under `"am":"policy"` once its ApplicationMaster waits for a
    /// container.
    fn announceable(&self, w: RunView<'_>, j: JobId) -> bool {
        w.job(j).runnable
            || (self.am() == v2::AmMode::Policy && w.awaiting_am().binary_search(&j).is_ok())
    }

    /// Sends the request in `buf` and waits for the reply line; `None`
    /// once the policy has failed (why is recorded, blaming `blame`).
    fn ask(&mut self, blame: &Blame) -> Option<String> {
        let blame = *blame;
        let p = self.proc.as_mut()?;
        let reply = p.ask(&self.buf, self.timeout, self.protocol == 1);
        let what = match reply {
            Ok(r) => return Some(r),
            Err(AskError::NoReply(NoReply::Timeout)) => format!(
                "no reply within {} (scheduler.external.timeout); the process was killed",
                crate::units::fmt_secs(self.timeout.as_millis() as Ms)
            ),
            Err(AskError::NoReply(NoReply::Exited(how))) => format!("{how} before replying"),
            Err(AskError::TooLong) => {
                "a reply line longer than 64 MB; the process was killed".into()
            }
            Err(AskError::Unasked(line)) => format!(
                "it wrote a line nobody asked for (only heartbeats get a reply; log to stderr): {}",
                protocol::clip(&line)
            ),
        };
        self.fail(Some(blame), what);
        None
    }

    /// Sends the line in `buf` (no reply expected).
    fn tell(&mut self) {
        self.sent += 1;
        if let Some(p) = self.proc.as_mut() {
            // A closed pipe shows at the next heartbeat, which names it.
            let _ = p.send(&self.buf);
        }
    }

    fn heard(&self, j: JobId) -> Heard {
        self.heard
            .get(j as usize)
            .copied()
            .unwrap_or(Heard::Nothing)
    }

    fn set_heard(&mut self, j: JobId, h: Heard) {
        let j = j as usize;
        if self.heard.len() <= j {
            self.heard.resize(j + 1, Heard::Nothing);
        }
        self.heard[j] = h;
    }

    fn announce(&mut self, w: RunView<'_>, j: JobId) {
        if self.heard(j) != Heard::Nothing {
            return;
        }
        self.set_heard(j, Heard::Announced);
        if self.protocol == 1 {
            protocol::job_submitted(&mut self.buf, w, j, false);
        } else {
            let am = self.am();
            v2::job_submitted(&mut self.buf, w, j, am);
        }
        self.tell();
    }

    /// Under `"am":"policy"`, announces the jobs whose ApplicationMaster
    /// waits for a container and that the policy has not heard of, by id.
    /// The engine tells a policy of a job once its tasks are schedulable;
    /// these are told at the first heartbeat after their submission,
    /// before any decision could place them.
    fn announce_awaiting_am(&mut self, w: RunView<'_>) {
        if self.am() != v2::AmMode::Policy {
            return;
        }
        for &j in w.awaiting_am() {
            if self.heard(j) == Heard::Nothing {
                self.announce(w, j);
            }
        }
    }

    /// Announces the held-back jobs that have become runnable.
    fn release_held(&mut self, w: RunView<'_>) {
        if self.held.is_empty() {
            return;
        }
        let held = std::mem::take(&mut self.held);
        for &j in &held {
            let job = w.job(j);
            if job.is_done() {
                continue;
            }
            if self.announceable(w, j) {
                self.announce(w, j);
            } else {
                self.held.push(j);
            }
        }
    }

    /// A notification about attempt `a`, if the policy knows its job.
    fn tell_attempt(&mut self, w: RunView<'_>, a: AttemptId, outcome: &str) {
        if !self.ready(w) {
            return;
        }
        let at = &w.attempts()[a as usize];
        if self.heard(at.job) != Heard::Announced {
            return;
        }
        if self.protocol == 1 {
            protocol::task_finished(&mut self.buf, w, a, outcome);
        } else {
            v2::task_finished(&mut self.buf, w, a, outcome);
        }
        self.tell();
    }

    /// The runnable jobs the policy was told of and that have not
    /// finished (under `"am":"policy"`, with those whose AM waits), by id.
    fn known_jobs(&self, w: RunView<'_>) -> Vec<JobId> {
        let waiting: &[JobId] = if self.am() == v2::AmMode::Policy {
            w.awaiting_am()
        } else {
            &[]
        };
        let mut out: Vec<JobId> = w
            .active()
            .iter()
            .chain(waiting)
            .copied()
            .filter(|&j| self.heard(j) == Heard::Announced)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Under `"wake":"work"`, whether heartbeat `hb` goes unasked: no
    /// `call_me_at` is due and the node's free capacity fits no pending
    /// ask of a job the policy knows. The engine then answers it itself,
    /// with an empty reply.
    fn unasked(&mut self, hb: &Heartbeat<'_>) -> bool {
        if self.hello.as_ref().is_none_or(|h| h.wake != v2::Wake::Work) {
            return false;
        }
        if self.call_me_at.is_some_and(|t| hb.view().now() >= t) {
            self.call_me_at = None;
            return false;
        }
        let heard = &self.heard;
        let known = |j: JobId| heard.get(j as usize) == Some(&Heard::Announced);
        !v2::work_here(hb, known, self.am())
    }

    fn heartbeat_inner(&mut self, hb: &mut Heartbeat<'_>) {
        let t0 = Instant::now();
        let now = hb.view().now();
        if self.protocol == 2 && self.unasked(hb) {
            if hb.inspecting {
                self.inspection = Inspection::default();
            }
            if hb.capacity().app_masters() && self.am() == v2::AmMode::Engine {
                v2::start_app_masters(hb, None);
            }
            if let Some(s) = self.stats.as_mut() {
                s.unasked(t0.elapsed());
            }
            return;
        }
        if self.protocol == 1 {
            protocol::heartbeat(&mut self.buf, hb);
        } else {
            self.seq += 1;
            let known = if hb.capacity().app_masters() {
                self.known_jobs(hb.view())
            } else {
                Vec::new()
            };
            let am = self.am();
            v2::heartbeat(&mut self.buf, hb, self.seq, &known, am);
        }
        self.sent += 1;
        let b = Blame {
            message: self.sent,
            what: "heartbeat",
            at: now,
        };
        let t1 = Instant::now();
        let Some(reply) = self.ask(&b) else { return };
        let t2 = Instant::now();
        let heard = &self.heard;
        let known = |j: JobId| heard.get(j as usize) == Some(&Heard::Announced);
        let am = self.am();
        let applied = if self.protocol == 1 {
            protocol::apply(&reply, hb, self.slowstart, known).map(|inspection| v2::Applied {
                inspection,
                call_me_at: None,
            })
        } else {
            v2::apply(&reply, self.seq, hb, self.slowstart, am, known)
        };
        match applied {
            Ok(a) => {
                if let Some(ins) = a.inspection {
                    self.inspection = ins;
                } else if hb.inspecting {
                    self.inspection = Inspection::default();
                }
                if let Some(t) = a.call_me_at {
                    self.call_me_at = Some(self.call_me_at.map_or(t, |c| c.min(t)));
                }
            }
            Err(what) => return self.fail(Some(b), what.to_string()),
        }
        if hb.capacity().app_masters() && am == v2::AmMode::Engine {
            v2::start_app_masters(hb, None);
        }
        if let Some(s) = self.stats.as_mut() {
            s.add(t1 - t0 + t2.elapsed(), t2 - t1);
        }
    }

    /// Protocol 2: tells of a start or an end of an attempt or job task.
    fn tell_v2(&mut self, w: RunView<'_>, write: impl FnOnce(&mut Vec<u8>, RunView<'_>)) {
        if self.protocol == 1 || !self.ready(w) {
            return;
        }
        write(&mut self.buf, w);
        self.tell();
    }
}

impl Policy for External {
    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn end(&mut self, w: RunView<'_>, why: EndReason) {
        self.now = self.now.max(w.now());
        if let Some(p) = self.proc.as_mut() {
            if self.fault.is_none() && !self.ended {
                let why = (self.protocol >= 2).then_some(why.as_str());
                p.finish(&protocol::end_line(self.now, why), self.timeout);
            }
        }
        self.ended = true;
    }

    fn adopt(&mut self, w: RunView<'_>) {
        if !self.ready(w) {
            return;
        }
        for &j in w.active() {
            self.announce(w, j);
        }
        self.announce_awaiting_am(w);
        self.held.extend(w.waiting().iter().copied());
        if self.protocol == 2 {
            // What runs already, as if it had just started.
            for &t in w.running_job_tasks() {
                self.tell_v2(w, |buf, w| v2::job_task_started(buf, w, t));
            }
            for a in v2::running_attempts(w) {
                self.tell_v2(w, |buf, w| v2::task_started(buf, w, a));
            }
        }
    }

    fn asks_when_full(&self) -> bool {
        self.protocol == 2
    }

    fn hears_starts(&self) -> bool {
        self.protocol == 2
    }

    fn record(&self) -> Option<Values> {
        let mut v = Values::new();
        v.insert("label", self.label.as_str());
        v.insert("protocol", self.protocol);
        v.insert("name", self.hello.as_ref().map(|h| h.name.clone()));
        v.insert("version", self.hello.as_ref().map(|h| h.version.clone()));
        v.insert("script", self.script.as_ref().map(|s| s.path.clone()));
        v.insert(
            "script_sha256",
            self.script.as_ref().map(|s| s.sha256.clone()),
        );
        if !self.files.is_empty() {
            let files = self
                .files
                .iter()
                .map(|f| {
                    let mut e = Values::new();
                    e.insert("path", f.path.as_str());
                    e.insert("sha256", f.sha256.as_str());
                    crate::sim::policy::Value::Map(e)
                })
                .collect();
            v.insert("files", crate::sim::policy::Value::List(files));
        }
        if let Some(h) = self.hello.as_ref() {
            if h.wake != v2::Wake::Every {
                v.insert("wake", "work");
            }
            if h.am != v2::AmMode::Engine {
                v.insert("am", "policy");
            }
        }
        Some(v)
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        if !self.ready(hb.view()) {
            return;
        }
        self.release_held(hb.view());
        self.announce_awaiting_am(hb.view());
        self.heartbeat_inner(hb);
    }

    fn fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }

    fn hear(&mut self, w: RunView<'_>, e: Event) {
        match e {
            Event::JobArrived(j) => {
                if !self.ready(w) {
                    return;
                }
                if self.announceable(w, j) {
                    self.announce(w, j);
                } else {
                    self.held.push(j);
                }
            }
            Event::TaskFinished(a) => {
                self.tell_attempt(w, a, "succeeded");
            }
            Event::TaskStopped(a) => {
                let outcome = match w.attempts()[a as usize].outcome {
                    crate::sim::Outcome::Failed => "failed",
                    _ => "killed",
                };
                self.tell_attempt(w, a, outcome);
            }
            Event::MapLost(a) => {
                self.tell_attempt(w, a, "lost");
            }
            Event::JobFinished(j) => {
                if !self.ready(w) || self.heard(j) != Heard::Announced {
                    return;
                }
                self.set_heard(j, Heard::Finished);
                protocol::job_finished(&mut self.buf, w, j);
                self.tell();
                self.release_held(w);
            }
            Event::JobUpdated(j) => {
                if !self.ready(w) {
                    return;
                }
                if self.heard(j) == Heard::Announced {
                    protocol::job_updated(&mut self.buf, w, j);
                    self.tell();
                }
                self.release_held(w);
            }
            Event::NodeChanged { node, alive } => {
                if !self.ready(w) {
                    return;
                }
                protocol::node_changed(&mut self.buf, w, node, alive);
                self.tell();
            }
            Event::TaskStarted(a) => {
                self.tell_v2(w, |buf, w| v2::task_started(buf, w, a));
            }
            Event::JobTaskStarted(t) => {
                self.tell_v2(w, |buf, w| v2::job_task_started(buf, w, t));
            }
            Event::JobTaskEnded(t) => {
                self.tell_v2(w, |buf, w| v2::job_task_finished(buf, w, t));
            }
        }
    }
}

impl Show for External {
    fn inspect(&self, _w: RunView<'_>, _node: NodeId) -> Inspection {
        self.inspection.clone()
    }

    fn inspects_with_decisions(&self) -> bool {
        true
    }

    fn said(&mut self, out: &mut Vec<String>) {
        if let Some(p) = &self.proc {
            p.take_new_stderr(out);
        }
    }
}

impl Drop for External {
    fn drop(&mut self) {
        if let Some(s) = self.stats.as_ref().filter(|_| self.started) {
            s.report(&self.label);
        }
        if let Some(p) = self.proc.as_mut() {
            if self.fault.is_none() && !self.ended {
                // Dropped without being told why (a run that stopped on
                // its own, a session quit): a protocol-2 policy hears it
                // stopped.
                let why = (self.protocol >= 2).then_some(EndReason::Stopped.as_str());
                p.finish(&protocol::end_line(self.now, why), self.timeout);
            }
        }
    }
}
