//! What the policy is to hear of, queued as the engine makes it happen and
//! told after each event (`Sim::after_event`), in the order it happened.
//!
//! A policy hears of every arrival and end of the run's jobs and attempts
//! ([`super::policy::Event`]). The engine's lifecycle code posts them here
//! as they happen, inside one event; the run then takes them all at once
//! ([`Inbox::drain`]) and tells the policy, which reads the run as the
//! event left it. A job's finish is told right after its last attempt's
//! success when it finished with it, else after the successes (a clean-up
//! task or a commit ended it).
//!
//! Starts are posted only for a policy that hears of them
//! ([`super::policy::Policy::hears_starts`]): one in another process that
//! keeps its own books; the built-in policies do not, and a run of
//! millions of attempts posts none.

use super::event::Event;
use super::job::AttemptId;
use crate::model::{JobId, NodeId};

/// Something the policy is to hear of besides successes and job ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum News {
    /// An attempt failed or was killed.
    Stopped(AttemptId),
    /// The attempt that had finished a map lost its output with its node:
    /// the map is pending again.
    Lost(AttemptId),
    /// A node died (`false`) or came back.
    Node(NodeId, bool),
    /// An attempt started.
    Started(AttemptId),
    /// A set-up, clean-up or ApplicationMaster task started, or ended (an
    /// index into the run's job tasks).
    JobTaskStarted(u32),
    JobTaskEnded(u32),
}

#[derive(Clone, Debug, Default)]
pub struct Inbox {
    news: Vec<News>,
    /// Attempts that succeeded, in order.
    succeeded: Vec<AttemptId>,
    /// Jobs finished (heard of before), in order.
    finished: Vec<JobId>,
    /// Jobs the policy is to hear of ([`Event::JobArrived`]).
    arrivals: Vec<JobId>,
    /// Jobs done whose attempt records are to go once the policy has heard
    /// of them (a run that drops records).
    releases: Vec<JobId>,
    /// Whether the policy in force hears of starts.
    starts: bool,
}

impl Inbox {
    /// Whether starts are posted from now on (the policy that came in
    /// hears of them or not).
    #[inline]
    pub fn hear_starts(&mut self, on: bool) {
        self.starts = on;
    }

    #[inline]
    pub fn started(&mut self, a: AttemptId) {
        if self.starts {
            self.news.push(News::Started(a));
        }
    }

    #[inline]
    pub fn job_task_started(&mut self, t: u32) {
        if self.starts {
            self.news.push(News::JobTaskStarted(t));
        }
    }

    #[inline]
    pub fn job_task_ended(&mut self, t: u32) {
        if self.starts {
            self.news.push(News::JobTaskEnded(t));
        }
    }

    /// Attempt `a` failed or was killed.
    #[inline]
    pub fn stopped(&mut self, a: AttemptId) {
        self.news.push(News::Stopped(a));
    }

    /// The map output attempt `a` had made was lost with its node.
    #[inline]
    pub fn lost(&mut self, a: AttemptId) {
        self.news.push(News::Lost(a));
    }

    /// Node `n` died or came back.
    #[inline]
    pub fn node(&mut self, n: NodeId, alive: bool) {
        self.news.push(News::Node(n, alive));
    }

    #[inline]
    pub fn succeeded(&mut self, a: AttemptId) {
        self.succeeded.push(a);
    }

    /// Job `j` is done: the policy hears of it if it heard of its arrival.
    /// A job not announced yet is forgotten instead: the policy never
    /// hears of it.
    #[inline]
    pub fn finished(&mut self, j: JobId, heard: bool) {
        if self.arrivals.contains(&j) {
            self.arrivals.retain(|&x| x != j);
        } else if heard {
            self.finished.push(j);
        }
    }

    /// Job `j` is to be announced to the policy.
    #[inline]
    pub fn arrived(&mut self, j: JobId) {
        self.arrivals.push(j);
    }

    /// The jobs to announce now, oldest first, into `out`.
    #[inline]
    pub fn take_arrivals(&mut self, out: &mut Vec<Event>) {
        out.extend(self.arrivals.drain(..).map(Event::JobArrived));
    }

    /// Job `j`'s attempt records may go once the policy has heard of it.
    #[inline]
    pub fn release(&mut self, j: JobId) {
        self.releases.push(j);
    }

    /// A job whose records may go now.
    #[inline]
    pub fn take_release(&mut self) -> Option<JobId> {
        self.releases.pop()
    }

    /// Nothing to hear of but arrivals (and records to release).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.news.is_empty() && self.succeeded.is_empty() && self.finished.is_empty()
    }

    /// Everything the policy is to hear of since it last heard, in order,
    /// into `out`: the news, then each success, each followed by its job's
    /// finish where the job finished with it, then the other finishes.
    #[inline]
    pub fn drain(&mut self, out: &mut Vec<Event>, job_of: impl Fn(AttemptId) -> JobId) {
        if self.is_empty() {
            return;
        }
        out.extend(self.news.drain(..).map(|n| match n {
            News::Stopped(a) => Event::TaskStopped(a),
            News::Lost(a) => Event::MapLost(a),
            News::Node(node, alive) => Event::NodeChanged { node, alive },
            News::Started(a) => Event::TaskStarted(a),
            News::JobTaskStarted(t) => Event::JobTaskStarted(t),
            News::JobTaskEnded(t) => Event::JobTaskEnded(t),
        }));
        for a in self.succeeded.drain(..) {
            out.push(Event::TaskFinished(a));
            let job = job_of(a);
            if let Some(k) = self.finished.iter().position(|&j| j == job) {
                self.finished.remove(k);
                out.push(Event::JobFinished(job));
            }
        }
        out.extend(self.finished.drain(..).map(Event::JobFinished));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finish_follows_its_last_success_and_the_rest_come_after() {
        let mut i = Inbox::default();
        i.stopped(4);
        i.started(5); // not heard: starts are off
        i.finished(7, true);
        i.finished(8, true);
        i.succeeded(1);
        i.succeeded(2);
        let mut out = Vec::new();
        i.drain(&mut out, |a| if a == 2 { 8 } else { 3 });
        assert_eq!(
            out,
            vec![
                Event::TaskStopped(4),
                Event::TaskFinished(1),
                Event::TaskFinished(2),
                Event::JobFinished(8),
                Event::JobFinished(7),
            ]
        );
        out.clear();
        i.drain(&mut out, |_| 0);
        assert!(out.is_empty(), "each is heard once");
    }

    #[test]
    fn a_job_that_ends_before_it_is_announced_is_never_heard_of() {
        let mut i = Inbox::default();
        i.arrived(3);
        i.finished(3, true);
        let mut out = Vec::new();
        i.take_arrivals(&mut out);
        i.drain(&mut out, |_| 0);
        assert!(out.is_empty());
        i.hear_starts(true);
        i.started(9);
        i.drain(&mut out, |_| 0);
        assert_eq!(out, vec![Event::TaskStarted(9)]);
    }
}
