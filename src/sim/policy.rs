//! The interface policies plug into, owned by the engine: the [`Policy`]
//! trait, what a policy reports about itself ([`Inspection`], typed pool
//! shares, what it keeps for reports), the [`PolicyFactory`] the engine asks for
//! a policy when a run switches, and the [`Observer`]s a caller may attach.
//!
//! The engine names no policy: whoever builds a [`super::Sim`] hands it a
//! factory (the registry in `sched`) and any observers (OMO's passive
//! release-rate monitor). Values here are plain data; turning them into
//! JSON is the report layer's business.

pub use super::event::Event;
use super::world::heartbeat::Heartbeat;
use super::world::view::RunView;
use crate::model::{Capacity, JobId, Ms, NodeId, PolicySpec};
use std::collections::BTreeMap;

/// One value a policy shows in `--inspect` and the TUI's inspector.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Not defined yet (e.g. T_m before a job's first map has finished).
    Null,
    Bool(bool),
    Int(i64),
    /// A finite number ([`num`] turns NaN and infinities into `Null`).
    Num(f64),
    Text(String),
    /// A list, as JoSS's queue lengths.
    List(Vec<Value>),
    /// Named values, as JoSS's maps per datacenter.
    Map(Values),
}

impl Value {
    /// The value as a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Num(x) => Some(*x),
            _ => None,
        }
    }
}

/// A value computed in `f32` (as Hadoop's Java `float`s are): the shortest
/// decimal that reads back as the same `f32` (`0.22222222`, not the
/// `0.2222222238779068` its widening to `f64` would print); `Null` when it
/// is not finite.
pub fn num32(x: f32) -> Value {
    num(x.to_string().parse::<f64>().unwrap_or(f64::from(x)))
}

/// A number, or `Null` when it is not finite.
pub fn num(x: f64) -> Value {
    if x.is_finite() {
        Value::Num(x)
    } else {
        Value::Null
    }
}

/// A number if there is one.
pub fn opt(x: Option<f64>) -> Value {
    x.map_or(Value::Null, num)
}

macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(x: $t) -> Value {
                Value::Int(x as i64)
            }
        }
    )*};
}
int_value!(u8, u16, u32, u64, usize, i32, i64);

impl From<bool> for Value {
    fn from(x: bool) -> Value {
        Value::Bool(x)
    }
}

impl From<&str> for Value {
    fn from(x: &str) -> Value {
        Value::Text(x.to_string())
    }
}

impl From<String> for Value {
    fn from(x: String) -> Value {
        Value::Text(x)
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(x: Vec<T>) -> Value {
        Value::List(x.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(x: Option<T>) -> Value {
        x.map_or(Value::Null, Into::into)
    }
}

impl From<Values> for Value {
    fn from(x: Values) -> Value {
        Value::Map(x)
    }
}

/// Named values in the order a policy inserted them (the order `--inspect`
/// prints them in); inserting a name again replaces its value in place.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Values(Vec<(String, Value)>);

impl Values {
    pub fn new() -> Values {
        Values::default()
    }

    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Value>) {
        let key = key.into();
        let value = value.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }
}

/// What a policy computed, for `--inspect` and the TUI inspector.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inspection {
    pub cluster: Values,
    pub pools: BTreeMap<String, Values>,
    pub jobs: BTreeMap<String, Values>,
}

/// What the share of a pool in [`PoolShares`] counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareBasis {
    /// Fair shares of map slots and of reduce slots.
    FairShare,
    /// Fair shares of typeless containers (fresh, OMO's fair base).
    Containers,
    /// Queue capacities in slots (capacity).
    Capacity,
    /// Slots allocated by pending tasks (the adaptive fair scheduler).
    Allocation,
}

/// One pool as the policy divides the cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolShare {
    pub name: String,
    pub weight: f64,
    /// Runnable jobs in the pool.
    pub jobs: usize,
    pub running_maps: u32,
    pub running_reduces: u32,
    /// The pool's share of map and reduce slots ([`ShareBasis::FairShare`],
    /// `Capacity`, `Allocation`) or of containers (`share_map` only, for
    /// [`ShareBasis::Containers`]).
    pub share_map: f64,
    pub share_reduce: f64,
    /// Capacity: the queue's percent of the cluster.
    pub capacity_pct: Option<f64>,
}

