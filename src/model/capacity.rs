//! One model of a node's capacity. A node offers an amount of capacity and
//! every task asks for an amount of it; the engine admits a task where its
//! ask fits what is free, books the ask while the task runs and releases
//! it when the task ends, by one rule whatever the cluster
//! (`cluster.slot_model`, docs/model.md and docs/yarn.md):
//!
//! | model | a node offers | a map asks | a reduce asks |
//! |---|---|---|---|
//! | `typed` (Hadoop 1.x) | map slots, reduce slots | one map slot | one reduce slot |
//! | `unified` (FRESH, OMO) | containers | one container | one container |
//! | `yarn` (Hadoop 2.x) | memory (MB) and vcores | its container | its container |
//!
//! Amounts are [`Resource`]s, two signed numbers whose meaning the model
//! gives. [`Capacity`] is the only code that asks which model a cluster
//! has: the engine, the policies, the TUI and the command line ask it
//! questions (what does one slot of this kind ask, does this ask fit, how
//! many lanes does a node show) rather than naming the model.

use super::Kind;
use std::ops::{Add, AddAssign, Mul, Neg, Range, Sub, SubAssign};

/// An amount of a node's capacity, or of what a task asks of it: two
/// numbers, named by the cluster's [`Capacity`] (memory in MB and vcores
/// on YARN; map and reduce slots on typed slots; containers on unified
/// containers, the second always 0). Signed, as Hadoop's `Resources` are:
/// `Resources.subtract` goes below zero (a headroom past a limit) and the
/// comparisons see it. Build one with [`Resource::memory`],
/// [`Resource::slots`] or [`Resource::containers`] and read it back with
/// the accessor of the same model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Resource([i64; 2]);

impl Resource {
    pub const ZERO: Resource = Resource([0, 0]);
    /// No limit: Hadoop's `Integer.MAX_VALUE` of each
    /// (`Resources.unbounded`).
    pub const UNLIMITED: Resource = Resource([i32::MAX as i64, i32::MAX as i64]);

    /// YARN: `mb` of memory (2^20 bytes) and `vcores` virtual cores.
    pub const fn memory(mb: i64, vcores: i64) -> Resource {
        Resource([mb, vcores])
    }

    /// Typed slots: `map` map slots and `reduce` reduce slots.
    pub const fn slots(map: i64, reduce: i64) -> Resource {
        Resource([map, reduce])
    }

    /// Unified containers: `n` of them.
    pub const fn containers(n: i64) -> Resource {
        Resource([n, 0])
    }

    /// YARN's memory, MB.
    pub const fn mb(self) -> i64 {
        self.0[0]
    }

    /// YARN's virtual cores.
    pub const fn vcores(self) -> i64 {
        self.0[1]
    }

    /// Typed slots of one kind.
    pub const fn slot(self, kind: Kind) -> i64 {
        match kind {
            Kind::Map => self.0[0],
            Kind::Reduce => self.0[1],
        }
    }

    /// Unified containers.
    pub const fn count(self) -> i64 {
        self.0[0]
    }

    pub fn is_zero(self) -> bool {
        self == Resource::ZERO
    }

    /// Hadoop's `Resources.fitsIn`: both components within `other`.
    pub fn fits_in(self, other: Resource) -> bool {
        self.0[0] <= other.0[0] && self.0[1] <= other.0[1]
    }

    /// Hadoop's `Resources.componentwiseMin`.
    pub fn min_each(self, o: Resource) -> Resource {
        Resource([self.0[0].min(o.0[0]), self.0[1].min(o.0[1])])
    }

    /// Each component the larger of the two.
    pub fn max_each(self, o: Resource) -> Resource {
        Resource([self.0[0].max(o.0[0]), self.0[1].max(o.0[1])])
    }

    /// Each component at least 0 (what an engine amount can be).
    pub fn floor0(self) -> Resource {
        self.max_each(Resource::ZERO)
    }

