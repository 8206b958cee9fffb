//! Datacenters, racks, nodes and their slots.

use super::job::Kind;
use crate::model::{ClusterSpec, NodeId, Resource, SlotModel};
use rand::Rng;

#[derive(Clone, Debug)]
pub struct Node {
    pub id: NodeId,
    pub rack: u32,
    pub dc: u32,
    /// Speed factor; task compute time is divided by it.
    pub speed: f64,
    pub map_slots: u32,
    pub reduce_slots: u32,
    /// Running tasks by task kind.
    pub running_maps: u32,
    pub running_reduces: u32,
    /// Occupied slots by slot type. They equal the running counts by kind
    /// unless a policy borrows (DynamicMR's DHSA runs a reduce in a map
    /// slot or a map in a reduce slot); on a unified cluster the slot type
    /// is only a policy's typed view of its containers.
    pub used_map_slots: u32,
    pub used_reduce_slots: u32,
    /// Borrowed slots: reduces running in map slots, maps in reduce slots.
    pub reduces_in_map_slots: u32,
    pub maps_in_reduce_slots: u32,
    pub alive: bool,
    /// An out-of-band heartbeat is already scheduled for this instant.
    pub oob_pending: bool,
    /// Job set-up and clean-up tasks running here (in `used_*_slots` too).
    pub job_tasks: u32,
    /// `slot_model = "yarn"`: what the node offers and what its containers
    /// hold (allocated, not yet released); zero otherwise.
    pub resource: Resource,
    pub used: Resource,
    /// What runs in each slot: map slots first, then reduce slots (typed),
    /// or containers (unified). Gives every attempt a stable lane for the
    /// TUI's cluster view and timeline.
    pub lanes: Vec<Option<u32>>,
}

impl Node {
    /// Free map slots (typed) or free containers (unified).
    pub fn free_maps(&self, model: SlotModel) -> u32 {
        match model {
            SlotModel::Typed => self.map_slots.saturating_sub(self.used_map_slots),
            SlotModel::Unified | SlotModel::Yarn => self.free_containers(),
        }
    }

    /// Free reduce slots (typed) or free containers (unified).
    pub fn free_reduces(&self, model: SlotModel) -> u32 {
        match model {
            SlotModel::Typed => self.reduce_slots.saturating_sub(self.used_reduce_slots),
            SlotModel::Unified | SlotModel::Yarn => self.free_containers(),
        }
    }

    /// Free slots of one type in the typed view of the node (`map_slots` +
    /// `reduce_slots`), on either slot model: on a unified cluster, never
    /// more than the free containers.
    pub fn free_typed(&self, slot: Kind) -> u32 {
        let free = match slot {
            Kind::Map => self.map_slots.saturating_sub(self.used_map_slots),
            Kind::Reduce => self.reduce_slots.saturating_sub(self.used_reduce_slots),
        };
        free.min(self.free_containers())
    }

    pub fn free_containers(&self) -> u32 {
        (self.map_slots + self.reduce_slots)
            .saturating_sub(self.running_maps + self.running_reduces + self.job_tasks)
    }

    /// Slots of type `slot` occupied by tasks of the other kind.
    pub fn borrowed(&self, slot: Kind) -> u32 {
        match slot {
            Kind::Map => self.reduces_in_map_slots,
            Kind::Reduce => self.maps_in_reduce_slots,
        }
    }

    /// The lowest free lane of a slot type (typed: map lanes first, then
    /// reduce lanes; unified: any container), if any.
    pub fn free_lane(&self, model: SlotModel, slot: Kind) -> Option<usize> {
        let m = self.map_slots as usize;
        let range = match (model, slot) {
            (SlotModel::Unified | SlotModel::Yarn, _) => 0..self.lanes.len(),
            (SlotModel::Typed, Kind::Map) => 0..m,
            (SlotModel::Typed, Kind::Reduce) => m..self.lanes.len(),
        };
        range.into_iter().find(|&i| self.lanes[i].is_none())
    }

    pub fn running(&self) -> u32 {
        self.running_maps + self.running_reduces
    }

    pub fn has_free_slot(&self, model: SlotModel) -> bool {
        if model == SlotModel::Yarn {
            return self.available().mb >= crate::model::yarn_defaults::MIN_ALLOCATION.mb
                && self.free_containers() > 0;
        }
        self.free_maps(model) > 0 || self.free_reduces(model) > 0
    }

    /// `slot_model = "yarn"`: what no container holds.
    pub fn available(&self) -> Resource {
        self.resource.minus(self.used)
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
    pub model: SlotModel,
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
    /// `slot_model = "yarn"`: live nodes' resources and what containers
    /// hold on them.
    pub capacity: Resource,
    pub used: Resource,
    /// The largest node's memory and vcores (each its own maximum).
    pub largest: Resource,
}

impl Cluster {
    /// Builds the topology: node ids run datacenter by datacenter, rack by
    /// rack; nodes are split over a datacenter's racks as evenly as
    /// possible (the first racks get the remainder), unless the spec gives
    /// each rack's size. Speeds come from the
    /// `nodes` random stream.
    pub fn build(spec: &ClusterSpec, rng: &mut impl Rng) -> Cluster {
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
                    let yarn = spec.slot_model == SlotModel::Yarn;
                    // Under yarn a lane is a minimum allocation's worth of
                    // memory: no node holds more containers than that.
                    let (map_slots, reduce_slots) = if yarn {
                        let min = crate::model::yarn_defaults::MIN_ALLOCATION.mb;
                        ((spec.node_resource.mb / min).max(1), 0)
                    } else {
                        (spec.map_slots, spec.reduce_slots)
                    };
                    nodes.push(Node {
                        id,
                        rack: rid,
                        dc: di as u32,
                        speed,
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
                        resource: if yarn {
                            spec.node_resource
                        } else {
                            Resource::ZERO
                        },
                        used: Resource::ZERO,
                        lanes: vec![None; (map_slots + reduce_slots) as usize],
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
            model: spec.slot_model,
            total_map_slots,
            total_reduce_slots,
            live_nodes: 0,
            reduces_in_map_slots: 0,
            maps_in_reduce_slots: 0,
            speed_p25: 0.0,
            capacity: Resource::ZERO,
            used: Resource::ZERO,
            largest: Resource::ZERO,
        }
        .with_derived()
    }

    fn with_derived(mut self) -> Cluster {
        self.live_nodes = self.nodes.len() as u32;
        self.capacity = self
            .nodes
            .iter()
            .fold(Resource::ZERO, |a, n| a.plus(n.resource));
        self.largest = self.nodes.iter().fold(Resource::ZERO, |a, n| {
            Resource::new(a.mb.max(n.resource.mb), a.vcores.max(n.resource.vcores))
        });
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
        let res = node.resource;
        if alive {
            self.total_map_slots += m;
            self.total_reduce_slots += r;
            self.live_nodes += 1;
            self.capacity = self.capacity.plus(res);
        } else {
            self.total_map_slots -= m;
            self.total_reduce_slots -= r;
            self.live_nodes -= 1;
            self.capacity = self.capacity.minus(res);
        }
    }

    /// A container of `res` starts (`true`) or ends on node `n`.
    pub fn hold(&mut self, n: NodeId, res: Resource, start: bool) {
        let node = &mut self.nodes[n as usize];
        if start {
            node.used = node.used.plus(res);
            self.used = self.used.plus(res);
        } else {
            node.used = node.used.minus(res);
            self.used = self.used.minus(res);
        }
    }

    pub fn total_slots(&self) -> u32 {
        self.total_map_slots + self.total_reduce_slots
    }
}
