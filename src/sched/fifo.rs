//! `fifo`: Hadoop 1.x JobQueueTaskScheduler, heartbeat by heartbeat.

use super::config::SchedulerConfig;
use super::registry::DEFAULT_SLOWSTART;
use super::{Inspection, Policy};
use crate::model::{JobId, NodeId, SlotModel};
use crate::sim::{Heartbeat, Locality, World};

/// Hadoop's `MIN_CLUSTER_SIZE_FOR_PADDING`.
const MIN_CLUSTER_SIZE_FOR_PADDING: usize = 3;

pub struct Fifo {
    label: String,
    slowstart: f64,
    pad: f64,
}

impl Fifo {
    pub fn new(label: String, cfg: &SchedulerConfig) -> Fifo {
        let own = cfg.fifo.clone().unwrap_or_default();
        Fifo {
            label,
            slowstart: own.slowstart.or(cfg.slowstart).unwrap_or(DEFAULT_SLOWSTART),
            pad: own.capacity_pad.unwrap_or(0.01),
        }
    }
}

/// Job queue order: priority (very_high first), then submit time, then id.
pub fn queue_order(w: &World) -> Vec<JobId> {
    let mut q = w.active.clone();
    q.sort_by_key(|&j| (w.job(j).priority, w.job(j).submit, j));
    q
}

/// Per-node slots of a kind and how many of that kind run there. On
/// unified clusters each kind's cap is taken over all the node's containers
/// (and the launch is bounded by the free ones); counting the other kind's
/// tasks against it would let running reduces lock out their own maps.
fn node_slots(w: &World, node: NodeId, map: bool) -> (u32, u32) {
    let n = w.node(node);
    match (w.model(), map) {
        (SlotModel::Typed, true) => (n.map_slots, n.running_maps),
        (SlotModel::Typed, false) => (n.reduce_slots, n.running_reduces),
        (SlotModel::Unified, true) => (n.map_slots + n.reduce_slots, n.running_maps),
        (SlotModel::Unified, false) => (n.map_slots + n.reduce_slots, n.running_reduces),
    }
}

fn cluster_slots(w: &World, map: bool) -> u32 {
    match (w.model(), map) {
        (SlotModel::Typed, true) => w.cluster.total_map_slots,
        (SlotModel::Typed, false) => w.cluster.total_reduce_slots,
        (SlotModel::Unified, _) => w.cluster.total_slots(),
    }
}

impl Fifo {
    /// `exceededPadding`: beyond the first job, leave a little room for
    /// failures and speculation. Counts only jobs with reduces, as Hadoop does.
    fn exceeded_padding(&self, w: &World, queue: &[JobId], map: bool, tracker_slots: u32) -> bool {
        let total_tasks: u32 = w
            .pool_stats
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
            let padding = if w.cluster.live_nodes as usize > MIN_CLUSTER_SIZE_FOR_PADDING {
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
    fn label(&self) -> &str {
        &self.label
    }

    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        let w = hb.world();
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
                let w = hb.world();
                if let Some((t, _)) = w.job(j).find_map(hb.node, Locality::Rack, &w.cluster) {
                    hb.launch_map(j, t, "fifo/local");
                    if exceeded {
                        break 'slots;
                    }
                    found = true;
                    break;
                }
                if let Some((t, _)) = w.job(j).find_map(hb.node, Locality::OffDc, &w.cluster) {
                    hb.launch_map(j, t, "fifo/non-local");
                    break 'slots;
                }
            }
            if !found {
                break;
            }
        }

        // Reduces: never more than one per heartbeat.
        let w = hb.world();
        let (slots, running) = node_slots(w, hb.node, false);
        let cap = ((reduce_lf * slots as f64).ceil() as u32).min(slots);
        let avail = cap.saturating_sub(running).min(1).min(hb.free_reduces());
        if avail > 0 {
            let exceeded = self.exceeded_padding(w, &queue, false, slots);
            for &j in &queue {
                let w = hb.world();
                let job = w.job(j);
                if job.n_reduces() == 0 {
                    continue;
                }
                if job.reduces_schedulable(self.slowstart) && w.reduce_allowed(j) {
                    if let Some(r) = job.find_reduce() {
                        hb.launch_reduce(j, r, "fifo/reduce");
                        break;
                    }
                }
                if exceeded {
                    break;
                }
            }
        }
    }

    fn inspect(&self, w: &World, _node: NodeId) -> Inspection {
        let mut ins = Inspection::default();
        let queue = queue_order(w);
        let (mut ml, mut rl) = (0u64, 0u64);
        for (pos, &j) in queue.iter().enumerate() {
            let job = w.job(j);
            ml += job.unfinished_maps() as u64;
            if job.reduces_schedulable(self.slowstart) {
                rl += job.unfinished_reduces() as u64;
            }
            let mut v = super::Values::new();
            v.insert("order".into(), (pos as u64).into());
            v.insert(
                "priority".into(),
                serde_json::to_value(job.priority).unwrap_or_default(),
            );
            v.insert("pending_maps".into(), job.maps_pending.into());
            v.insert("running_map".into(), job.maps_running.into());
            v.insert("running_reduce".into(), job.reduces_running.into());
            ins.jobs.insert(job.name.clone(), v);
        }
        ins.cluster.insert(
            "map_load_factor".into(),
            super::num(ml as f64 / cluster_slots(w, true).max(1) as f64),
        );
        ins.cluster.insert(
            "reduce_load_factor".into(),
            super::num(rl as f64 / cluster_slots(w, false).max(1) as f64),
        );
        ins
    }
}