/// How a policy divides the cluster among pools, for the TUI's Pools view.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolShares {
    pub basis: ShareBasis,
    /// The policy's own pools (a policy may regroup jobs, as the adaptive
    /// fair scheduler's shared pool does), in the order to show them.
    pub pools: Vec<PoolShare>,
}

/// A scheduling policy, in three parts: what it decides (this trait: a
/// heartbeat's launches, an ApplicationMaster's headroom), what it hears
/// ([`Policy::adopt`], [`Policy::hear`]) and what it shows ([`Show`]: the
/// inspector's values, pool shares). It sees the world read-only and the
/// heartbeating node, and decides which tasks launch there; each decision
/// carries a short `rule` that names why (it lands in the trace).
///
/// Decisions are applied as they are made ([`Heartbeat::launch_map`]) so
/// that a policy assigning several tasks in one heartbeat sees its own
/// earlier choices, as Hadoop's `obtainNewMapTask` marks a task running
/// the moment it hands it out.
pub trait Policy: Show + Snapshot + Send {
    /// Reduce slowstart fraction this policy schedules with.
    fn slowstart(&self) -> f64;

    /// Assign tasks to `hb.node`'s free capacity.
    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>);

    /// Called on every heartbeat of a live node, full or not, before
    /// `heartbeat`: for work that must go on while the cluster is full
    /// (fair's preemption). Must stay O(1) on most calls.
    fn maintain(&mut self, _hb: &mut Heartbeat<'_>) {}

    /// Whether this policy launches speculative copies itself, inside its
    /// job order (through [`Heartbeat::speculate`]), as Hadoop 1.x's
    /// schedulers do inside `JobInProgress.findNewMapTask` and
    /// `findNewReduceTask`. If not (the default), after each heartbeat the
    /// engine offers the node's still idle slots to speculative copies
    /// under the scenario's rule, jobs in queue order.
    fn speculates(&self) -> bool {
        false
    }

    /// Where jobs run under ApplicationMasters (YARN): what the scheduler
    /// tells job `j`'s AM on its allocate call (its headroom, and whether
    /// it schedules vcores too). By default what no task holds, memory
    /// only, as Hadoop's FifoScheduler reports it; a policy on a model
    /// without AMs is never asked.
    fn headroom(&self, w: RunView<'_>, _j: JobId) -> Headroom {
        Headroom {
            available: (w.cluster().live - w.cluster().used).floor0(),
            cpu: false,
        }
    }

    /// Why the policy cannot go on (a policy in another process that
    /// answered wrongly, too late or not at all): the run stops there.
    fn fault(&self) -> Option<&str> {
        None
    }

    /// Switched in mid-run: rebuild any state from the jobs already there.
    fn adopt(&mut self, _w: RunView<'_>) {}

    /// Whether the policy is asked on every heartbeat of a live node, even
    /// one with nothing free (a policy that preempts from its heartbeat
    /// decisions, which a full cluster needs most). Default: only when the
    /// node admits a task, as Hadoop's `askForNewTask`.
    fn asks_when_full(&self) -> bool {
        false
    }

    /// Whether the policy hears of every attempt that starts and every
    /// set-up, clean-up and ApplicationMaster task that starts or ends
    /// ([`Event::TaskStarted`], [`Event::JobTaskStarted`],
    /// [`Event::JobTaskEnded`]): a policy that keeps books of what runs
    /// where (one in another process). Asked when the policy comes in.
    fn hears_starts(&self) -> bool {
        false
    }

    /// What the policy says of itself for the record, beside its label
    /// (a policy in another process: the name and version it gave, its
    /// script's hash): it goes into `--json`'s `config`.
    fn record(&self) -> Option<Values> {
        None
    }

    /// Something happened that the policy may keep books of.
    fn hear(&mut self, _w: RunView<'_>, _e: Event) {}

    /// The run is over, and why ([`crate::sim::Sim::end`]): a policy in
    /// another process is told (`end` with its `reason`).
    fn end(&mut self, _w: RunView<'_>, _why: EndReason) {}
}

/// Why a run ended, as the policy is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// Every job has ended.
    Finished,
    /// The run reached the time it was to stop at (`--until`).
    Until,
    /// Jobs are left that can never run (nothing runs, nothing is due).
    Stalled,
    /// The caller stopped it: a quit, a signal, the end of a session.
    Stopped,
}

impl EndReason {
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Finished => "finished",
            EndReason::Until => "until",
            EndReason::Stalled => "stalled",
            EndReason::Stopped => "stopped",
        }
    }
}

