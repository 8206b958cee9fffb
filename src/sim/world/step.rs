//! The engine's side of a run's loop (`Sim` holds the policy's): loading a
//! scenario into the calendar, taking the next event (a flow's end or a
//! calendar entry) and doing what is the engine's in it, settling the
//! network's rates between instants, and the first and last steps of a
//! node's heartbeat.
//!
//! What an event asks of the policy or the script comes back to the run
//! as a [`Then`]: the run asks the policy (a heartbeat, an AM's headroom),
//! runs the script's entry, or tells the policy of new jobs.

use super::{Notable, World};
use crate::model::{JobId, Ms, NodeId, Scenario};
use crate::sim::calendar::Ev;
use crate::sim::error::SimError;
use crate::sim::job::{AttemptId, Kind};
use crate::sim::jobtask::JobTaskKind;
use crate::sim::policy::Headroom;
use crate::sim::script::Script;

/// What an event leaves for the run to do.
pub(in crate::sim) enum Then {
    Nothing,
    /// Tell the policy of the jobs it is to hear of.
    Announce,
    /// Run the script's entry.
    Script(u32),
    /// Job `j`'s ApplicationMaster calls allocate: ask the policy for its
    /// headroom, then [`World::am_allocate`].
    AmHeartbeat(JobId),
    /// Node `n` heartbeats: [`World::heartbeat_asks`], then the policy.
    Heartbeat(NodeId),
}

impl World {
    /// Puts the scenario's jobs, script, failures and heartbeats in the
    /// calendar.
    pub(in crate::sim) fn load(&mut self, sc: &Scenario, script: &Script) -> Result<(), SimError> {
        for spec in &sc.jobs {
            let id = self.add_job(spec).map_err(|e| SimError::Job {
                job: spec.name.clone(),
                source: Box::new(e),
            })?;
            // A replayed job's recorded start-up (its AM's, its
            // initialisation): it arrives, runnable, that much later.
            // Under ApplicationMasters it is its AM's start-up instead
            // (docs/yarn.md).
            let prep = spec
                .recorded
                .as_ref()
                .filter(|_| sc.tasks.am.is_none())
                .map_or(0, |r| r.prep_ms);
            self.schedule(spec.submit.saturating_add(prep), Ev::JobArrival(id));
        }
        for (i, e) in script.events().iter().enumerate() {
            self.schedule(e.at, Ev::Scripted(i as u32));
        }
        if let Some(f) = sc.failures {
            self.failures = Some((f, vec![0; self.cluster.nodes.len()]));
            for n in 0..self.cluster.nodes.len() as NodeId {
                self.schedule_failure(n, false);
            }
        }
        if let Some(hb) = sc.cluster.heartbeat {
            let n = self.cluster.nodes.len() as u64;
            for i in 0..n {
                self.schedule(
                    ((hb as u128 * i as u128) / n as u128) as Ms,
                    Ev::Heartbeat {
                        node: i as NodeId,
                        periodic: true,
                    },
                );
            }
        }
        Ok(())
    }

    /// Entry `i` of the script runs at `at`.
    pub(in crate::sim) fn schedule_script(&mut self, at: Ms, i: u32) {
        self.schedule(at, Ev::Scripted(i));
    }

    /// Nothing runs, nothing is due but heartbeats, and two heartbeat
    /// rounds have launched nothing: unfinished jobs can never run (say a
    /// pool capped at zero slots). Periodic heartbeats would go on forever.
    pub(in crate::sim) fn only_goes_round(&self) -> bool {
        let Some(hb) = self.cfg.heartbeat_interval else {
            return false;
        };
        self.cal.others_pending() == 0
            && self.metrics.running == 0
            && self.now.saturating_sub(self.last_progress) > 2 * hb.max(1)
    }

    /// The run stopped because nothing could ever run again.
    pub(in crate::sim) fn mark_stalled(&mut self) {
        self.stalled = true;
    }

    /// The clock moves on to `t` with nothing happening (a run stopped at
    /// `--until`).
    pub(in crate::sim) fn wait_until(&mut self, t: Ms) {
        self.now = self.now.max(t);
    }

