//! The cluster's disks and links as network resources, and the path a
//! transfer takes over them.
//!
//! Resource ids follow the topology: node N's disk, up and down links are
//! 3N, 3N+1, 3N+2; then each rack's uplink up and down; then each
//! datacenter's WAN link up and down. A transfer from node a to node b
//! crosses a's up link and b's down link, both racks' uplinks when the
//! racks differ, and both datacenters' WAN links when the datacenters
//! differ, in that order; a node-local transfer crosses no link.

use super::cluster::Cluster;
use super::network::{Network, ResId, MAX_PATH};
use crate::model::{NetworkSpec, NodeId};

/// A path under construction (no allocation).
#[derive(Clone, Copy, Debug)]
pub struct Path {
    ids: [ResId; MAX_PATH],
    len: usize,
}

impl Default for Path {
    fn default() -> Self {
        Path {
            ids: [0; MAX_PATH],
            len: 0,
        }
    }
}

impl Path {
    /// A path of one resource.
    pub fn of(r: ResId) -> Path {
        let mut p = Path::default();
        p.push(r);
        p
    }

    pub fn as_slice(&self) -> &[ResId] {
        &self.ids[..self.len]
    }

    /// Adds `r` unless it is there already or the path is full (a pipeline
    /// write crossing one link twice counts it once).
    fn push(&mut self, r: ResId) {
        if self.len < MAX_PATH && !self.as_slice().contains(&r) {
            self.ids[self.len] = r;
            self.len += 1;
        }
    }
}

#[derive(Clone, Debug)]
pub struct Links {
    nodes: u32,
    racks: u32,
    /// Rack of each node and datacenter of each rack.
    node_rack: Vec<u32>,
    rack_dc: Vec<u32>,
}

impl Links {
    /// Adds the cluster's resources to `net` (which must be empty).
    pub fn build(net: &mut Network, cluster: &Cluster, spec: &NetworkSpec) -> Links {
        assert!(net.resources.is_empty(), "the links come first");
        for _ in &cluster.nodes {
            net.add_resource(spec.disk_mbps);
            net.add_resource(spec.nic_mbps);
            net.add_resource(spec.nic_mbps);
        }
        for rack in &cluster.racks {
            let cap = rack.nodes.len().max(1) as f64 * spec.nic_mbps / spec.rack_oversubscription;
            net.add_resource(cap);
            net.add_resource(cap);
        }
        for _ in &cluster.dcs {
            net.add_resource(spec.inter_dc_mbps);
            net.add_resource(spec.inter_dc_mbps);
        }
        Links {
            nodes: cluster.nodes.len() as u32,
            racks: cluster.racks.len() as u32,
            node_rack: cluster.nodes.iter().map(|n| n.rack).collect(),
            rack_dc: cluster.racks.iter().map(|r| r.dc).collect(),
        }
    }

    /// Resources the cluster has (others are the engine's own, per flow).
    pub fn count(&self) -> u32 {
        3 * self.nodes + 2 * self.racks + 2 * self.rack_dc.iter().max().map_or(0, |d| d + 1)
    }

    pub fn disk(&self, n: NodeId) -> ResId {
        3 * n
    }

    fn up(&self, n: NodeId) -> ResId {
        3 * n + 1
    }

    fn down(&self, n: NodeId) -> ResId {
        3 * n + 2
    }

    fn rack_up(&self, r: u32) -> ResId {
        3 * self.nodes + 2 * r
    }

    fn rack_down(&self, r: u32) -> ResId {
        3 * self.nodes + 2 * r + 1
    }

    fn dc_up(&self, d: u32) -> ResId {
        3 * self.nodes + 2 * self.racks + 2 * d
    }

    fn dc_down(&self, d: u32) -> ResId {
        3 * self.nodes + 2 * self.racks + 2 * d + 1
    }

    /// The links from node `a` to node `b` (none if they are the same).
    fn hop(&self, p: &mut Path, a: NodeId, b: NodeId) {
        if a == b {
            return;
        }
        let (ra, rb) = (self.node_rack[a as usize], self.node_rack[b as usize]);
        let (da, db) = (self.rack_dc[ra as usize], self.rack_dc[rb as usize]);
        p.push(self.up(a));
        if ra != rb {
            p.push(self.rack_up(ra));
            if da != db {
                p.push(self.dc_up(da));
                p.push(self.dc_down(db));
            }
            p.push(self.rack_down(rb));
        }
        p.push(self.down(b));
    }

    /// Reading from `src`'s disk into `dst` (an input read, a shuffle fetch).
    pub fn read(&self, src: NodeId, dst: NodeId) -> Path {
        let mut p = Path::default();
        p.push(self.disk(src));
        self.hop(&mut p, src, dst);
        p
    }