/// A copy of a policy as it stands, for a checkpoint a run can be
/// restarted from exactly (the TUI's seek back). Every policy that is
/// `Clone` has it; one that cannot be copied (a policy in another process)
/// implements it to say `None`, and a seek back then replays the run from
/// its start.
pub trait Snapshot {
    fn snapshot(&self) -> Option<Box<dyn Policy>>;
}

impl<T: Policy + Clone + 'static> Snapshot for T {
    fn snapshot(&self) -> Option<Box<dyn Policy>> {
        Some(Box::new(self.clone()))
    }
}

/// What a policy shows of itself: the values it decides with (the TUI's
/// inspector, `--inspect`), how it divides the cluster among pools, and
/// what it says.
pub trait Show {
    /// The values the policy decides with, as they stand before this
    /// heartbeat's assignments. Must not change decision state.
    fn inspect(&self, w: RunView<'_>, node: NodeId) -> Inspection;

    /// Whether [`Show::inspect`] gives the values the policy sent with
    /// its last heartbeat's decisions (a policy in another process computes
    /// them there, before deciding), so the engine asks for them after the
    /// heartbeat rather than before.
    fn inspects_with_decisions(&self) -> bool {
        false
    }

    /// How the policy divides the cluster among pools, if it does (the
    /// TUI's Pools view); None for policies without pool shares.
    fn pool_shares(&self, _w: RunView<'_>) -> Option<PoolShares> {
        None
    }

    /// What the policy keeps of its own that reports and views show
    /// beside its inspection (OMO's release-rate windows, for the summary
    /// and the TUI's chart), for the code that knows its type to downcast.
    fn kept(&self) -> Option<&dyn std::any::Any> {
        None
    }

    /// Lines the policy has said since last asked (a policy process's
    /// stderr, when kept), for the run's log.
    fn said(&mut self, _out: &mut Vec<String>) {}
}

/// A YARN scheduler's answer to an ApplicationMaster's allocate call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headroom {
    /// What the application may still get (`Allocation.getResourceLimit`).
    pub available: crate::model::Resource,
    /// Whether the scheduler's resource types include CPU (the AM then
    /// counts containers by memory and vcores, else by memory alone).
    pub cpu: bool,
}

/// What a policy may need to know about the cluster when it is built.
#[derive(Clone, Copy, Debug)]
pub struct BuildCtx {
    pub heartbeat: Option<Ms>,
    pub capacity: Capacity,
}

/// A policy could not be built from its spec (unknown name, bad setting).
pub type BuildError = Box<dyn std::error::Error + Send + Sync>;

/// Builds policies by spec: the engine asks for one at the start of a run
/// and at every policy switch, scripted or interactive.
pub trait PolicyFactory: Send {
    fn build(&self, spec: &PolicySpec, ctx: &BuildCtx) -> Result<Built, BuildError>;
}

/// A policy built from a spec, and the label a run gives it: the spec as
/// the user wrote it (`fair[slowstart=1]`), or an external policy's
/// `external:NAME`.
pub struct Built {
    pub policy: Box<dyn Policy>,
    pub label: String,
}

/// Watches a run: told after every event and every command, with the world
/// as it then stands. Attached by whoever builds the run.
pub trait Observer: Send {
    fn observe(&mut self, w: RunView<'_>);

    /// What the observer keeps for reports and views (OMO's passive
    /// monitor: its release-rate windows), as [`Show::kept`].
    fn kept(&self) -> Option<&dyn std::any::Any> {
        None
    }

    /// A copy of this observer as it stands, for a checkpoint (see
    /// [`Policy::snapshot`]); `None` if it cannot be copied.
    fn snapshot(&self) -> Option<Box<dyn Observer>> {
        None
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_f32_value_is_its_shortest_decimal() {
        use super::{num32, Value};
        let x = 2.0f32 / 9.0;
        assert_eq!(num32(x), Value::Num(0.22222222));
        match num32(x) {
            Value::Num(y) => assert_eq!(y as f32, x),
            v => panic!("{v:?}"),
        }
        assert_eq!(num32(0.5), Value::Num(0.5));
        assert_eq!(num32(f32::NAN), Value::Null);
    }
}
