//! YARN's schedulers as Hadoop 2.7.3 ships them, for `slot_model = "yarn"`
//! (docs/yarn.md): `yarn-fifo` (FifoScheduler), `yarn-capacity`
//! (CapacityScheduler) and `yarn-fair` (FairScheduler, `fair` or `drf`
//! ordering).
//!
//! What they share: the MapReduce ApplicationMaster's requests as the
//! ResourceManager sees them (the AM container at priority 0, reduces at
//! 10, maps at 20, lower numbers served first), request normalisation, and
//! placing a container of a request on the heartbeating node with the
//! locality the AM would bind it at.

pub mod calc;
pub mod capacity;
pub mod fair;
pub mod fifo;
pub mod show;

pub use show::usage_inspection;

use crate::model::{yarn_defaults, JobId, Resource};
use crate::sim::{Heartbeat, Kind, Locality, RunView};

/// An application's requests at one priority, in the order the RM tries
/// them (`RMContainerAllocator`'s priorities: AM 0, reduces 10, maps 20).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ask {
    Am,
    Reduce,
    Map,
}

pub const ASKS: [Ask; 3] = [Ask::Am, Ask::Reduce, Ask::Map];

impl Ask {
    /// The request's name, as the inspector and `--inspect` show it.
    pub fn as_str(self) -> &'static str {
        match self {
            Ask::Am => "am",
            Ask::Reduce => "reduce",
            Ask::Map => "map",
        }
    }

    /// The request [`Ask::as_str`] names.
    pub fn parse(s: &str) -> Option<Ask> {
        ASKS.into_iter().find(|a| a.as_str() == s)
    }
}

/// YARN's locality levels (`NodeType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    NodeLocal,
    RackLocal,
    OffSwitch,
}

impl Level {
    /// The engine's locality bound for a map found at this level.
    fn bound(self) -> Locality {
        match self {
            Level::NodeLocal => Locality::Node,
            Level::RackLocal => Locality::Rack,
            Level::OffSwitch => Locality::OffDc,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::NodeLocal => "node-local",
            Level::RackLocal => "rack-local",
            Level::OffSwitch => "off-switch",
        }
    }
}

/// `SchedulerUtils.normalizeRequest` with `DefaultResourceCalculator`
/// (FifoScheduler, CapacityScheduler's default): memory rounded up to a
/// multiple of the minimum allocation, at least it, at most the maximum;
/// vcores are not kept (`createResource(memory)`: 1).
pub fn normalize_memory(ask: Resource, max: Resource) -> Resource {
    let min = yarn_defaults::MIN_ALLOCATION.mb();
    Resource::memory(round_up(ask.mb().max(min), min).min(max.mb()), 1)
}

/// The same with `DominantResourceCalculator` (FairScheduler): both
/// components, stepping by `yarn.scheduler.increment-allocation-*` (the
/// minimum's, 1024 MB and 1 vcore, by default).
pub fn normalize_both(ask: Resource, max: Resource) -> Resource {
    let min = yarn_defaults::MIN_ALLOCATION;
    Resource::memory(
        round_up(ask.mb().max(min.mb()), min.mb()).min(max.mb()),
        round_up(ask.vcores().max(min.vcores()), min.vcores()).min(max.vcores()),
    )
}

fn round_up(x: i64, step: i64) -> i64 {
    if step == 0 {
        x
    } else {
        (x + step - 1) / step * step
    }
}

/// The applications the RM knows, in application-id order: jobs awaiting
/// their AM's container and jobs whose AM asks for tasks. (A job whose AM
/// is still starting asks for nothing.)
pub fn apps(w: RunView<'_>) -> Vec<JobId> {
    let mut a = Vec::new();
    apps_into(w, &mut a);
    a
}

/// [`apps`] into a buffer the caller keeps (no allocation once it has
/// grown: the heartbeat path).
pub fn apps_into(w: RunView<'_>, out: &mut Vec<JobId>) {
    out.clear();
    out.extend_from_slice(w.awaiting_am());
    out.extend_from_slice(w.active());
    out.sort_unstable();
}

/// Whether job `j` has an outstanding request at `ask`. A job whose AM
/// was lost with its node asks for no task until its next AM is up.
pub fn wants(w: RunView<'_>, j: JobId, ask: Ask) -> bool {
    let job = w.job(j);
    let am_up = job.am_ready.is_some();
    match ask {
        Ask::Am => w.awaiting_am().binary_search(&j).is_ok(),
        // The AM's reduce requests (`RMContainerAllocator`).
        Ask::Reduce => job.runnable && am_up && job.reduces_pending > 0 && job.reduce_asks > 0,
        Ask::Map => job.runnable && am_up && job.maps_pending > 0,
    }
}

/// The containers job `j` still needs at `ask` (its ANY request): its AM,
/// the reduces its AM has asked for, its pending maps.
pub fn outstanding(w: RunView<'_>, j: JobId, ask: Ask) -> u32 {
    let job = w.job(j);
    match ask {
        Ask::Am => u32::from(wants(w, j, ask)),
        Ask::Reduce => job.reduce_asks.min(job.reduces_pending),
        Ask::Map => job.maps_pending,
    }
}

/// What job `j` asks at `ask`, before normalisation.
pub fn asked(w: RunView<'_>, j: JobId, ask: Ask) -> Resource {
    match ask {
        Ask::Am => w.tasks().am_ask(),
        Ask::Reduce => w.job(j).reduce_ask,
        Ask::Map => w.job(j).map_ask,
    }
}

/// Whether job `j` has a map request for the heartbeating node (`Node`)
/// or its rack (`Rack`) — the RM's node and rack entries.
pub fn has_local(hb: &Heartbeat<'_>, j: JobId, level: Level) -> bool {
    let w = hb.view();
    match w.job(j).find_map(hb.node, level.bound(), w.cluster()) {
        Some((_, l)) => match level {
            Level::NodeLocal => l == Locality::Node,
            Level::RackLocal => l <= Locality::Rack,
            Level::OffSwitch => true,
        },
        None => false,
    }
}

/// Launches one container of `res` for job `j` at `ask` on the node, the
/// task bound as the MapReduce AM binds it (a map local to the node, else
/// to its rack, else any, within `level`). Returns whether it launched.
pub fn launch(
    hb: &mut Heartbeat<'_>,
    j: JobId,
    ask: Ask,
    res: Resource,
    level: Level,
    rule: &'static str,
) -> bool {
    match ask {
        Ask::Am => {
            hb.launch_am(j, res);
            true
        }
        Ask::Reduce => match hb.view().job(j).find_reduce() {
            Some(r) => {
                hb.launch_container(j, Kind::Reduce, r, res, rule);
                true
            }
            None => false,
        },
        Ask::Map => {
            let w = hb.view();
            match w.job(j).find_map(hb.node, level.bound(), w.cluster()) {
                Some((t, _)) => {
                    hb.launch_container(j, Kind::Map, t, res, rule);
                    true
                }
                None => false,
            }
        }
    }
}

/// The largest container the RM grants on this cluster.
pub fn max_allocation(w: RunView<'_>) -> Resource {
    crate::model::max_allocation(w.cluster().largest)
}
