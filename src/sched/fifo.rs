//! `fifo`: Hadoop 1.x JobQueueTaskScheduler, heartbeat by heartbeat.
//!
//! Speculative copies are found where Hadoop finds them, inside each job's
//! lookup in queue order: `obtainNewNonLocalMapTask` ends with the job's
//! speculative map, which counts as the heartbeat's one off-rack map, and
//! `obtainNewReduceTask` ends with its speculative reduce. So the head
//! job's straggler copy takes a slot before the next job's pending task.

use super::registry::{Entry, DEFAULT_SLOWSTART};
use super::settings::{ConfigError, Settings};
use crate::model::Models;
use crate::model::{JobId, NodeId};
use crate::sim::policy::{num, Inspection, Policy, Show, Values};
use crate::sim::{Heartbeat, Kind, Locality, RunView};

/// `[scheduler.fifo]`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub slowstart: Option<f64>,
    /// JobQueueTaskScheduler's `mapred.jobtracker.taskalloc.capacitypad` (0.01).
    pub capacity_pad: Option<f64>,
}

pub const FIFO: Entry = Entry {
    name: "fifo",
    summary: "Hadoop 1.x JobQueueTaskScheduler: priority then submit order, load-factor cap, one off-rack map and one reduce per heartbeat",
    source: "Hadoop 1.0.3 JobQueueTaskScheduler (TestJobQueueTaskScheduler)",
    runs_on: Models::SLOTS,
    meant_for: Models::SLOTS,
    build: |s, _| Ok(Box::new(Fifo::build(s)?)),
    check: None,
};

/// Hadoop's `MIN_CLUSTER_SIZE_FOR_PADDING`.
const MIN_CLUSTER_SIZE_FOR_PADDING: usize = 3;

#[derive(Clone)]
pub struct Fifo {
    slowstart: f64,
    pad: f64,
}

impl Fifo {
    fn build(s: &Settings) -> Result<Fifo, ConfigError> {
        let own: Config = s.own()?;
        super::settings::fraction("scheduler.fifo.capacity_pad", own.capacity_pad)?;
        Ok(Fifo {
            slowstart: s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?,
            pad: own.capacity_pad.unwrap_or(0.01),
        })
    }
}

/// Job queue order: priority (very_high first), then submit time, then id.
pub fn queue_order(w: RunView<'_>) -> Vec<JobId> {
    let mut q = w.active().to_vec();
    q.sort_by_key(|&j| (w.job(j).priority, w.job(j).submit, j));
    q
}

/// Per-node slots of a kind and how many of that kind run there. On
/// unified clusters each kind's cap is taken over all the node's containers
/// (and the launch is bounded by the free ones); counting the other kind's
/// tasks against it would let running reduces lock out their own maps.
fn node_slots(w: RunView<'_>, node: NodeId, map: bool) -> (u32, u32) {
    let n = w.node(node);
    let running = if map {
        n.running_maps
    } else {
        n.running_reduces
    };
    if w.capacity().kinds_share() {
        (n.map_slots + n.reduce_slots, running)
    } else if map {
        (n.map_slots, running)
    } else {
        (n.reduce_slots, running)
    }
}

fn cluster_slots(w: RunView<'_>, map: bool) -> u32 {
    if w.capacity().kinds_share() {
        w.cluster().total_slots()
    } else if map {
        w.cluster().total_map_slots
    } else {
        w.cluster().total_reduce_slots
    }
}

impl Fifo {
    /// `exceededPadding`: beyond the first job, leave a little room for
    /// failures and speculation. Counts only jobs with reduces, as Hadoop does.
    fn exceeded_padding(
        &self,
        w: RunView<'_>,
        queue: &[JobId],
        map: bool,
        tracker_slots: u32,
    ) -> bool {
        let total_tasks: u32 = w
            .pool_stats()
            .iter()
            .map(|p| {
                if map {
                    p.running_maps
                } else {
                    p.running_reduces
                }
            })
            .sum();
        let capacity = cluster_slots(w, map);
        let mut needed = 0u64;
        for &j in queue {
            let job = w.job(j);
            if job.n_reduces() == 0 {
                continue;
            }
            needed += if map { job.n_maps() } else { job.n_reduces() } as u64;
            let padding = if w.cluster().live_nodes as usize > MIN_CLUSTER_SIZE_FOR_PADDING {
                (tracker_slots as u64).min((needed as f64 * self.pad) as u64)
            } else {
                0
            };
            if total_tasks as u64 + padding >= capacity as u64 {
                return true;
            }
        }
        false
    }
}

