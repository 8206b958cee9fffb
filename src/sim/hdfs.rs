//! HDFS block replica placement.

use super::cluster::Cluster;
use crate::model::NodeId;
use rand::Rng;

/// Places `replication` replicas of one block like HDFS's default policy
/// with an off-cluster writer: the first on a random node, the second on a
/// random node of another rack, the third on another node of the second's
/// rack; any further replicas on random nodes not yet used. When the
/// topology cannot satisfy a rule (one rack, a one-node rack), the replica
/// goes to any unused node, as HDFS falls back. Never more replicas than nodes.
pub fn place(cluster: &Cluster, replication: u32, rng: &mut impl Rng) -> Vec<NodeId> {
    let n = cluster.nodes.len() as u32;
    let want = replication.min(n) as usize;
    let mut out: Vec<NodeId> = Vec::with_capacity(want);
    if want == 0 {
        return out;
    }
    let first = rng.gen_range(0..n);
    out.push(first);
    if want >= 2 {
        let r1 = cluster.nodes[first as usize].rack;
        let others: Vec<NodeId> = (0..n)
            .filter(|&i| cluster.nodes[i as usize].rack != r1)
            .collect();
        let second = if others.is_empty() {
            pick_unused(n, &out, rng)
        } else {
            others[rng.gen_range(0..others.len())]
        };
        out.push(second);
        if want >= 3 {
            let r2 = cluster.nodes[second as usize].rack;
            let same: Vec<NodeId> = cluster.racks[r2 as usize]
                .nodes
                .iter()
                .copied()
                .filter(|x| !out.contains(x))
                .collect();
            let third = if same.is_empty() {
                pick_unused(n, &out, rng)
            } else {
                same[rng.gen_range(0..same.len())]
            };
            out.push(third);
        }
    }
    while out.len() < want {
        let x = pick_unused(n, &out, rng);
        out.push(x);
    }
    out
}

fn pick_unused(n: u32, used: &[NodeId], rng: &mut impl Rng) -> NodeId {
    let free = n as usize - used.len();
    let mut k = rng.gen_range(0..free);
    for i in 0..n {
        if !used.contains(&i) {
            if k == 0 {
                return i;
            }
            k -= 1;
        }
    }
    unreachable!("pick_unused called with every node used")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ClusterSpec, DatacenterSpec, SlotModel};
    use crate::sim::rng;

    fn cluster(nodes: u32, racks: u32) -> Cluster {
        let spec = ClusterSpec {
            datacenters: vec![DatacenterSpec {
                name: "dc0".into(),
                nodes,
                racks,
            }],
            map_slots: 2,
            reduce_slots: 2,
            slot_model: SlotModel::Typed,
            heartbeat: Some(3000),
            out_of_band_heartbeat: false,
            speed: (1.0, 1.0),
        };
        Cluster::build(&spec, &mut rng::stream(1, 0))
    }

    #[test]
    fn rack_aware_three_replicas() {
        let c = cluster(20, 4);
        let mut r = rng::stream(7, rng::STREAM_PLACEMENT);
        for _ in 0..500 {
            let p = place(&c, 3, &mut r);
            assert_eq!(p.len(), 3);
            let rk: Vec<u32> = p.iter().map(|&x| c.nodes[x as usize].rack).collect();
            assert_ne!(rk[0], rk[1], "second replica on another rack");
            assert_eq!(rk[1], rk[2], "third replica on the second's rack");
            assert!(p[0] != p[1] && p[1] != p[2] && p[0] != p[2]);
        }
    }

    #[test]
    fn single_rack_and_small_clusters() {
        let c = cluster(2, 1);
        let mut r = rng::stream(7, rng::STREAM_PLACEMENT);
        let p = place(&c, 3, &mut r);
        assert_eq!(p.len(), 2);
        assert_ne!(p[0], p[1]);
    }
}