    /// Hadoop's `Resources.multiply`: each component times `by`, cast to
    /// a Java `int` (truncated towards zero, saturating).
    pub fn times(self, by: f64) -> Resource {
        let one = |x: i64| (x as f64 * by) as i32 as i64;
        Resource([one(self.0[0]), one(self.0[1])])
    }

    /// `f(component)` for each component.
    pub fn map(self, f: impl Fn(i64) -> i64) -> Resource {
        Resource([f(self.0[0]), f(self.0[1])])
    }
}

impl Add for Resource {
    type Output = Resource;
    fn add(self, o: Resource) -> Resource {
        Resource([self.0[0] + o.0[0], self.0[1] + o.0[1]])
    }
}

impl Sub for Resource {
    type Output = Resource;
    /// Hadoop's `Resources.subtract`: may go below zero.
    fn sub(self, o: Resource) -> Resource {
        Resource([self.0[0] - o.0[0], self.0[1] - o.0[1]])
    }
}

impl AddAssign for Resource {
    fn add_assign(&mut self, o: Resource) {
        *self = *self + o;
    }
}

impl SubAssign for Resource {
    fn sub_assign(&mut self, o: Resource) {
        *self = *self - o;
    }
}

impl Neg for Resource {
    type Output = Resource;
    fn neg(self) -> Resource {
        Resource([-self.0[0], -self.0[1]])
    }
}

/// `n` of an amount.
impl Mul<i64> for Resource {
    type Output = Resource;
    fn mul(self, n: i64) -> Resource {
        Resource([self.0[0] * n, self.0[1] * n])
    }
}

/// The scenario's `cluster.slot_model`: which shape a node's capacity has.
/// Only [`Capacity`] matches on it; everything else asks a `Capacity`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SlotModel {
    /// Hadoop 1.x: map slots and reduce slots.
    Typed,
    /// Typeless containers (FRESH, OMO): any task in any container.
    Unified,
    /// YARN: containers sized by memory and vcores, an ApplicationMaster
    /// per job (docs/yarn.md).
    Yarn,
}

impl SlotModel {
    /// As scenarios spell it.
    pub fn name(self) -> &'static str {
        match self {
            SlotModel::Typed => "typed",
            SlotModel::Unified => "unified",
            SlotModel::Yarn => "yarn",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A set of cluster models, as a policy's registry entry declares the
/// ones it runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Models(u8);

impl Models {
    pub const TYPED: Models = Models(1 << SlotModel::Typed as u8);
    pub const UNIFIED: Models = Models(1 << SlotModel::Unified as u8);
    pub const YARN: Models = Models(1 << SlotModel::Yarn as u8);
    /// Hadoop 1.x's schedulers: slots, typed or unified.
    pub const SLOTS: Models = Models(Models::TYPED.0 | Models::UNIFIED.0);
    pub const ALL: Models = Models(Models::SLOTS.0 | Models::YARN.0);

    /// Whether a cluster of this capacity is one of these models.
    pub fn has(self, c: &Capacity) -> bool {
        self.0 & c.model.bit() != 0
    }

    /// The models in the set, as scenarios spell them.
    pub fn names(self) -> Vec<&'static str> {
        [SlotModel::Typed, SlotModel::Unified, SlotModel::Yarn]
            .into_iter()
            .filter(|m| self.0 & m.bit() != 0)
            .map(SlotModel::name)
            .collect()
    }
}

/// YARN's defaults (Hadoop 2.7.3's yarn-default.xml and mapred-default.xml).
pub mod yarn_defaults {
    use super::Resource;
    use crate::model::Ms;
    /// `yarn.nodemanager.resource.memory-mb`, `.cpu-vcores`.
    pub const NODE: Resource = Resource::memory(8192, 8);
    /// `yarn.scheduler.minimum-allocation-mb`, `-vcores`.
    pub const MIN_ALLOCATION: Resource = Resource::memory(1024, 1);
    /// `yarn.scheduler.maximum-allocation-mb`, `-vcores`.
    pub const MAX_ALLOCATION: Resource = Resource::memory(8192, 32);
    /// `yarn.app.mapreduce.am.resource.mb`, `.cpu-vcores`.
    pub const AM: Resource = Resource::memory(1536, 1);
    /// `mapreduce.map.memory.mb`/`cpu.vcores`, likewise for reduces.
    pub const MAP: Resource = Resource::memory(1024, 1);
    pub const REDUCE: Resource = Resource::memory(1024, 1);
    /// `yarn.resourcemanager.nodemanagers.heartbeat-interval-ms`.
    pub const NM_HEARTBEAT: Ms = 1000;
    /// `yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms`.
    pub const AM_HEARTBEAT: Ms = 1000;
    /// `MRAppMaster.shutDownJob` sleeps 5 s before its JVM exits: the AM's
    /// container outlives the job by that much.
    pub const AM_LINGER: Ms = 5000;
}

/// The largest container YARN's ResourceManager grants on a cluster whose
/// largest node is `node` (`yarn.scheduler.maximum-allocation-*`, at most
/// the largest node: `AbstractYarnScheduler.updateMaximumAllocation`).
pub fn max_allocation(node: Resource) -> Resource {
    yarn_defaults::MAX_ALLOCATION.min_each(node)
}

/// A cluster's capacity model: what each node offers, what one slot of
/// each kind asks, how asks are admitted, and how the TUI lays a node's
/// running tasks out in lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacity {
    model: SlotModel,
    /// Each node's map and reduce slots as configured (`map_slots`,
    /// `reduce_slots`): typed slots, or the typed view Hadoop 1.x's
    /// schedulers keep of unified containers.
    map_slots: u32,
    reduce_slots: u32,
    /// YARN: each node's memory and vcores.
    node_resource: Resource,
}

