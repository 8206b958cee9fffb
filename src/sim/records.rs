//! What a run keeps for its outputs and the people watching it: the label
//! of every policy it has had (an attempt names its own by place), the
//! rules policies gave for their launches, the policy switches, and, when
//! a view asks, a journal of what a person would want in a log.

use super::job::{Attempt, AttemptId};
use crate::model::{JobId, Ms, NodeId};

#[derive(Clone, Debug, serde::Serialize)]
pub struct PolicySwitch {
    pub at_s: f64,
    pub from: String,
    pub to: String,
}

/// Something a person watching the run would want in a log.
#[derive(Clone, Debug, PartialEq)]
pub enum Notable {
    Submitted(JobId),
    Finished(JobId),
    /// Killed by a person (`kill_job`).
    Killed(JobId),
    /// Its priority was set (`set_priority`).
    Reprioritized(JobId),
    /// Moved to another pool (`move_job`).
    Moved(JobId),
    Switched {
        from: String,
        to: String,
    },
    /// A speculative copy of a running task started (attempt id).
    Speculated(AttemptId),
    /// A node failed: attempts failed and maps to re-run.
    NodeFailed {
        node: NodeId,
        attempts: u32,
        rerun: u32,
    },
    NodeRecovered(NodeId),
    /// Fair preemption killed this attempt to give its slot to a starved pool.
    Preempted(AttemptId),
    /// A scripted event could not be applied.
    CommandFailed(String),
    /// A line a policy in another process wrote on its stderr (kept when a
    /// terminal shows the run: the TUI).
    PolicySaid(String),
}

#[derive(Clone, Debug)]
pub struct Records {
    /// Every policy's label, in order; `current` the one in force.
    labels: Vec<String>,
    current: u16,
    /// The rules policies gave for their launches, in the order they first
    /// did: an attempt keeps its rule's place here (2 bytes, not a 16-byte
    /// `&str`, on each of millions of attempts).
    rules: Vec<&'static str>,
    switches: Vec<PolicySwitch>,
    /// What a person watching would want to know, in order, with its time,
    /// while the run keeps a journal; taken by the TUI for its log.
    journal: Option<Vec<(Ms, Notable)>>,
}

impl Records {
    /// The records of a run whose first policy is `label`.
    #[inline]
    pub fn new(label: &str) -> Records {
        Records {
            labels: vec![label.to_string()],
            current: 0,
            rules: Vec::new(),
            switches: Vec::new(),
            journal: None,
        }
    }

    #[inline]
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// The policy in force: its place in [`Records::labels`].
    #[inline]
    pub fn current(&self) -> u16 {
        self.current
    }

    /// The label of the policy in force.
    #[inline]
    pub fn label(&self) -> &str {
        &self.labels[self.current as usize]
    }

    /// The rule attempt `at` was launched by.
    #[inline]
    pub fn rule(&self, at: &Attempt) -> &'static str {
        self.rules[at.rule as usize]
    }

    /// `rule`'s place, given one if it has none. Policies name their rules
    /// with a few dozen constants, so a scan is enough.
    #[inline]
    pub fn rule_place(&mut self, rule: &'static str) -> u16 {
        match self.rules.iter().position(|&r| r == rule) {
            Some(i) => i as u16,
            None => {
                self.rules.push(rule);
                (self.rules.len() - 1) as u16
            }
        }
    }

    #[inline]
    pub fn switches(&self) -> &[PolicySwitch] {
        &self.switches
    }

    /// At `at_s`, policy `from` gave way to `to`, in force from now.
    #[inline]
    pub fn switched(&mut self, at_s: f64, from: String, to: String) {
        self.switches.push(PolicySwitch {
            at_s,
            from,
            to: to.clone(),
        });
        self.labels.push(to);
        self.current = (self.labels.len() - 1) as u16;
    }

    /// Keeps a journal from now on.
    #[inline]
    pub fn keep_journal(&mut self) {
        self.journal.get_or_insert_with(Vec::new);
    }

    /// `n` happened at `now`: kept if the run keeps a journal.
    #[inline]
    pub fn note(&mut self, now: Ms, n: Notable) {
        if let Some(j) = self.journal.as_mut() {
            j.push((now, n));
        }
    }

    /// The journal's entries since it was last taken, oldest first.
    #[inline]
    pub fn journal(&self) -> &[(Ms, Notable)] {
        self.journal.as_deref().unwrap_or(&[])
    }

    /// Takes the journal's entries since it was last taken.
    #[inline]
    pub fn take_journal(&mut self) -> Vec<(Ms, Notable)> {
        self.journal
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }
}
