//! Datacenters, racks, nodes and their slots.

use crate::model::Kind;
use crate::model::{Capacity, ClusterSpec, NodeId, Resource};
use rand::Rng;

#[derive(Clone, Debug)]
pub struct Node {
    pub id: NodeId,
    pub rack: u32,
    pub dc: u32,
    /// Speed factor; task compute time is divided by it.
    pub speed: f64,
    /// What the node offers ([`Capacity::node`]) and what its running
    /// tasks hold: attempts, and set-up, clean-up and ApplicationMaster
    /// tasks. The engine admits a task where its ask fits what is free
    /// ([`Capacity::admits`]), books it here while it runs, and releases
    /// it when it ends.
    pub capacity: Resource,
    pub used: Resource,
    /// Its slots of each kind as Hadoop 1.x's schedulers see them
    /// ([`Capacity::typed_view`]), and those taken, by the kind of slot:
    /// on typed slots the same as `used`; on unified containers the typed
    /// view some policies keep of them (DynamicMR, fair's `typed_slots`).
    pub map_slots: u32,
    pub reduce_slots: u32,
    pub used_map_slots: u32,
    pub used_reduce_slots: u32,
    /// Running attempts by task kind. They equal the slots taken by kind
    /// unless a policy borrows (DynamicMR's DHSA runs a reduce in a map
    /// slot or a map in a reduce slot).
    pub running_maps: u32,
    pub running_reduces: u32,
    /// Borrowed slots: reduces running in map slots, maps in reduce slots.
    pub reduces_in_map_slots: u32,
    pub maps_in_reduce_slots: u32,
    pub alive: bool,
    /// An out-of-band heartbeat is already scheduled for this instant.
    pub oob_pending: bool,
    /// Set-up, clean-up and ApplicationMaster tasks running here.
    pub job_tasks: u32,
    /// Which attempt each lane shows ([`Capacity::lanes`]): every attempt
    /// keeps a stable lane for the TUI's cluster view and timeline.
    pub lanes: Vec<Option<u32>>,
}

impl Node {
    /// What no task holds (signed: on YARN vcores may be over-committed,
    /// as Hadoop's memory-only calculator allows).
    pub fn free(&self) -> Resource {
        self.capacity - self.used
    }

    /// YARN's available resource: what no container holds, each part at
    /// least 0.
    pub fn available(&self) -> Resource {
        self.free().floor0()
    }

    /// How many more tasks in slots of kind `slot` the node admits, one
    /// slot each: free slots of the kind (typed), free containers
    /// (unified). What Hadoop 1.x's schedulers call the free slots.
    pub fn free_slots(&self, cap: &Capacity, slot: Kind) -> u32 {
        cap.admits_n(self.free(), cap.slot_ask(slot))
    }

    /// Free slots of one kind in the typed view (`map_slots`,
    /// `reduce_slots`), whatever else is free.
    pub fn free_in_view(&self, slot: Kind) -> u32 {
        match slot {
            Kind::Map => self.map_slots.saturating_sub(self.used_map_slots),
            Kind::Reduce => self.reduce_slots.saturating_sub(self.used_reduce_slots),
        }
    }

    /// Free slots of one kind in the typed view, never more than the node
    /// admits: the same as [`Node::free_slots`] on typed slots, the typed
    /// view's limit on unified containers.
    pub fn free_typed(&self, cap: &Capacity, slot: Kind) -> u32 {
        self.free_in_view(slot).min(self.free_slots(cap, slot))
    }

    /// Slots of type `slot` occupied by tasks of the other kind.
    pub fn borrowed(&self, slot: Kind) -> u32 {
        match slot {
            Kind::Map => self.reduces_in_map_slots,
            Kind::Reduce => self.maps_in_reduce_slots,
        }
    }

    /// Whether a task asking `ask` fits what is free.
    pub fn admits(&self, cap: &Capacity, ask: Resource) -> bool {
        cap.admits(self.free(), ask)
    }

    /// Whether the node admits a task of either kind: whether it asks
    /// for work on a heartbeat (Hadoop's `askForNewTask`).
    pub fn admits_any(&self, cap: &Capacity) -> bool {
        self.admits(cap, cap.slot_ask(Kind::Map)) || self.admits(cap, cap.slot_ask(Kind::Reduce))
    }

    /// The lowest free lane an attempt in a slot of kind `slot` may take.
    pub fn free_lane(&self, cap: &Capacity, slot: Kind) -> Option<usize> {
        cap.lane_range(slot).find(|&i| self.lanes[i].is_none())
    }

    pub fn running(&self) -> u32 {
        self.running_maps + self.running_reduces
    }
}

#[derive(Clone, Debug)]
pub struct Rack {
    pub dc: u32,
    pub nodes: Vec<NodeId>,
}