impl Capacity {
    /// The capacity of a cluster of `model` with these per-node settings
    /// (`node_resource` is YARN's alone; the slots are typed and unified
    /// clusters').
    pub fn new(
        model: SlotModel,
        map_slots: u32,
        reduce_slots: u32,
        node_resource: Resource,
    ) -> Capacity {
        Capacity {
            model,
            map_slots,
            reduce_slots,
            node_resource,
        }
    }

    /// As scenarios spell the model: `typed`, `unified` or `yarn`.
    pub fn name(&self) -> &'static str {
        self.model.name()
    }

    /// The scenario's `slot_model`, for the resolved configuration.
    pub fn slot_model(&self) -> SlotModel {
        self.model
    }

    /// What one node offers.
    pub fn node(&self) -> Resource {
        match self.model {
            SlotModel::Typed => Resource::slots(self.map_slots.into(), self.reduce_slots.into()),
            SlotModel::Unified => {
                Resource::containers(i64::from(self.map_slots + self.reduce_slots))
            }
            SlotModel::Yarn => self.node_resource,
        }
    }

    /// A node's slots of each kind as Hadoop 1.x's schedulers see them:
    /// typed slots, or unified containers' typed view (their configured
    /// `map_slots` and `reduce_slots`). On YARN, where a node has no slots,
    /// the minimum-allocation containers it holds at most, all of one kind:
    /// what a count of slots (a slot chart, LATE's cap) sees of it.
    pub fn typed_view(&self) -> (u32, u32) {
        match self.model {
            SlotModel::Typed | SlotModel::Unified => (self.map_slots, self.reduce_slots),
            SlotModel::Yarn => {
                let min = yarn_defaults::MIN_ALLOCATION.mb();
                (
                    u32::try_from((self.node_resource.mb() / min).max(1)).unwrap_or(u32::MAX),
                    0,
                )
            }
        }
    }

    /// What one task asks for in a slot of kind `slot` (a slot-borrowing
    /// policy puts a task in a slot of the other kind): one slot of that
    /// kind, one container, or on YARN the smallest container (a YARN
    /// scheduler sizes each container itself; this is the least one asks).
    pub fn slot_ask(&self, slot: Kind) -> Resource {
        match (self.model, slot) {
            (SlotModel::Typed, Kind::Map) => Resource::slots(1, 0),
            (SlotModel::Typed, Kind::Reduce) => Resource::slots(0, 1),
            (SlotModel::Unified, _) => Resource::containers(1),
            (SlotModel::Yarn, _) => yarn_defaults::MIN_ALLOCATION,
        }
    }

    /// The rule by which the engine admits a task: its ask within what the
    /// node has free. On YARN the engine holds memory only to it, as
    /// Hadoop's `DefaultResourceCalculator` does: whether vcores count is
    /// the scheduler's resource calculator's business.
    pub fn admits(&self, free: Resource, ask: Resource) -> bool {
        match self.model {
            SlotModel::Typed | SlotModel::Unified => ask.fits_in(free),
            SlotModel::Yarn => ask.mb() <= free.mb(),
        }
    }

    /// How many tasks asking `ask` the free amount admits, one after the
    /// other.
    pub fn admits_n(&self, free: Resource, ask: Resource) -> u32 {
        let one = |f: i64, a: i64| if a > 0 { (f / a).max(0) } else { i64::MAX };
        let n = match self.model {
            SlotModel::Typed | SlotModel::Unified => {
                one(free.0[0], ask.0[0]).min(one(free.0[1], ask.0[1]))
            }
            SlotModel::Yarn => one(free.mb(), ask.mb()),
        };
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// Whether maps and reduces draw on one capacity (containers), so a
    /// reduce that waits on its job's maps can crowd them out: the engine
    /// then bounds early reduces (YARN's `reduce.rampup.limit`). On typed
    /// slots each kind has its own.
    pub fn kinds_share(&self) -> bool {
        self.model != SlotModel::Typed
    }

    /// How many lanes the TUI shows a node's running attempts in: one per
    /// slot, or on YARN one per minimum-allocation container it can hold.
    pub fn lanes(&self) -> usize {
        let (m, r) = self.typed_view();
        (m + r) as usize
    }

    /// The lanes an attempt in a slot of kind `slot` may take: map slots'
    /// then reduce slots' on typed slots, any on containers.
    pub fn lane_range(&self, slot: Kind) -> Range<usize> {
        let m = self.map_slots as usize;
        match (self.model, slot) {
            (SlotModel::Typed, Kind::Map) => 0..m,
            (SlotModel::Typed, Kind::Reduce) => m..self.lanes(),
            (SlotModel::Unified | SlotModel::Yarn, _) => 0..self.lanes(),
        }
    }

    /// What a run's utilisation measures: under YARN allocated memory over
    /// live memory, ApplicationMasters included (the ResourceManager's
    /// cluster metrics); on slots, running attempts over live slots.
    pub fn utilization(&self) -> Utilization {
        match self.model {
            SlotModel::Yarn => Utilization::Memory,
            SlotModel::Typed | SlotModel::Unified => Utilization::Slots,
        }
    }

    /// The unit one slot of capacity is called by, plural: "slots",
    /// "containers".
    pub fn slot_word(&self) -> &'static str {
        match self.model {
            SlotModel::Typed => "slots",
            SlotModel::Unified | SlotModel::Yarn => "containers",
        }
    }

    /// What to draw this cluster's capacity as.
    pub fn gauge(&self) -> Gauge {
        match self.model {
            SlotModel::Typed => Gauge::TypedSlots,
            SlotModel::Unified => Gauge::Containers,
            SlotModel::Yarn => Gauge::Memory,
        }
    }

    /// Whether a task's container has a size of its own (YARN's memory and
    /// vcores), which the trace gives; slots and unified containers are
    /// all alike.
    pub fn sized_containers(&self) -> bool {
        self.model == SlotModel::Yarn
    }

    /// Whether jobs run under an ApplicationMaster (YARN): each job's AM is
    /// a task of its own, placed by the scheduler.
    pub fn app_masters(&self) -> bool {
        self.model == SlotModel::Yarn
    }

    /// An amount in this model's terms, as protocol 2 and the TUI name
    /// its parts: `map`/`reduce`, `any`, or `memory_mb`/`vcores`.
    pub fn parts(&self, r: Resource) -> [(&'static str, i64); 2] {
        match self.model {
            SlotModel::Typed => [("map", r.0[0]), ("reduce", r.0[1])],
            SlotModel::Unified => [("any", r.0[0]), ("", 0)],
            SlotModel::Yarn => [("memory_mb", r.mb()), ("vcores", r.vcores())],
        }
    }
}

