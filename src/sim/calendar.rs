//! The event calendar, and what it counts of what it holds.
//!
//! Heartbeats (and random failures) go on for ever and ApplicationMasters
//! call allocate as long as their jobs run, so a run whose calendar holds
//! nothing else is one that can only go round: the calendar counts the
//! other events it holds, by instant, as they come in and go out, and
//! the run reads the counts to tell when it has stalled
//! ([`Calendar::others_pending`]) and how far an idle heartbeat may skip
//! ([`Calendar::next_other`]). The counts change only in [`Calendar::push`]
//! and [`Calendar::pop`], so they cannot drift from what the heap holds.

use crate::model::{JobId, Ms, NodeId};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// What happens at an instant. (A flow's end is not in the calendar: the
/// network keeps its own ends, and the run takes them first at an instant.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ev {
    /// A node's next compute finish, if `gen` is still the node's.
    CpuDone {
        node: NodeId,
        gen: u32,
    },
    /// An attempt's timed phase ended: its start-up, or a fixed-time task.
    PhaseEnd(u32),
    JobArrival(JobId),
    /// A replayed job's recorded commit ended: it finishes.
    JobCommitted(JobId),
    /// A job's set-up or clean-up task ended (index into `World::job_tasks`).
    JobTaskEnd(u32),
    /// Index into the scenario's `[[events]]`.
    Scripted(u32),
    /// Job `j`'s ApplicationMaster calls allocate (`slot_model = "yarn"`):
    /// like heartbeats, these keep no run alive.
    AmHeartbeat(JobId),
    /// `periodic`: the node's regular heartbeat, which schedules the next one.
    Heartbeat {
        node: NodeId,
        periodic: bool,
    },
    /// A random failure (`up` false) or recovery of a node (`[failures]`):
    /// like heartbeats, they go on for ever and keep no run alive.
    Failure {
        node: NodeId,
        up: bool,
    },
}

impl Ev {
    /// Same-instant class (docs/model.md): completions (compute finishes
    /// by node, then timed phases by attempt; flow ends come before both),
    /// then job arrivals, then scripted events, then heartbeats.
    fn class_and_id(self) -> (u8, u64) {
        match self {
            Ev::CpuDone { node, .. } => (0, node as u64),
            Ev::PhaseEnd(a) => (1, a as u64),
            Ev::JobArrival(j) => (2, j as u64),
            Ev::JobCommitted(j) => (1, 1 << 40 | j as u64),
            Ev::JobTaskEnd(t) => (1, 1 << 41 | t as u64),
            Ev::Scripted(i) => (3, i as u64),
            // After the scripted events of the instant.
            Ev::Failure { node, .. } => (3, 1 << 40 | node as u64),
            // Before the NodeManagers' heartbeats of the instant.
            Ev::AmHeartbeat(j) => (3, 1 << 41 | j as u64),
            Ev::Heartbeat { node, .. } => (4, node as u64),
        }
    }

    /// A completion (of its class or an earlier one at the same instant).
    #[inline]
    pub fn is_completion(self) -> bool {
        matches!(self, Ev::CpuDone { .. } | Ev::PhaseEnd(_))
    }

    /// What the calendar counts it as.
    fn count(self) -> Count {
        match self {
            Ev::AmHeartbeat(_) => Count::AmTick,
            Ev::Heartbeat { .. } | Ev::Failure { .. } => Count::Recurring,
            _ => Count::Other,
        }
    }

    /// Not a heartbeat, a random failure or an AM's allocate call: an
    /// event that moves a run on (a completion, an arrival, a scripted
    /// event).
    #[inline]
    pub fn moves_on(self) -> bool {
        self.count() == Count::Other
    }
}

/// How [`Calendar`] counts an event.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Count {
    /// Heartbeats and random failures: not counted.
    Recurring,
    /// An ApplicationMaster's allocate call.
    AmTick,
    /// Everything else.
    Other,
}

/// A min-heap of events keyed by `(time, class, id, seq)`.
///
/// The key is a total order, so a run is reproducible: events at the same
/// millisecond run completions first (a slot freed at t is free for a
/// heartbeat at t), then arrivals, then scripted events, then heartbeats;
/// inside a class by the id of the thing (attempt, job, event index, node);
/// and `seq`, the insertion counter, keeps insertion order for equal ids
/// (two scripted heartbeats of one node at one instant run as written).
/// `(time, class, id, seq, event)`.
type Entry = (Ms, u8, u64, u64, Ev);

