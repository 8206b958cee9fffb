//! `fair` and `fresh`: Hadoop 1.x FairScheduler, heartbeat by heartbeat
//! (`FairScheduler.assignTasks`, `SchedulingAlgorithms`, `PoolSchedulable`,
//! `JobSchedulable`, `CapBasedLoadManager`), with delay scheduling.
//!
//! On a unified cluster fairness is over a job's containers (maps and
//! reduces together): that is OMO's FRESH baseline, registered as `fresh`
//! with slowstart 1.0. There a container goes to the chosen job's map if it
//! has one it may run, else to its schedulable reduce. (YARN's MapReduce AM
//! ranks reduce requests above maps but bounds them with a ramp-up limit
//! and reduce preemption; without those, reduces first can deadlock a job,
//! so we keep MRv1's order within a job.)
//!
//! `typed_slots = true` makes the policy view a unified cluster's
//! containers as typed slots (`map_slots` + `reduce_slots` per node): the
//! OMO paper's Fair baselines ran on Hadoop's default 2 map + 2 reduce
//! containers while FRESH and OMO shared the same 4 dynamically, and a
//! scenario can only have one slot model.
//!
//! The machinery lives in submodules that other policies reuse:
//! `shares` (computeFairShares, FairShareComparator), `base` (demands,
//! orders, the assignment loops, [`base::Hooks`]), `delay` (delay
//! scheduling) and `preemption`.

pub mod base;
pub mod delay;
pub mod preemption;
pub mod shares;

use super::registry::{Entry, DEFAULT_SLOWSTART};
use super::settings::{ConfigError, Settings};
use crate::model::Models;
use crate::model::{Ms, NodeId};
use crate::sim::policy::{
    num, BuildCtx, Event, Inspection, Policy, PoolShare, PoolShares, ShareBasis, Show, Value,
    Values,
};
use crate::sim::{Heartbeat, Locality, RunView};
use crate::units::de_opt_duration;
use base::{auto_delay, BaseSettings, FairBase, Rules, TaskKind};

pub use base::MAX_AUTO_DELAY;
pub use preemption::{PREEMPTION_INTERVAL, UPDATE_INTERVAL};

/// `[scheduler.fair]` and `[scheduler.fresh]`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub slowstart: Option<f64>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub node_locality_delay: Option<Ms>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub rack_locality_delay: Option<Ms>,
    pub assign_multiple: Option<bool>,
    pub size_based_weight: Option<bool>,
    /// Kill tasks of pools above their fair share for pools starved past
    /// their `min_share_timeout` / `fair_share_timeout` (default false).
    pub preemption: Option<bool>,
    /// View each node's containers as typed slots (`map_slots` for maps,
    /// `reduce_slots` for reduces) even on a `slot_model = "unified"`
    /// cluster; a no-op on typed clusters.
    pub typed_slots: Option<bool>,
}

pub const FAIR: Entry = Entry {
    name: "fair",
    summary: "Hadoop 1.x FairScheduler: pools with weights and min/max shares, FairShareComparator, delay scheduling",
    source: "Hadoop 1.0.3 FairScheduler (TestFairScheduler, TestComputeFairShares); Zaharia et al., delay scheduling (EuroSys 2010)",
    runs_on: Models::SLOTS,
    meant_for: Models::SLOTS,
    build: |s, ctx| Ok(Box::new(Fair::build(s, ctx, false)?)),
    check: None,
};

pub const FRESH: Entry = Entry {
    name: "fresh",
    summary: "Fair sharing of typeless containers with slowstart 1.0 (OMO's FRESH baseline)",
    source: "Wang, Yao, Mao, Sheng, Mi, FRESH: fair and efficient slot configuration and scheduling for Hadoop clusters (Proc. CLOUD 2014), as the OMO paper cites it and uses it as a baseline (IEEE Access 2021)",
    runs_on: Models::SLOTS,
    meant_for: Models::UNIFIED,
    build: |s, ctx| Ok(Box::new(Fair::build(s, ctx, true)?)),
    check: None,
};

const FAIR_RULES: Rules = Rules {
    node: "fair/node-local",
    rack: "fair/rack-local",
    off: "fair/off-rack",
    reduce: "fair/reduce",
};

const FRESH_RULES: Rules = Rules {
    node: "fresh/node-local",
    rack: "fresh/rack-local",
    off: "fresh/off-rack",
    reduce: "fresh/reduce",
};

#[derive(Clone)]
pub struct Fair {
    base: FairBase<Rules>,
}

impl Fair {
    fn build(s: &Settings, ctx: &BuildCtx, fresh: bool) -> Result<Fair, ConfigError> {
        let own: Config = s.own()?;
        // FRESH fixes slowstart at 1 unless its own table says otherwise.
        let slowstart = if fresh {
            super::settings::slowstart(&format!("scheduler.{}.slowstart", s.name), own.slowstart)?;
            own.slowstart.unwrap_or(1.0)
        } else {
            s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?
        };
        let auto = auto_delay(ctx);
        let settings = BaseSettings {
            slowstart,
            node_delay: own.node_locality_delay.unwrap_or(auto),
            rack_delay: own.rack_locality_delay.unwrap_or(auto),
            assign_multiple: own.assign_multiple.unwrap_or(true),
            size_based_weight: own.size_based_weight.unwrap_or(false),
            typed_slots: own.typed_slots.unwrap_or(false),
            preemption: own.preemption.unwrap_or(false),
            speculate: true,
        };
        let rules = if fresh { FRESH_RULES } else { FAIR_RULES };
        Ok(Fair {
            base: FairBase::new(settings, rules),
        })
    }
}

