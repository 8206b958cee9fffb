//! A run: the world, the policy driving it, the scenario's script, and the
//! command API through which scripted events and the TUI change it.

pub use super::error::SimError;
use super::policy::{BuildCtx, Built, Event, Inspection, Observer, Policy, PolicyFactory, Values};
use super::script::Script;
use super::world::heartbeat::Heartbeat;
use super::world::step::Then;
use super::world::view::RunView;
use super::world::{Notable, World};
use crate::model::{Action, EventSpec, Ms, NodeId, PolicySpec, Scenario};

/// One `--inspect` line.
#[derive(Clone, Debug)]
pub struct InspectRecord {
    pub t: Ms,
    pub node: NodeId,
    pub policy: String,
    pub inspection: Inspection,
    pub assigned: Vec<String>,
    /// The `rule` of each assignment, in the same order.
    pub rules: Vec<&'static str>,
}

type InspectSink = Box<dyn FnMut(&InspectRecord) + Send>;

/// A run: the world, the policy driving it, and the scenario's script.
pub struct Sim {
    w: World,
    policy: Box<dyn Policy>,
    /// The spec of every policy the run has had, in order: the one it
    /// started with, then each switch's (the current one last).
    specs: Vec<PolicySpec>,
    factory: Box<dyn PolicyFactory>,
    observers: Vec<Box<dyn Observer>>,
    /// The scenario's scripted events, then the session's.
    script: Script,
    pub scenario_name: String,
    /// The resolved scenario, for the summary's `config` (set by whoever
    /// builds the run from a scenario: `sched::build_sim`).
    pub config: serde_json::Value,
    inspect: Option<InspectSink>,
    /// See [`Sim::set_inspect_from`].
    inspect_from: Ms,
    /// Why the policy stopped the run ([`Policy::fault`]), once it has.
    halted: Option<String>,
    /// What the policy is told after an event (kept for its room: empty
    /// between events).
    heard: Vec<Event>,
    /// What the policies switched out said of themselves for the record
    /// ([`Policy::record`]), in order.
    retired: Vec<Values>,
}

/// A run as it stood at one instant, from which it goes on exactly as it
/// did: copies of the world, the policy and the observers, and the script
/// so far. The policy factory and the inspection sink stay with the run.
pub struct Checkpoint {
    w: World,
    policy: Box<dyn Policy>,
    observers: Vec<Box<dyn Observer>>,
    specs: Vec<PolicySpec>,
    script: Script,
    halted: Option<String>,
    retired: Vec<Values>,
}

impl Checkpoint {
    /// The instant it was taken.
    pub fn at(&self) -> Ms {
        self.w.now()
    }

    /// How many scripted events (the scenario's, then the session's) it
    /// holds: those the session scheduled after it are the restorer's to
    /// schedule again.
    pub fn events(&self) -> usize {
        self.script.events().len()
    }

    /// About how many bytes it takes ([`World::footprint`]).
    pub fn bytes(&self) -> usize {
        self.w.footprint()
    }
}

/// What [`Sim::step_heartbeat`] did: the time it reached, and whether it
/// stopped after a heartbeat (else after the one event it processed
/// because no heartbeat was pending).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stepped {
    pub t: Ms,
    pub heartbeat: bool,
}

impl Sim {
    /// Builds a run of `sc` whose policies come from `factory` (the
    /// scenario's policy now, others at each switch). The scenario has
    /// been validated by the loader; errors here are only for scenarios
    /// built by hand (tests, the TUI).
    pub fn new(sc: &Scenario, factory: Box<dyn PolicyFactory>) -> Result<Sim, SimError> {
        let ctx = BuildCtx {
            heartbeat: sc.cluster.heartbeat,
            capacity: sc.cluster.capacity(),
        };
        let Built { policy, label } = factory.build(&sc.policy, &ctx).map_err(SimError::Policy)?;
        let mut w = World::new(sc, policy.slowstart(), &label);
        w.hear_starts(policy.hears_starts());
        let script = Script::new(&sc.events);
        w.load(sc, &script)?;
        Ok(Sim {
            w,
            policy,
            specs: vec![sc.policy.clone()],
            factory,
            observers: Vec::new(),
            script,
            scenario_name: sc.name.clone(),
            config: serde_json::Value::Null,
            inspect: None,
            inspect_from: 0,
            halted: None,
            retired: Vec::new(),
            heard: Vec::new(),
        })
    }