#[derive(Clone, Default)]
pub struct Calendar {
    heap: BinaryHeap<Reverse<Entry>>,
    seq: u64,
    /// Events held that move a run on ([`Ev::moves_on`]), and their times
    /// (a multiset).
    others: usize,
    other_times: BTreeMap<Ms, u32>,
    /// ApplicationMasters' allocate calls held.
    am_ticks: usize,
}

impl Calendar {
    #[inline]
    pub fn push(&mut self, at: Ms, ev: Ev) {
        match ev.count() {
            Count::AmTick => self.am_ticks += 1,
            Count::Other => {
                self.others += 1;
                *self.other_times.entry(at).or_insert(0) += 1;
            }
            Count::Recurring => {}
        }
        let (class, id) = ev.class_and_id();
        self.seq += 1;
        self.heap.push(Reverse((at, class, id, self.seq, ev)));
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Ms, Ev)> {
        let Reverse((t, _, _, _, ev)) = self.heap.pop()?;
        match ev.count() {
            Count::AmTick => self.am_ticks -= 1,
            Count::Other => {
                self.others -= 1;
                if let Some(c) = self.other_times.get_mut(&t) {
                    *c -= 1;
                    if *c == 0 {
                        self.other_times.remove(&t);
                    }
                }
            }
            Count::Recurring => {}
        }
        Some((t, ev))
    }

    /// How many events held move a run on: none, and nothing running,
    /// means only heartbeats are left.
    #[inline]
    pub fn others_pending(&self) -> usize {
        self.others
    }

    /// The earliest instant of an event that moves a run on.
    #[inline]
    pub fn next_other(&self) -> Option<Ms> {
        self.other_times.keys().next().copied()
    }

    /// Whether a node's heartbeat is held.
    #[inline]
    pub fn holds_heartbeat(&self) -> bool {
        self.heap.len() > self.others + self.am_ticks
    }

    #[inline]
    pub fn peek(&self) -> Option<Ev> {
        self.heap.peek().map(|Reverse((.., ev))| *ev)
    }

    #[inline]
    pub fn peek_time(&self) -> Option<Ms> {
        self.heap.peek().map(|Reverse((t, ..))| *t)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_what_is_held() {
        let mut c = Calendar::default();
        let hb = Ev::Heartbeat {
            node: 0,
            periodic: true,
        };
        c.push(9, hb);
        c.push(7, Ev::AmHeartbeat(1));
        assert_eq!((c.others_pending(), c.next_other()), (0, None));
        assert!(c.holds_heartbeat());
        c.push(8, Ev::PhaseEnd(3));
        c.push(8, Ev::JobArrival(2));
        c.push(12, Ev::Scripted(0));
        assert_eq!((c.others_pending(), c.next_other()), (3, Some(8)));
        assert_eq!(c.pop(), Some((7, Ev::AmHeartbeat(1))));
        c.pop();
        assert_eq!((c.others_pending(), c.next_other()), (2, Some(8)));
        c.pop();
        assert_eq!((c.others_pending(), c.next_other()), (1, Some(12)));
        assert_eq!(c.pop(), Some((9, hb)));
        assert!(!c.holds_heartbeat(), "only the scripted event is left");
        c.pop();
        assert_eq!((c.others_pending(), c.next_other(), c.len()), (0, None, 0));
    }

    #[test]
    fn same_instant_order_is_class_then_id_then_insertion() {
        let mut c = Calendar::default();
        c.push(
            5,
            Ev::Heartbeat {
                node: 1,
                periodic: true,
            },
        );
        c.push(
            5,
            Ev::Heartbeat {
                node: 0,
                periodic: false,
            },
        );
        c.push(5, Ev::Scripted(0));
        c.push(5, Ev::JobArrival(3));
        c.push(5, Ev::PhaseEnd(9));
        c.push(
            4,
            Ev::Heartbeat {
                node: 7,
                periodic: true,
            },
        );
        c.push(
            5,
            Ev::Heartbeat {
                node: 0,
                periodic: true,
            },
        );
        let order: Vec<Ev> = std::iter::from_fn(|| c.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            vec![
                Ev::Heartbeat {
                    node: 7,
                    periodic: true
                },
                Ev::PhaseEnd(9),
                Ev::JobArrival(3),
                Ev::Scripted(0),
                Ev::Heartbeat {
                    node: 0,
                    periodic: false
                },
                Ev::Heartbeat {
                    node: 0,
                    periodic: true
                },
                Ev::Heartbeat {
                    node: 1,
                    periodic: true
                },
            ]
        );
    }
}
