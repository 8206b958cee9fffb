//! `yarn-fifo`: Hadoop 2.7.3's FifoScheduler, heartbeat by heartbeat.
//!
//! On a NodeManager's heartbeat, applications in id order, each one's
//! priorities in order (its AM, its reduces, its maps); at each priority
//! as many containers as the node's free memory holds: node-local first,
//! then rack-local, then off-switch. A priority that gets nothing ends the
//! application's turn (no assignment out of priority order). Memory only:
//! every container is normalised to 1 vcore and vcores are never checked,
//! as with Hadoop's DefaultResourceCalculator. No delay scheduling, no
//! reservations, no limit on AMs.

use super::{Ask, Level, ASKS};
use crate::model::Models;
use crate::model::{yarn_defaults, NodeId, Resource};
use crate::sched::registry::{Entry, DEFAULT_SLOWSTART};
use crate::sched::settings::{ConfigError, Settings};
use crate::sim::policy::{Inspection, Policy, Show, Value};
use crate::sim::{Heartbeat, RunView};

/// `[scheduler.yarn-fifo]`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub slowstart: Option<f64>,
}

pub const YARN_FIFO: Entry = Entry {
    name: "yarn-fifo",
    summary: "YARN FifoScheduler: applications in submission order, AM then reduces then maps, node-local then rack-local then off-switch, as many containers as memory holds",
    source: "Hadoop 2.7.3 FifoScheduler (slot_model = \"yarn\")",
    runs_on: Models::YARN,
    meant_for: Models::YARN,
    build: |s, _| Ok(Box::new(YarnFifo::build(s)?)),
    check: None,
};

#[derive(Clone)]
pub struct YarnFifo {
    slowstart: f64,
    /// The applications of the heartbeat being served (kept to reuse).
    apps: Vec<crate::model::JobId>,
}

impl YarnFifo {
    fn build(s: &Settings) -> Result<YarnFifo, ConfigError> {
        let own: Config = s.own()?;
        Ok(YarnFifo {
            slowstart: s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?,
            apps: Vec::new(),
        })
    }
}

/// Containers of `res` the node's free memory holds.
fn fit(hb: &Heartbeat<'_>, res: Resource) -> u32 {
    hb.capacity().admits_n(hb.node().free(), res)
}

impl Policy for YarnFifo {
    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        let min = yarn_defaults::MIN_ALLOCATION.mb();
        let max = super::max_allocation(hb.view());
        let mut apps = std::mem::take(&mut self.apps);
        super::apps_into(hb.view(), &mut apps);
        for &j in &apps {
            if hb.node().available().mb() < min {
                break;
            }
            for ask in ASKS {
                if !super::wants(hb.view(), j, ask) {
                    continue;
                }
                let res = super::normalize_memory(super::asked(hb.view(), j, ask), max);
                let levels: &[Level] = match ask {
                    Ask::Map => &[Level::NodeLocal, Level::RackLocal, Level::OffSwitch],
                    _ => &[Level::OffSwitch],
                };
                let mut assigned = 0;
                for &level in levels {
                    let rule = match (ask, level) {
                        (Ask::Reduce, _) => "yarn-fifo/reduce",
                        (_, Level::NodeLocal) => "yarn-fifo/node-local",
                        (_, Level::RackLocal) => "yarn-fifo/rack-local",
                        (_, Level::OffSwitch) => "yarn-fifo/off-switch",
                    };
                    while fit(hb, res) > 0
                        && super::wants(hb.view(), j, ask)
                        && (level == Level::OffSwitch || super::has_local(hb, j, level))
                        && super::launch(hb, j, ask, res, level, rule)
                    {
                        assigned += 1;
                    }
                }
                if assigned == 0 {
                    break;
                }
            }
        }
        self.apps = apps;
    }
}

impl Show for YarnFifo {
    /// What every YARN scheduler shows, and each application's place in
    /// the FifoScheduler's walk: application-id order.
    fn inspect(&self, w: RunView<'_>, _node: NodeId) -> Inspection {
        let mut i = super::usage_inspection(w, super::normalize_memory);
        // An application whose AM is starting or exiting is not walked.
        for v in i.jobs.values_mut() {
            v.insert("order", Value::Null);
        }
        for (pos, j) in super::apps(w).into_iter().enumerate() {
            if let Some(v) = i.jobs.get_mut(&*w.job(j).name) {
                v.insert("order", pos as u64);
            }
        }
        i
    }
}