impl Policy for Fair {
    fn slowstart(&self) -> f64 {
        self.base.settings.slowstart
    }

    fn speculates(&self) -> bool {
        self.base.settings.speculate
    }

    fn adopt(&mut self, w: RunView<'_>) {
        self.base.adopt(w);
    }

    fn maintain(&mut self, hb: &mut Heartbeat<'_>) {
        self.base.maintain(hb);
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        self.base.heartbeat(hb);
    }

    fn hear(&mut self, _w: RunView<'_>, e: Event) {
        if let Event::JobArrived(j) = e {
            self.base.job_arrived(j);
        }
    }
}

impl Show for Fair {
    fn inspect(&self, w: RunView<'_>, _node: NodeId) -> Inspection {
        inspect(&self.base, w)
    }

    fn pool_shares(&self, w: RunView<'_>) -> Option<PoolShares> {
        Some(pool_shares(&self.base, w))
    }
}

/// The fair scheduler's inspection of a fair base: per pool and job its
/// shares, demands, running tasks and weight; per job its delay-scheduling
/// level and wait (as they will stand once this heartbeat's update ran).
pub fn inspect<H: base::Hooks>(b: &FairBase<H>, w: RunView<'_>) -> Inspection {
    let mut ins = Inspection::default();
    let unified = !b.typed_view(w);
    let (pm, jm) = b.fair_shares(w, TaskKind::Map);
    let (pr, jr) = b.fair_shares(w, TaskKind::Reduce);
    let (_, dm) = b.pools_view(w, TaskKind::Map);
    let (_, dr) = b.pools_view(w, TaskKind::Reduce);
    let dt = b.pending_wait(w.now());
    for p in 0..w.pools().len() {
        let mut v = Values::new();
        v.insert("fair_share_map", num(pm[p]));
        v.insert("fair_share_reduce", num(pr[p]));
        v.insert("demand_map", dm[p]);
        v.insert("demand_reduce", dr[p]);
        v.insert("running_map", w.pool_stats()[p].running_maps);
        v.insert("running_reduce", w.pool_stats()[p].running_reduces);
        v.insert("weight", num(w.pools()[p].weight));
        v.insert("locality_level", Value::Null);
        v.insert("waited_s", Value::Null);
        if FairBase::<H>::has_timeouts(w) {
            v.insert("starved", b.pool_starved(w, p));
        }
        ins.pools.insert(w.pools()[p].name.clone(), v);
    }
    for (i, &(j, fm)) in jm.iter().enumerate() {
        let fr = jr[i].1;
        let job = w.job(j);
        let mut info = b.info_ref(j);
        if info.skipped {
            info.waited += dt;
        }
        let level = b.allowed_level(w, j, &info);
        let mut v = Values::new();
        v.insert("fair_share_map", num(fm));
        v.insert("fair_share_reduce", num(fr));
        v.insert("demand_map", base::map_demand(w, j));
        v.insert("demand_reduce", base::reduce_demand(w, j));
        v.insert("running_map", job.maps_running);
        v.insert("running_reduce", job.reduces_running);
        v.insert("weight", num(b.job_weight(w, j, TaskKind::Map)));
        let lvl = match level {
            Locality::Node => "node",
            Locality::Rack => "rack",
            _ => "any",
        };
        v.insert("locality_level", lvl);
        v.insert("waited_s", num(info.waited as f64 / 1000.0));
        ins.jobs.insert(job.name.to_string(), v);
    }
    if unified {
        let (pa, ja) = b.fair_shares(w, TaskKind::Any);
        for (p, s) in pa.iter().enumerate() {
            if let Some(v) = ins.pools.get_mut(&w.pools()[p].name) {
                v.insert("fair_share_containers", num(*s));
            }
        }
        for (j, s) in ja {
            if let Some(v) = ins.jobs.get_mut(&*w.job(j).name) {
                v.insert("fair_share_containers", num(s));
            }
        }
    }
    ins.cluster.insert(
        "node_locality_delay_s",
        num(b.settings.node_delay as f64 / 1000.0),
    );
    ins.cluster.insert(
        "rack_locality_delay_s",
        num(b.settings.rack_delay as f64 / 1000.0),
    );
    ins
}

/// Pool shares of a fair base: containers on a unified view, else map and
/// reduce slots.
pub fn pool_shares<H: base::Hooks>(b: &FairBase<H>, w: RunView<'_>) -> PoolShares {
    let unified = !b.typed_view(w);
    let (basis, m, r) = if unified {
        let (pa, _) = b.fair_shares(w, TaskKind::Any);
        (ShareBasis::Containers, pa, vec![0.0; w.pools().len()])
    } else {
        let (pm, _) = b.fair_shares(w, TaskKind::Map);
        let (pr, _) = b.fair_shares(w, TaskKind::Reduce);
        (ShareBasis::FairShare, pm, pr)
    };
    let pools = w
        .pools()
        .iter()
        .enumerate()
        .map(|(p, spec)| PoolShare {
            name: spec.name.clone(),
            weight: spec.weight,
            jobs: w
                .active()
                .iter()
                .filter(|&&j| w.job(j).pool as usize == p)
                .count(),
            running_maps: w.pool_stats()[p].running_maps,
            running_reduces: w.pool_stats()[p].running_reduces,
            share_map: m[p],
            share_reduce: r[p],
            capacity_pct: None,
        })
        .collect();
    PoolShares { basis, pools }
}