#[derive(Clone, Debug)]
pub struct Datacenter {
    pub name: String,
    pub racks: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct Cluster {
    pub nodes: Vec<Node>,
    pub racks: Vec<Rack>,
    pub dcs: Vec<Datacenter>,
    /// The capacity model: what a node offers, what a task asks.
    pub capacity: Capacity,
    /// Map and reduce slots of live nodes (Hadoop's `ClusterStatus` counts
    /// live TaskTrackers only); they drop when a node fails.
    pub total_map_slots: u32,
    pub total_reduce_slots: u32,
    /// Live nodes.
    pub live_nodes: u32,
    /// Over every node: reduces running in map slots and maps running in
    /// reduce slots (DynamicMR's borrowed slots).
    pub reduces_in_map_slots: u32,
    pub maps_in_reduce_slots: u32,
    /// The 25th percentile of node speeds (LATE's slow-node bar).
    pub speed_p25: f64,
    /// What live nodes offer, and what their tasks hold.
    pub live: Resource,
    pub used: Resource,
    /// The largest node's capacity (each part its own maximum).
    pub largest: Resource,
}

impl Cluster {
    /// Builds the topology: node ids run datacenter by datacenter, rack by
    /// rack; nodes are split over a datacenter's racks as evenly as
    /// possible (the first racks get the remainder), unless the spec gives
    /// each rack's size. Speeds come from the
    /// `nodes` random stream.
    pub fn build(spec: &ClusterSpec, rng: &mut impl Rng) -> Cluster {
        let capacity = spec.capacity();
        let mut nodes = Vec::new();
        let mut racks = Vec::new();
        let mut dcs = Vec::new();
        for (di, d) in spec.datacenters.iter().enumerate() {
            let nr = if d.rack_sizes.is_empty() {
                d.racks.max(1).min(d.nodes.max(1))
            } else {
                d.rack_sizes.len() as u32
            };
            let mut dc = Datacenter {
                name: d.name.clone(),
                racks: Vec::new(),
            };
            for r in 0..nr {
                let n_here = match d.rack_sizes.get(r as usize) {
                    Some(&n) => n,
                    None => d.nodes / nr + u32::from(r < d.nodes % nr),
                };
                let rid = racks.len() as u32;
                let mut rack = Rack {
                    dc: di as u32,
                    nodes: Vec::new(),
                };
                for _ in 0..n_here {
                    let id = nodes.len() as NodeId;
                    let (lo, hi) = spec.speed;
                    let speed = if hi > lo {
                        rng.random_range(lo..=hi)
                    } else {
                        lo
                    };
                    let (map_slots, reduce_slots) = capacity.typed_view();
                    nodes.push(Node {
                        id,
                        rack: rid,
                        dc: di as u32,
                        speed,
                        capacity: capacity.node(),
                        used: Resource::ZERO,
                        map_slots,
                        reduce_slots,
                        running_maps: 0,
                        running_reduces: 0,
                        used_map_slots: 0,
                        used_reduce_slots: 0,
                        reduces_in_map_slots: 0,
                        maps_in_reduce_slots: 0,
                        alive: true,
                        oob_pending: false,
                        job_tasks: 0,
                        lanes: vec![None; capacity.lanes()],
                    });
                    rack.nodes.push(id);
                }
                dc.racks.push(rid);
                racks.push(rack);
            }
            dcs.push(dc);
        }
        let total_map_slots = nodes.iter().map(|n| n.map_slots).sum();
        let total_reduce_slots = nodes.iter().map(|n| n.reduce_slots).sum();
        Cluster {
            nodes,
            racks,
            dcs,
            capacity,
            total_map_slots,
            total_reduce_slots,
            live_nodes: 0,
            reduces_in_map_slots: 0,
            maps_in_reduce_slots: 0,
            speed_p25: 0.0,
            live: Resource::ZERO,
            used: Resource::ZERO,
            largest: Resource::ZERO,
        }
        .with_derived()
    }

    fn with_derived(mut self) -> Cluster {
        self.live_nodes = self.nodes.len() as u32;
        self.live = self
            .nodes
            .iter()
            .fold(Resource::ZERO, |a, n| a + n.capacity);
        self.largest = self
            .nodes
            .iter()
            .fold(Resource::ZERO, |a, n| a.max_each(n.capacity));
        let mut speeds: Vec<f64> = self.nodes.iter().map(|n| n.speed).collect();
        speeds.sort_by(|a, b| a.total_cmp(b));
        self.speed_p25 = speeds
            .get(speeds.len().saturating_sub(1) / 4)
            .copied()
            .unwrap_or(1.0);
        self
    }

    /// A node dies or comes back: live totals follow.
    pub fn set_alive(&mut self, n: NodeId, alive: bool) {
        let node = &mut self.nodes[n as usize];
        if node.alive == alive {
            return;
        }
        node.alive = alive;
        let (m, r) = (node.map_slots, node.reduce_slots);
        let res = node.capacity;
        if alive {
            self.total_map_slots += m;
            self.total_reduce_slots += r;
            self.live_nodes += 1;
            self.live += res;
        } else {
            self.total_map_slots -= m;
            self.total_reduce_slots -= r;
            self.live_nodes -= 1;
            self.live -= res;
        }
    }

    /// A task asking `ask` starts on node `n`: its ask is booked.
    pub fn book(&mut self, n: NodeId, ask: Resource) {
        self.nodes[n as usize].used += ask;
        self.used += ask;
    }

    /// A task booked with `ask` on node `n` ends: its ask is released.
    pub fn release(&mut self, n: NodeId, ask: Resource) {
        self.nodes[n as usize].used -= ask;
        self.used -= ask;
    }

    pub fn total_slots(&self) -> u32 {
        self.total_map_slots + self.total_reduce_slots
    }
}