    /// A copy of the run as it stands, to go on from later exactly as it
    /// goes on from here; `None` when the policy or an observer cannot be
    /// copied (a policy in another process). The run's jobs, attempts, job
    /// tasks and flow records are shared with the copy, not copied, until
    /// the run changes them (`sim::share`): a checkpoint of a long run
    /// costs little more than its calendar and its running attempts.
    pub fn checkpoint(&self) -> Option<Checkpoint> {
        let policy = self.policy.snapshot()?;
        let observers = self
            .observers
            .iter()
            .map(|o| o.snapshot())
            .collect::<Option<Vec<_>>>()?;
        Some(Checkpoint {
            w: self.w.clone(),
            policy,
            observers,
            specs: self.specs.clone(),
            script: self.script.clone(),
            halted: self.halted.clone(),
            retired: self.retired.clone(),
        })
    }

    /// Puts the run back where `cp` was taken (a checkpoint of this run),
    /// and returns the run as it was, moved out rather than copied (to be
    /// put back with [`Sim::put_back`]). The session's events scheduled
    /// since `cp` are dropped with the rest: schedule them again
    /// ([`Sim::schedule`]) to replay them. `None`, and the run unchanged,
    /// if the checkpoint's policy or observers cannot be copied again.
    pub fn restore(&mut self, cp: &Checkpoint) -> Option<Checkpoint> {
        let policy = cp.policy.snapshot()?;
        let observers = cp
            .observers
            .iter()
            .map(|o| o.snapshot())
            .collect::<Option<Vec<_>>>()?;
        Some(self.put_back(Checkpoint {
            w: cp.w.clone(),
            policy,
            observers,
            specs: cp.specs.clone(),
            script: cp.script.clone(),
            halted: cp.halted.clone(),
            retired: cp.retired.clone(),
        }))
    }

    /// Puts `cp` in as the run, moved, and returns the run it replaces.
    pub fn put_back(&mut self, cp: Checkpoint) -> Checkpoint {
        Checkpoint {
            w: std::mem::replace(&mut self.w, cp.w),
            policy: std::mem::replace(&mut self.policy, cp.policy),
            observers: std::mem::replace(&mut self.observers, cp.observers),
            specs: std::mem::replace(&mut self.specs, cp.specs),
            script: std::mem::replace(&mut self.script, cp.script),
            halted: std::mem::replace(&mut self.halted, cp.halted),
            retired: std::mem::replace(&mut self.retired, cp.retired),
        }
    }

    /// Keeps a journal of what a person watching the run would want to
    /// know ([`Notable`] events, with their times) from now on, for a
    /// view's log to take ([`Sim::take_journal`]). Off unless asked: a
    /// headless run keeps none.
    /// Keeps no record of a finished job's attempts (a run whose outputs
    /// read none: no trace, no plots, no view): see
    /// [`crate::sim::attempts::Attempts`]. Call before the run starts.
    pub fn drop_attempt_records(&mut self) {
        self.w.drop_attempt_records();
    }

    pub fn keep_journal(&mut self) {
        self.w.keep_journal();
    }

    /// The journal's entries since it was last taken, oldest first.
    pub fn journal(&self) -> &[(Ms, Notable)] {
        self.w.journal()
    }

    /// Takes the journal's entries since it was last taken.
    pub fn take_journal(&mut self) -> Vec<(Ms, Notable)> {
        self.w.take_journal()
    }

    /// Keeps every flow from now on, for `--flows` (before the run starts,
    /// so the record is whole).
    pub fn record_flows(&mut self) {
        self.w.record_flows();
    }

    /// Attaches an observer: it is told after every event and command from
    /// now on (and once now).
    pub fn attach(&mut self, mut o: Box<dyn Observer>) {
        o.observe(self.w.view());
        self.observers.push(o);
    }

    /// Receive one record per heartbeat on which the policy was asked to
    /// assign work (values computed before its assignments).
    pub fn set_inspector(&mut self, sink: InspectSink) {
        self.inspect = Some(sink);
    }

