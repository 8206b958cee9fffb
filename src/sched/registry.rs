//! Every policy slotsim knows, with the paper or code it follows.

/// One registered policy.
#[derive(Debug)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub source: &'static str,
}

pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "fifo",
        summary: "Hadoop 1.x JobQueueTaskScheduler: priority then submit order, load-factor cap, one off-rack map and one reduce per heartbeat",
        source: "Hadoop 1.0.3 JobQueueTaskScheduler (TestJobQueueTaskScheduler)",
    },
    PolicyInfo {
        name: "fair",
        summary: "Hadoop 1.x FairScheduler: pools with weights and min/max shares, FairShareComparator, delay scheduling",
        source: "Hadoop 1.0.3 FairScheduler (TestFairScheduler, TestComputeFairShares); Zaharia et al., EuroSys'10",
    },
    PolicyInfo {
        name: "fresh",
        summary: "Fair sharing of typeless containers with slowstart 1.0 (OMO's FRESH baseline)",
        source: "Wang, Yao, Mao, Sheng, Mi, FRESH (IEEE CLOUD 2014), as the baseline of seed 000 (OMO, IEEE Access 2021)",
    },
    PolicyInfo {
        name: "capacity",
        summary: "Hadoop 1.x CapacityTaskScheduler: queues by occupied/capacity, FIFO with priorities inside, user limits",
        source: "Hadoop 1.0.3 CapacityTaskScheduler (TestCapacityScheduler)",
    },
    PolicyInfo {
        name: "omo",
        summary: "OMO: lazy start of reduces and batch finish of maps, from a container-release predictor, over fair on unified containers",
        source: "Yang, Wang, Mao, Yao, Mi, Sheng, OMO (IEEE Access 2021, seed 000), as settled in ALGORITHMS.md §4",
    },
    PolicyInfo {
        name: "omo-lazy",
        summary: "OMO with lazy start of reduces only (batch finish off)",
        source: "OMO (IEEE Access 2021, seed 000), \"Lazy Start\" of Figs. 10 and 12",
    },
    PolicyInfo {
        name: "omo-batch",
        summary: "OMO with batch finish of maps only (lazy start off: reduce stages start once no map is pending)",
        source: "OMO (IEEE Access 2021, seed 000), \"Batch Finish\" of Figs. 11 and 12",
    },
    PolicyInfo {
        name: "hybsmrp",
        summary: "HybSMRP: one queue by dynamic priority (waiting time, map run time, remaining tasks), node-local maps first, a non-local map after two local misses",
        source: "Nezhad, Shirvani, Ghasemi, HybSMRP (J. Big Data 2019, seed 002), as settled in ALGORITHMS.md §6",
    },
    PolicyInfo {
        name: "joss-t",
        summary: "JoSS with the task-driven assigner: jobs placed by datacenter (policies A/B/C by reduce-heavy and size), queue heads taken round robin",
        source: "Lee, Lin, Yahyapour, JoSS (seed 003), Figs. 4 and 5, as settled in ALGORITHMS.md §7",
    },
    PolicyInfo {
        name: "joss-j",
        summary: "JoSS with the job-driven assigner: as joss-t, but each queue gives a node a task whose block it holds when it can",
        source: "Lee, Lin, Yahyapour, JoSS (seed 003), Figs. 4 and 6, as settled in ALGORITHMS.md §7",
    },
    PolicyInfo {
        name: "adaptive-fair",
        summary: "Adaptive fair: small jobs in a shared FIFO pool, pool slots by pending tasks, resource-aware sorting, delays from observed waits, priorities from locality",
        source: "An adaptive (modified) fair scheduler for Hadoop (seed 004), as settled in ALGORITHMS.md §8",
    },
    PolicyInfo {
        name: "dhsa-pi",
        summary: "DynamicMR's PI-DHSA: fair per phase on typed slots; when only one phase is overloaded, the other's idle slots take its tasks (up to borrow_map_pct / borrow_reduce_pct)",
        source: "Tang, Lee, He, DynamicMR (IEEE Trans. Cloud Computing 2014, seed 001), Algorithm 1, as settled in ALGORITHMS.md §5",
    },
    PolicyInfo {
        name: "dhsa-pd",
        summary: "DynamicMR's PD-DHSA: a pool's maps and reduces share its fair share of all slots; each slot tries map, reduce, map in a reduce slot, reduce in a map slot, then a non-local map",
        source: "Tang, Lee, He, DynamicMR (IEEE Trans. Cloud Computing 2014, seed 001), Algorithm 2, as settled in ALGORITHMS.md §5",
    },
    PolicyInfo {
        name: "dynamicmr",
        summary: "DynamicMR: PD-DHSA + SEPB (pending tasks before speculative copies) + Slot PreScheduling (local maps in idle slots above the load-balancing line)",
        source: "Tang, Lee, He, DynamicMR (IEEE Trans. Cloud Computing 2014, seed 001), Algorithms 2-4, as settled in ALGORITHMS.md §5",
    },
];

pub fn lookup(name: &str) -> Option<&'static PolicyInfo> {
    POLICIES.iter().find(|p| p.name == name)
}

pub fn names() -> Vec<&'static str> {
    POLICIES.iter().map(|p| p.name).collect()
}

use super::config::{apply_variant, SchedulerConfig};
use super::Policy;
use crate::model::{Ms, PolicySpec, SlotModel};

/// What a policy may need to know about the cluster when it is built.
#[derive(Clone, Copy, Debug)]
pub struct BuildCtx {
    pub heartbeat: Option<Ms>,
    pub model: SlotModel,
}

/// Hadoop's default reduce slowstart (`mapred.reduce.slowstart.completed.maps`).
pub const DEFAULT_SLOWSTART: f64 = 0.05;

/// Builds the policy `spec` names from the scenario's `[scheduler]` table
/// with the spec's overrides applied.
pub fn build(
    spec: &PolicySpec,
    table: &toml::Table,
    ctx: &BuildCtx,
) -> Result<Box<dyn Policy>, String> {
    if lookup(&spec.name).is_none() {
        return Err(format!(
            "unknown policy \"{}\"; expected one of: {}",
            spec.name,
            names().join(", ")
        ));
    }
    let cfg: SchedulerConfig = apply_variant(table, spec)?;
    let label = spec.label();
    Ok(match spec.name.as_str() {
        "fifo" => Box::new(super::fifo::Fifo::new(label, &cfg)),
        "fair" => Box::new(super::fair::Fair::new(label, &cfg, ctx, false)),
        "fresh" => Box::new(super::fair::Fair::new(label, &cfg, ctx, true)),
        "capacity" => Box::new(super::capacity::Capacity::new(label, &cfg)),
        "omo" | "omo-lazy" | "omo-batch" => {
            Box::new(super::omo::Omo::new(label, &spec.name, &cfg, ctx))
        }
        "hybsmrp" => Box::new(super::hybsmrp::Hybsmrp::new(label, &cfg)),
        "joss-t" | "joss-j" => Box::new(super::joss::Joss::new(label, &spec.name, &cfg)),
        "adaptive-fair" => Box::new(super::adaptive_fair::AdaptiveFair::new(label, &cfg, ctx)),
        "dhsa-pi" | "dhsa-pd" | "dynamicmr" => {
            Box::new(super::dhsa::Dhsa::new(label, &spec.name, &cfg, ctx))
        }
        other => return Err(format!("policy \"{other}\" is registered but not built")),
    })
}