impl Policy for Fifo {
    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn speculates(&self) -> bool {
        true
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        let w = hb.view();
        let queue = queue_order(w);
        let mut map_load = 0u64;
        let mut reduce_load = 0u64;
        for &j in &queue {
            let job = w.job(j);
            map_load += job.unfinished_maps() as u64;
            if job.reduces_schedulable(self.slowstart) {
                reduce_load += job.unfinished_reduces() as u64;
            }
        }
        let lf = |load: u64, map: bool| {
            let c = cluster_slots(w, map);
            if c > 0 {
                load as f64 / c as f64
            } else {
                0.0
            }
        };
        let (map_lf, reduce_lf) = (lf(map_load, true), lf(reduce_load, false));

        // Maps: up to the load-factor cap; at most one off-rack map.
        let (slots, running) = node_slots(w, hb.node, true);
        let cap = ((map_lf * slots as f64).ceil() as u32).min(slots);
        let avail = cap.saturating_sub(running).min(hb.free_maps());
        let exceeded = avail > 0 && self.exceeded_padding(w, &queue, true, slots);
        'slots: for _ in 0..avail {
            if hb.free_maps() == 0 {
                break;
            }
            let mut found = false;
            for &j in &queue {
                let w = hb.view();
                if let Some((t, _)) = w.job(j).find_map(hb.node, Locality::Rack, w.cluster()) {
                    hb.launch_map(j, t, "fifo/local");
                    if exceeded {
                        break 'slots;
                    }
                    found = true;
                    break;
                }
                if let Some((t, _)) = w.job(j).find_map(hb.node, Locality::OffDc, w.cluster()) {
                    hb.launch_map(j, t, "fifo/non-local");
                    break 'slots;
                }
                // `findNewMapTask`'s running cache: at most one off-switch
                // or speculative map per heartbeat.
                if hb.speculate(j, Kind::Map).is_some() {
                    break 'slots;
                }
            }
            if !found {
                break;
            }
        }

        // Reduces: never more than one per heartbeat.
        let w = hb.view();
        let (slots, running) = node_slots(w, hb.node, false);
        let cap = ((reduce_lf * slots as f64).ceil() as u32).min(slots);
        let avail = cap.saturating_sub(running).min(1).min(hb.free_reduces());
        if avail > 0 {
            let exceeded = self.exceeded_padding(w, &queue, false, slots);
            for &j in &queue {
                let w = hb.view();
                let job = w.job(j);
                if job.n_reduces() == 0 {
                    continue;
                }
                if job.reduces_schedulable(self.slowstart) && w.reduce_allowed(j) {
                    if let Some(r) = job.find_reduce() {
                        hb.launch_reduce(j, r, "fifo/reduce");
                        break;
                    }
                    if hb.speculate(j, Kind::Reduce).is_some() {
                        break;
                    }
                }
                if exceeded {
                    break;
                }
            }
        }
    }
}

impl Show for Fifo {
    fn inspect(&self, w: RunView<'_>, _node: NodeId) -> Inspection {
        let mut ins = Inspection::default();
        let queue = queue_order(w);
        let (mut ml, mut rl) = (0u64, 0u64);
        for (pos, &j) in queue.iter().enumerate() {
            let job = w.job(j);
            ml += job.unfinished_maps() as u64;
            if job.reduces_schedulable(self.slowstart) {
                rl += job.unfinished_reduces() as u64;
            }
            let mut v = Values::new();
            v.insert("order", pos as u64);
            v.insert("priority", job.priority.as_str());
            v.insert("pending_maps", job.maps_pending);
            v.insert("running_map", job.maps_running);
            v.insert("running_reduce", job.reduces_running);
            ins.jobs.insert(job.name.to_string(), v);
        }
        ins.cluster.insert(
            "map_load_factor",
            num(ml as f64 / cluster_slots(w, true).max(1) as f64),
        );
        ins.cluster.insert(
            "reduce_load_factor",
            num(rl as f64 / cluster_slots(w, false).max(1) as f64),
        );
        ins
    }
}