    /// A read from `src`'s disk written to `dst`'s (a shuffle fetch that
    /// ends on the reducer's disk). A node-local one crosses its disk once.
    pub fn read_to_disk(&self, src: NodeId, dst: NodeId) -> Path {
        let mut p = self.read(src, dst);
        p.push(self.disk(dst));
        p
    }

    /// Writing to `node`'s own disk (a spill).
    pub fn local(&self, node: NodeId) -> Path {
        let mut p = Path::default();
        p.push(self.disk(node));
        p
    }

    /// HDFS's replication pipeline: the writer's disk, then each replica in
    /// turn, every byte through every hop and every replica's disk.
    pub fn pipeline(&self, replicas: &[NodeId]) -> Path {
        let mut p = Path::default();
        let mut prev: Option<NodeId> = None;
        for &n in replicas {
            if let Some(a) = prev {
                self.hop(&mut p, a, n);
            }
            p.push(self.disk(n));
            prev = Some(n);
        }
        p
    }

    /// Where resource `r` sits in the layout [`Links::build`] gives: its
    /// kind, as [`Links::KINDS`] names it, and the node, rack or
    /// datacenter it belongs to (ids past the cluster's read as
    /// datacenter links).
    fn locate(&self, r: ResId) -> (usize, u32) {
        let node_ids = 3 * self.nodes;
        let rack_ids = node_ids + 2 * self.racks;
        if r < node_ids {
            ((r % 3) as usize, r / 3)
        } else if r < rack_ids {
            (3 + ((r - node_ids) % 2) as usize, (r - node_ids) / 2)
        } else {
            (5 + ((r - rack_ids) % 2) as usize, (r - rack_ids) / 2)
        }
    }

    /// What kind of resource `r` is, as [`Links::KINDS`] names it (the
    /// last: the engine's own, a reducer's shuffle limit).
    pub fn kind(&self, r: ResId) -> usize {
        if r < self.count() {
            self.locate(r).0
        } else {
            7
        }
    }

    pub const KINDS: [&'static str; 8] = [
        "disks",
        "NIC uplinks",
        "NIC downlinks",
        "rack uplinks",
        "rack downlinks",
        "datacenter uplinks",
        "datacenter downlinks",
        "reducers' shuffle limits",
    ];

    /// The name a resource is reported by: `n3.disk`, `n3.up`, `n3.down`,
    /// `r1.up`, `r1.down`, `d0.up`, `d0.down`.
    pub fn name(&self, r: ResId) -> String {
        let (kind, i) = self.locate(r);
        let (at, what) = [
            ("n", "disk"),
            ("n", "up"),
            ("n", "down"),
            ("r", "up"),
            ("r", "down"),
            ("d", "up"),
            ("d", "down"),
        ][kind];
        format!("{at}{i}.{what}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ClusterSpec, DatacenterSpec};
    use crate::sim::rng;

    fn two_dcs() -> (Network, Links) {
        let spec = ClusterSpec::typed(
            vec![
                DatacenterSpec {
                    name: "a".into(),
                    nodes: 4,
                    racks: 2,
                    rack_sizes: Vec::new(),
                },
                DatacenterSpec {
                    name: "b".into(),
                    nodes: 2,
                    racks: 1,
                    rack_sizes: Vec::new(),
                },
            ],
            1,
            1,
        );
        let c = Cluster::build(&spec, &mut rng::stream(1, 1));
        let mut net = Network::new();
        let l = Links::build(&mut net, &c, &NetworkSpec::default());
        (net, l)
    }

    #[test]
    fn paths_cross_what_they_should() {
        let (net, l) = two_dcs();
        let names = |p: Path| p.as_slice().iter().map(|&r| l.name(r)).collect::<Vec<_>>();
        assert_eq!(names(l.local(2)), ["n2.disk"]);
        assert_eq!(names(l.read(0, 1)), ["n0.disk", "n0.up", "n1.down"]);
        assert_eq!(
            names(l.read(0, 2)),
            ["n0.disk", "n0.up", "r0.up", "r1.down", "n2.down"]
        );
        assert_eq!(
            names(l.read(0, 5)),
            ["n0.disk", "n0.up", "r0.up", "d0.up", "d1.down", "r2.down", "n5.down"]
        );
        assert_eq!(
            names(l.pipeline(&[0, 2, 3])),
            [
                "n0.disk", "n0.up", "r0.up", "r1.down", "n2.down", "n2.disk", "n2.up", "n3.down",
                "n3.disk"
            ]
        );
        // Rack uplinks: nodes × nic / oversubscription.
        assert_eq!(
            net.resources[l.rack_up(0) as usize].capacity,
            2.0 * 125.0 / 4.0
        );
        assert_eq!(l.count() as usize, net.resources.len());
    }
}