    /// The instant of the next event, its rates settled.
    pub(in crate::sim) fn next_event_time(&mut self) -> Option<Ms> {
        self.settle();
        let f = self.net.next_end().map(|x| x.0);
        match (f, self.cal.peek_time()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the next event is a heartbeat (a node's, or `script`'s);
    /// `None` when no event is left.
    pub(in crate::sim) fn next_is_heartbeat(&mut self, script: &Script) -> Option<bool> {
        self.settle();
        if self.next_is_flow()? {
            return Some(false);
        }
        Some(match self.cal.peek()? {
            Ev::Heartbeat { .. } => true,
            Ev::Scripted(i) => script.is_heartbeat(i),
            _ => false,
        })
    }

    /// A heartbeat of a node's is in the calendar.
    pub(in crate::sim) fn holds_heartbeat(&self) -> bool {
        self.cal.holds_heartbeat()
    }

    /// Settles the rates changed at this instant unless another event of
    /// the instant is still to come.
    ///
    /// Flows ending within one millisecond end in the order of their exact
    /// ends, each seeing the rates the ones before it left: a flush comes
    /// between.
    fn settle(&mut self) {
        if self.net.dirty() {
            let now = self.now;
            let next_flow = self.net.next_end().filter(|&(t, _)| t <= now);
            // (A flow the millisecond's own events start or cancel settles
            // the ends before it itself: `Network::start_at`, `stop`.)
            // (Ends earlier in the millisecond are settled before the
            // calendar's events of `now`: the rates they bring may end
            // other flows before `now`, which come first, and the changes
            // those events make apply from `now`, not from the ends.)
            let settle = match next_flow {
                Some((_, f)) => self.net.ends_after_release(f),
                None => {
                    self.net.released_before(now) || self.cal.peek_time().is_none_or(|t| t > now)
                }
            };
            if settle {
                self.net.flush(now);
            }
        }
    }

    /// Settles every rate changed at this instant (a command returns with
    /// its rates settled: the caller may look).
    pub(in crate::sim) fn settle_rates(&mut self) {
        self.net.flush(self.now);
    }

    /// The time and class of the next event: the network's next flow end
    /// comes before a calendar event of the same instant.
    fn next_is_flow(&self) -> Option<bool> {
        match (self.net.next_end(), self.cal.peek_time()) {
            (None, None) => None,
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (Some((tf, _)), Some(tc)) => Some(tf <= tc),
        }
    }

    /// Processes the next event's engine part. Returns its time and what
    /// is left for the run to do, or `None` if no event is left.
    ///
    /// Rate changes made at an instant are settled once, when the run is
    /// about to leave the instant: every event of the instant runs first
    /// (a flow ending now ends now whatever rates the instant's changes
    /// bring, its last byte having arrived).
    pub(in crate::sim) fn step(&mut self) -> Option<(Ms, Then)> {
        // The policy has heard of the jobs done by the last event.
        while let Some(j) = self.inbox.take_release() {
            self.attempts.release_job(j);
        }
        self.settle();
        if self.next_is_flow()? {
            let (t, f) = self.net.next_end()?;
            debug_assert!(t >= self.now, "time went backwards");
            self.now = t;
            self.last_progress = t;
            self.events += 1;
            self.flow_done(f);
            return Some((t, Then::Nothing));
        }
        let (t, ev) = self.cal.pop()?;
        debug_assert!(t >= self.now, "time went backwards");
        self.now = t;
        self.events += 1;
        if ev.moves_on() {
            self.last_progress = t;
        }
        let then = match ev {
            Ev::CpuDone { node, gen } => {
                self.cpu_done(node, gen);
                Then::Nothing
            }
            Ev::PhaseEnd(a) => {
                self.timer_done(a);
                Then::Nothing
            }
            Ev::JobArrival(j) => {
                self.arrive(j);
                Then::Announce
            }
            Ev::Scripted(i) => Then::Script(i),
            Ev::JobCommitted(j) => {
                self.job_committed(j);
                Then::Nothing
            }
            Ev::AmHeartbeat(j) => Then::AmHeartbeat(j),
            Ev::JobTaskEnd(t) => {
                self.job_task_done(t);
                Then::Announce
            }
            Ev::Failure { node, up } => {
                if up {
                    self.recover_node(node);
                } else {
                    self.fail_node(node);
                }
                self.schedule_failure(node, !up);
                Then::Nothing
            }
            Ev::Heartbeat { node, periodic } => {
                if periodic {
                    if let Some(hb) = self.cfg.heartbeat_interval {
                        let next = self.next_heartbeat(t, hb.max(1));
                        self.schedule(
                            next,
                            Ev::Heartbeat {
                                node,
                                periodic: true,
                            },
                        );
                    }
                } else {
                    self.cluster.nodes[node as usize].oob_pending = false;
                }
                Then::Heartbeat(node)
            }
        };
        Some((t, then))
    }

    /// Job `j`'s AM calls allocate, the scheduler having answered
    /// `headroom`.
    pub(in crate::sim) fn am_allocate(&mut self, j: JobId, headroom: Headroom) {
        self.am_heartbeat(j, headroom);
    }

    /// Node `n`'s heartbeat, up to the policy: counted; a dead node's asks
    /// nothing; a set-up or clean-up task handed out, nothing else (a
    /// policy places ApplicationMasters: jobs awaiting one are its work).
    /// Returns whether the policy is to be asked.
    pub(in crate::sim) fn heartbeat_asks(&mut self, n: NodeId) -> bool {
        self.heartbeats += 1;
        if !self.cluster.nodes[n as usize].alive {
            return false;
        }
        let ams = !self.queues.awaiting(JobTaskKind::Am).is_empty();
        !(self.hand_out_job_task(n) || (self.queues.active().is_empty() && !ams))
    }

    /// Whether node `n` has room for any task (else a policy that is not
    /// asked on full nodes is not asked).
    pub(in crate::sim) fn node_admits_any(&self, n: NodeId) -> bool {
        self.cluster.nodes[n as usize].admits_any(&self.cluster.capacity)
    }

    /// The label of the policy in force.
    pub(in crate::sim) fn policy_label(&self) -> &str {
        self.records.label()
    }

    /// Each of `assigned` as `--inspect` names it (`job/m3`), with its
    /// rule.
    pub(in crate::sim) fn describe(
        &self,
        assigned: &[AttemptId],
    ) -> (Vec<String>, Vec<&'static str>) {
        let rules = assigned
            .iter()
            .map(|&a| self.rule(&self.attempts[a as usize]))
            .collect();
        let names = assigned
            .iter()
            .map(|&a| {
                let at = &self.attempts[a as usize];
                let p = if at.kind == Kind::Map { 'm' } else { 'r' };
                format!("{}/{}{}", self.jobs[at.job as usize].name, p, at.task)
            })
            .collect();
        (names, rules)
    }

    /// A policy came in at a switch: its label, slowstart and whether it
    /// hears of starts, from now on.
    pub(in crate::sim) fn switched(
        &mut self,
        from: String,
        to: String,
        slowstart: f64,
        hears_starts: bool,
    ) {
        self.note(Notable::Switched {
            from: from.clone(),
            to: to.clone(),
        });
        self.records.switched(self.t_s(), from, to);
        self.cfg.slowstart = slowstart;
        self.inbox.hear_starts(hears_starts);
    }

    /// The submitted, unfinished job named `name`.
    pub(in crate::sim) fn live_job(&self, name: &str) -> Result<JobId, SimError> {
        let job = self
            .jobs
            .iter()
            .find(|j| *j.name == *name && j.arrived)
            .ok_or_else(|| SimError::NoSuchJob(name.to_string()))?;
        if job.is_done() {
            return Err(SimError::JobFinished(name.to_string()));
        }
        Ok(job.id)
    }

    /// The pool named `name`.
    pub(in crate::sim) fn pool_named(&self, name: &str) -> Result<crate::model::PoolId, SimError> {
        self.cfg
            .pools
            .iter()
            .position(|p| p.name == name)
            .map(|p| p as crate::model::PoolId)
            .ok_or_else(|| SimError::UnknownPool(name.to_string()))
    }

    /// Node `n`, if the cluster has it.
    pub(in crate::sim) fn check_node(&self, n: NodeId) -> Result<(), SimError> {
        if (n as usize) < self.cluster.nodes.len() {
            Ok(())
        } else {
            Err(SimError::NoSuchNode(n))
        }
    }

    // --- What the run keeps for its watchers and outputs ---

    /// Keeps no record of a finished job's attempts (before the run
    /// starts).
    pub(in crate::sim) fn drop_attempt_records(&mut self) {
        self.attempts.drop_records();
    }

    /// Keeps a journal from now on.
    pub(in crate::sim) fn keep_journal(&mut self) {
        self.records.keep_journal();
    }

    pub(in crate::sim) fn journal(&self) -> &[(Ms, Notable)] {
        self.records.journal()
    }

    pub(in crate::sim) fn take_journal(&mut self) -> Vec<(Ms, Notable)> {
        self.records.take_journal()
    }

    /// Keeps every flow from now on (before any has started, so the record
    /// is whole).
    pub(in crate::sim) fn record_flows(&mut self) {
        self.flows.record();
    }

    /// A scripted event could not be applied, or a policy said something:
    /// it goes to the journal.
    pub(in crate::sim) fn notable(&mut self, n: Notable) {
        self.note(n);
    }

    /// The instant it stands at.
    pub(in crate::sim) fn now(&self) -> Ms {
        self.now
    }

    /// Every known job has finished.
    pub(in crate::sim) fn all_jobs_done(&self) -> bool {
        self.unfinished == 0
    }

    /// Tells the inbox whether the policy in force hears of starts.
    pub(in crate::sim) fn hear_starts(&mut self, on: bool) {
        self.inbox.hear_starts(on);
    }

    /// Whether the policy has anything to hear of (arrivals apart).
    #[inline]
    pub(in crate::sim) fn has_news(&self) -> bool {
        !self.inbox.is_empty()
    }

    /// What the policy is to hear of now, in order, into `out`.
    pub(in crate::sim) fn take_news(&mut self, out: &mut Vec<crate::sim::policy::Event>) {
        let attempts = &self.attempts;
        self.inbox.drain(out, |a| attempts[a as usize].job);
    }

    /// The jobs the policy is to hear of now, into `out`.
    pub(in crate::sim) fn take_arrivals(&mut self, out: &mut Vec<crate::sim::policy::Event>) {
        self.inbox.take_arrivals(out);
    }

    /// The settings a policy is built with.
    pub(in crate::sim) fn build_ctx(&self) -> crate::sim::policy::BuildCtx {
        crate::sim::policy::BuildCtx {
            heartbeat: self.cfg.heartbeat_interval,
            capacity: self.cluster.capacity,
        }
    }
}
