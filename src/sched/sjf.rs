//! `sjf`: shortest job first. Jobs in Hadoop's job-queue order (priority,
//! then submit time, then id) are sorted, stably, by the tasks they have
//! left (maps and reduces not yet succeeded); every free map slot goes to
//! the first of them with a pending map, which gives its best-placed one
//! (on the node, else its rack, its datacenter, anywhere: what
//! `obtainNewMapTask` would give), and every free reduce slot to the first
//! whose reduces slowstart lets start.
//!
//! A baseline that favours short jobs, and the Python client's example
//! policy (`clients/python/examples/sjf.py`) built in: the two make the
//! same decisions, which `tests/it/external.rs` checks trace line by trace
//! line.

use super::registry::{Entry, DEFAULT_SLOWSTART};
use super::settings::{ConfigError, Settings};
use crate::model::{JobId, Models, NodeId};
use crate::sim::policy::{Inspection, Policy, Show, Values};
use crate::sim::{Heartbeat, Locality, RunView};

/// `[scheduler.sjf]`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub slowstart: Option<f64>,
}

pub const SJF: Entry = Entry {
    name: "sjf",
    summary: "Shortest job first: each free slot to the job with the fewest tasks left (its best-placed map; reduces once slowstart lets them), ties in job-queue order",
    source: "shortest job first by tasks left, as clients/python/examples/sjf.py (a baseline)",
    runs_on: Models::SLOTS,
    meant_for: Models::SLOTS,
    build: |s, _| Ok(Box::new(Sjf::build(s)?)),
    check: None,
};

#[derive(Clone)]
pub struct Sjf {
    slowstart: f64,
    /// The heartbeat's job order, kept to reuse.
    order: Vec<JobId>,
}

impl Sjf {
    fn build(s: &Settings) -> Result<Sjf, ConfigError> {
        let own: Config = s.own()?;
        Ok(Sjf {
            slowstart: s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?,
            order: Vec::new(),
        })
    }
}

/// Maps and reduces of job `j` not yet succeeded.
fn tasks_left(w: RunView<'_>, j: JobId) -> u32 {
    let job = w.job(j);
    job.unfinished_maps() + job.unfinished_reduces()
}

/// Runnable jobs, fewest tasks left first, ties in job-queue order.
fn order_into(w: RunView<'_>, out: &mut Vec<JobId>) {
    out.clear();
    out.extend_from_slice(w.active());
    out.sort_by_key(|&j| {
        let job = w.job(j);
        (tasks_left(w, j), job.priority, job.submit, j)
    });
}

/// The rule of a map launched at `l`.
fn map_rule(l: Locality) -> &'static str {
    match l {
        Locality::Node => "sjf/node",
        Locality::Rack => "sjf/rack",
        Locality::OffRack => "sjf/dc",
        Locality::OffDc => "sjf/any",
    }
}

impl Policy for Sjf {
    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        let mut order = std::mem::take(&mut self.order);
        order_into(hb.view(), &mut order);
        for &j in &order {
            while hb.free_maps() > 0 {
                let w = hb.view();
                let Some((t, l)) = w.job(j).find_map(hb.node, Locality::OffDc, w.cluster()) else {
                    break;
                };
                hb.launch_map(j, t, map_rule(l));
            }
        }
        for &j in &order {
            while hb.free_reduces() > 0 {
                let w = hb.view();
                let job = w.job(j);
                if !job.reduces_schedulable(self.slowstart) || !w.reduce_allowed(j) {
                    break;
                }
                let Some(r) = job.find_reduce() else { break };
                hb.launch_reduce(j, r, "sjf/reduce");
            }
        }
        self.order = order;
    }
}

impl Show for Sjf {
    /// Each runnable job's tasks left and its place in the order.
    fn inspect(&self, w: RunView<'_>, _node: NodeId) -> Inspection {
        let mut ins = Inspection::default();
        let mut order = Vec::new();
        order_into(w, &mut order);
        for (rank, &j) in order.iter().enumerate() {
            let mut v = Values::new();
            v.insert("tasks_left", tasks_left(w, j));
            v.insert("rank", rank);
            ins.jobs.insert(w.job(j).name.to_string(), v);
        }
        ins
    }
}