    /// Heartbeats before `t` skip the inspector (the TUI keeps only the
    /// last few hundred records, so at high speed it asks for those only:
    /// building an inspection is O(jobs) per heartbeat).
    pub fn set_inspect_from(&mut self, t: Ms) {
        self.inspect_from = t;
    }

    /// The run as it stands, read-only: what policies, views and reports
    /// read ([`RunView`]).
    pub fn view(&self) -> RunView<'_> {
        self.w.view()
    }

    pub fn policy(&self) -> &dyn Policy {
        self.policy.as_ref()
    }

    /// The label of the policy in force (the spec as written).
    pub fn policy_label(&self) -> &str {
        self.w.policy_label()
    }

    /// The spec of the policy in force.
    pub fn policy_spec(&self) -> &PolicySpec {
        self.specs.last().expect("a run has a policy")
    }

    /// The specs of every policy the run has had, in order.
    pub fn policy_specs(&self) -> &[PolicySpec] {
        &self.specs
    }

    /// What each policy the run has had says of itself for the record
    /// ([`Policy::record`]: a policy in another process's name, version
    /// and script), in the order they ran; those that say nothing are left
    /// out.
    pub fn policy_records(&self) -> Vec<Values> {
        let mut out = self.retired.clone();
        out.extend(self.policy.record());
        out
    }

    /// Why the run stands where it does, if it was asked to go on to
    /// `limit`: every job ended, the jobs left can never run, or it got
    /// there (or was stopped before) with work left.
    pub fn ended_by(&self, limit: Option<Ms>) -> crate::sim::EndReason {
        use crate::sim::EndReason;
        if self.is_finished() {
            EndReason::Finished
        } else if self.w.view().stalled() {
            EndReason::Stalled
        } else if limit.is_some_and(|l| self.w.now() >= l) {
            EndReason::Until
        } else {
            EndReason::Stopped
        }
    }

    /// The run is over: the policy is told why (a policy in another
    /// process hears `end` with its `reason`). Nothing runs after it.
    pub fn end(&mut self, why: crate::sim::EndReason) {
        if self.halted.is_none() {
            self.policy.end(self.w.view(), why);
        }
    }

    /// Why the policy stopped the run, if it did: nothing more happens in
    /// it (the run stands as it was, for partial outputs).
    pub fn halted(&self) -> Option<&str> {
        self.halted.as_deref()
    }

    /// Records the policy's fault, if it has one now.
    fn check_fault(&mut self) {
        if self.halted.is_none() {
            if let Some(f) = self.policy.fault() {
                self.halted = Some(f.to_string());
            }
        }
    }

    /// Every known job has finished and no scripted submission is left.
    pub fn is_finished(&self) -> bool {
        self.w.all_jobs_done() && self.script.submits_pending() == 0
    }

    /// Nothing runs, nothing is due but heartbeats, and two heartbeat
    /// rounds have launched nothing: unfinished jobs can never run.
    fn is_stalled(&self) -> bool {
        self.w.only_goes_round()
    }

    pub fn next_event_time(&mut self) -> Option<Ms> {
        self.w.next_event_time()
    }

    /// The instant of the run's next event, or `None` once it cannot go on:
    /// finished, stopped by its policy, or stalled (then marked so, as
    /// [`Sim::run_until`] marks it). A caller stepping several runs in
    /// lockstep steps the one whose next event is the earliest.
    pub fn next_due(&mut self) -> Option<Ms> {
        if self.is_finished() || self.halted.is_some() {
            return None;
        }
        if self.is_stalled() {
            self.w.mark_stalled();
            return None;
        }
        self.next_event_time()
    }

    /// Moves the clock on to `t` with nothing happening (every event up to
    /// `t` processed already), as [`Sim::run_until`] does at its limit.
    pub fn wait_until(&mut self, t: Ms) {
        self.w.wait_until(t);
    }

    /// Processes every event up to and including `limit` (all if `None`),
    /// stopping early once the run is finished. Returns whether events remain.
    pub fn run_until(&mut self, limit: Option<Ms>) -> bool {
        while !self.is_finished() {
            if self.halted.is_some() {
                return false;
            }
            if self.is_stalled() {
                self.w.mark_stalled();
                return false;
            }
            match self.next_event_time() {
                None => return false,
                Some(t) if limit.is_some_and(|l| t > l) => {
                    if let Some(l) = limit {
                        self.w.wait_until(l);
                    }
                    return true;
                }
                Some(_) => {
                    self.step();
                }
            }
        }
        false
    }

    /// Processes events up to and including the next heartbeat of any kind
    /// (the TUI's `.` key): a periodic or out-of-band heartbeat, or a
    /// scripted `heartbeat` event. When no heartbeat is pending at all
    /// (manual heartbeats once the script's are done) it processes only the
    /// next event, so one call never skips more than one step of the run.
    /// `None` when the run has finished or can never go on.
    pub fn step_heartbeat(&mut self) -> Option<Stepped> {
        if self.is_finished() || self.is_stalled() || self.halted.is_some() {
            return None;
        }
        let any_heartbeat = self.heartbeat_pending();
        loop {
            let heartbeat = self.w.next_is_heartbeat(&self.script)?;
            let t = self.step()?;
            if heartbeat
                || !any_heartbeat
                || self.is_finished()
                || self.is_stalled()
                || self.halted.is_some()
            {
                return Some(Stepped { t, heartbeat });
            }
        }
    }

    /// A heartbeat of any kind is in the calendar.
    fn heartbeat_pending(&self) -> bool {
        self.w.holds_heartbeat() || self.script.heartbeats_pending() > 0
    }

    /// Processes one event. Returns its time, or `None` if none is left.
    pub fn step(&mut self) -> Option<Ms> {
        let (t, then) = self.w.step()?;
        match then {
            Then::Nothing => {}
            Then::Announce => self.announce(),
            Then::Script(i) => {
                let action = self.script.run(i);
                // Validated at load time; a failure here goes to the log,
                // not fatal.
                if let Err(e) = self.command(action) {
                    self.w.notable(Notable::CommandFailed(e.to_string()));
                }
            }
            Then::AmHeartbeat(j) => {
                let headroom = self.policy.headroom(self.w.view(), j);
                self.w.am_allocate(j, headroom);
            }
            Then::Heartbeat(node) => self.heartbeat(node),
        }
        self.after_event();
        Some(t)
    }

    /// Tells the policy of the attempts that succeeded and the jobs that
    /// finished (each job right after its last attempt when it finished
    /// with it, else after them: a clean-up or commit ended), then the
    /// observers.
    fn after_event(&mut self) {
        if self.w.has_news() {
            let mut heard = std::mem::take(&mut self.heard);
            self.w.take_news(&mut heard);
            self.tell(&mut heard);
            self.heard = heard;
        }
        self.check_fault();
        self.observe();
    }

    /// Tells the policy of `events`, in order, and empties it.
    fn tell(&mut self, events: &mut Vec<Event>) {
        for e in events.drain(..) {
            self.policy.hear(self.w.view(), e);
        }
    }

    /// The observers attached to this run, in the order attached.
    pub fn observers(&self) -> &[Box<dyn Observer>] {
        &self.observers
    }

    /// Tells every observer what the world looks like now.
    fn observe(&mut self) {
        for o in &mut self.observers {
            o.observe(self.w.view());
        }
    }

    /// Tells the policy of the jobs it is to hear of now.
    fn announce(&mut self) {
        let mut heard = std::mem::take(&mut self.heard);
        self.w.take_arrivals(&mut heard);
        self.tell(&mut heard);
        self.heard = heard;
    }

    /// One TaskTracker heartbeat. A node with no free slot does not ask for
    /// work (Hadoop's `askForNewTask`), so the policy is not called: O(1);
    /// unless it asks to be ([`Policy::asks_when_full`]).
    fn heartbeat(&mut self, node: NodeId) {
        if !self.w.heartbeat_asks(node) {
            return;
        }
        let mut hb = Heartbeat::new(&mut self.w, node, false);
        self.policy.maintain(&mut hb);
        if !self.w.node_admits_any(node) && !self.policy.asks_when_full() {
            return;
        }
        let inspecting = self.inspect.is_some() && self.w.now() >= self.inspect_from;
        let after = self.policy.inspects_with_decisions();
        let mut inspection =
            (inspecting && !after).then(|| self.policy.inspect(self.w.view(), node));
        let mut hb = Heartbeat::new(&mut self.w, node, inspecting);
        self.policy.heartbeat(&mut hb);
        let mut assigned = hb.assigned;
        if inspecting && after {
            inspection = Some(self.policy.inspect(self.w.view(), node));
        }
        self.check_fault();
        let mut said = Vec::new();
        self.policy.said(&mut said);
        for line in said {
            self.w.notable(Notable::PolicySaid(line));
        }
        if !self.policy.speculates() {
            self.w.speculate(node, &mut assigned);
        }
        if let (Some(sink), Some(inspection)) = (self.inspect.as_mut(), inspection) {
            let (names, rules) = self.w.describe(&assigned);
            let rec = InspectRecord {
                t: self.w.now(),
                node,
                policy: self.w.policy_label().to_string(),
                inspection,
                rules,
                assigned: names,
            };
            sink(&rec);
        }
    }

    /// The command API: scripted events and the TUI change a run only here.
    /// Schedules `action` as a scripted event at `at` (at least the next
    /// millisecond: the events of the current one may have run), exactly as
    /// a scenario's `[[events]]` entry appended to its own would be, and
    /// returns its time. A session's submissions, switches and failures go
    /// this way, so the scenario [`Sim::session_events`] extends replays
    /// the session event for event.
    pub fn schedule(&mut self, at: Ms, action: Action) -> Ms {
        let at = at.max(self.w.now() + 1);
        let i = self.script.push(at, action);
        self.w.schedule_script(at, i);
        at
    }

    /// Every scripted event: the scenario's, then the session's.
    pub fn scripted_events(&self) -> &[EventSpec] {
        self.script.events()
    }

    /// The events scheduled during the run ([`Sim::schedule`]), in order.
    pub fn session_events(&self) -> &[EventSpec] {
        self.script.session()
    }

    /// Settles the network's rates changed at this instant, as a command
    /// does before it returns (a benchmark that times a heartbeat alone).
    pub fn settle_rates(&mut self) {
        self.w.settle_rates();
    }

    pub fn command(&mut self, cmd: Action) -> Result<(), SimError> {
        let r = self.apply(cmd);
        self.after_event();
        // Rates are settled when a command returns: the caller may look.
        self.w.settle_rates();
        r
    }

    fn apply(&mut self, cmd: Action) -> Result<(), SimError> {
        match cmd {
            Action::Heartbeat(n) => {
                self.w.check_node(n)?;
                self.heartbeat(n);
            }
            Action::FailNode(n) => {
                self.w.check_node(n)?;
                self.w.fail_node(n);
            }
            Action::RecoverNode(n) => {
                self.w.check_node(n)?;
                self.w.recover_node(n);
            }
            Action::Submit(mut spec) => {
                spec.submit = self.w.now();
                let id = self.w.add_job(&spec)?;
                // Arrives at once: the submitter sees it in the queue now.
                self.w.arrive(id);
                self.announce();
            }
            Action::KillJob(name) => {
                let j = self.w.live_job(&name)?;
                self.w.kill_job(j);
            }
            Action::SetPriority(name, p) => {
                let j = self.w.live_job(&name)?;
                self.w.set_priority(j, p);
                self.policy.hear(self.w.view(), Event::JobUpdated(j));
            }
            Action::MoveJob(name, pool) => {
                let j = self.w.live_job(&name)?;
                let to = self.w.pool_named(&pool)?;
                self.w.move_job(j, to);
                self.policy.hear(self.w.view(), Event::JobUpdated(j));
            }
            Action::SwitchPolicy(spec) => {
                let ctx = self.w.build_ctx();
                let Built {
                    policy: mut p,
                    label: to,
                } = self.factory.build(&spec, &ctx).map_err(SimError::Policy)?;
                p.adopt(self.w.view());
                let from = self.w.policy_label().to_string();
                self.w.switched(from, to, p.slowstart(), p.hears_starts());
                let old = std::mem::replace(&mut self.policy, p);
                self.retired.extend(old.record());
                self.specs.push(spec);
            }
        }
        Ok(())
    }
}