/// What the TUI and the command line draw a cluster's capacity as
/// ([`Capacity::gauge`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gauge {
    /// Map slots and reduce slots, each kind against its own.
    TypedSlots,
    /// Containers, maps and reduces together against all of them.
    Containers,
    /// Memory (GB) and vcores, ApplicationMasters among the holders.
    Memory,
}

/// What a run's utilisation is measured by ([`Capacity::utilization`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Utilization {
    Slots,
    Memory,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rule_admits_books_and_releases_on_every_model() {
        let typed = Capacity::new(SlotModel::Typed, 2, 1, Resource::ZERO);
        let unified = Capacity::new(SlotModel::Unified, 2, 1, Resource::ZERO);
        let yarn = Capacity::new(SlotModel::Yarn, 0, 0, Resource::memory(4096, 2));
        for (cap, ask, n) in [
            (typed, typed.slot_ask(Kind::Map), 2),
            (typed, typed.slot_ask(Kind::Reduce), 1),
            (unified, unified.slot_ask(Kind::Reduce), 3),
            // Memory admits four containers though only two vcores exist:
            // vcores are the scheduler's to count.
            (yarn, Resource::memory(1024, 1), 4),
        ] {
            let mut used = Resource::ZERO;
            let mut admitted = 0;
            while cap.admits(cap.node() - used, ask) {
                used += ask;
                admitted += 1;
            }
            assert_eq!(admitted, n, "{}", cap.name());
            assert_eq!(cap.admits_n(cap.node(), ask), n, "{}", cap.name());
            for _ in 0..n {
                used -= ask;
            }
            assert!(used.is_zero());
        }
        // A typed node's map slots do not take reduces.
        assert!(!typed.admits(Resource::slots(2, 0), typed.slot_ask(Kind::Reduce)));
    }

    #[test]
    fn lanes_follow_the_model() {
        let typed = Capacity::new(SlotModel::Typed, 2, 1, Resource::ZERO);
        assert_eq!(typed.lane_range(Kind::Map), 0..2);
        assert_eq!(typed.lane_range(Kind::Reduce), 2..3);
        let unified = Capacity::new(SlotModel::Unified, 2, 1, Resource::ZERO);
        assert_eq!(unified.lane_range(Kind::Reduce), 0..3);
        let yarn = Capacity::new(SlotModel::Yarn, 0, 0, Resource::memory(8192, 8));
        assert_eq!(yarn.lanes(), 8);
        assert_eq!(yarn.typed_view(), (8, 0));
    }

    #[test]
    fn hadoop_arithmetic() {
        let a = Resource::memory(1024, 1);
        assert_eq!(a - Resource::memory(2048, 0), Resource::memory(-1024, 1));
        assert_eq!(
            (a - Resource::memory(2048, 0)).floor0(),
            Resource::memory(0, 1)
        );
        assert_eq!(
            Resource::memory(1000, 3).times(0.5),
            Resource::memory(500, 1)
        );
        // Java's (int) cast saturates.
        assert_eq!(
            Resource::UNLIMITED.times(4.0),
            Resource::memory(i32::MAX.into(), i32::MAX.into())
        );
        assert_eq!(a * 3, Resource::memory(3072, 3));
        assert!(Models::SLOTS.has(&Capacity::new(SlotModel::Unified, 1, 1, Resource::ZERO)));
        assert!(!Models::SLOTS.has(&Capacity::new(SlotModel::Yarn, 0, 0, a)));
        assert_eq!(Models::ALL.names(), ["typed", "unified", "yarn"]);
    }
}
