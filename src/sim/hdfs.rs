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
    if n == 0 || replication == 0 {
        return Vec::new();
    }
    let first = rng.random_range(0..n);
    place_rest(cluster, first, replication, rng)
}

/// As [`place`] for a block written by node `writer` of the cluster (a
/// reduce's output): the first replica on the writer itself.
pub fn place_from(
    cluster: &Cluster,
    writer: NodeId,
    replication: u32,
    rng: &mut impl Rng,
) -> Vec<NodeId> {
    if replication == 0 {
        return Vec::new();
    }
    place_rest(cluster, writer, replication, rng)
}

/// Random draws before falling back to a scan: a rack rule that a random
/// node fails this often (say a 1,000-node rack in a 1,001-node cluster)
/// is met by scanning instead.
const TRIES: u32 = 32;

fn place_rest(
    cluster: &Cluster,
    first: NodeId,
    replication: u32,
    rng: &mut impl Rng,
) -> Vec<NodeId> {
    let n = cluster.nodes.len() as u32;
    let want = replication.min(n) as usize;
    let mut out: Vec<NodeId> = Vec::with_capacity(want);
    out.push(first);
    if want >= 2 {
        let r1 = cluster.nodes[first as usize].rack;
        let second = pick(n, &out, rng, |i| cluster.nodes[i as usize].rack != r1)
            .unwrap_or_else(|| pick_unused(n, &out, rng));
        out.push(second);
        if want >= 3 {
            let r2 = cluster.nodes[second as usize].rack;
            let rack = &cluster.racks[r2 as usize].nodes;
            let same: Vec<NodeId> = rack.iter().copied().filter(|x| !out.contains(x)).collect();
            let third = if same.is_empty() {
                pick_unused(n, &out, rng)
            } else {
                same[rng.random_range(0..same.len())]
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

/// A random unused node satisfying `ok`, uniformly: by rejection, then by
/// a scan of every node if rejection keeps failing. None if no node does.
fn pick(
    n: u32,
    used: &[NodeId],
    rng: &mut impl Rng,
    ok: impl Fn(NodeId) -> bool,
) -> Option<NodeId> {
    for _ in 0..TRIES {
        let x = rng.random_range(0..n);
        if ok(x) && !used.contains(&x) {
            return Some(x);
        }
    }
    let all: Vec<NodeId> = (0..n).filter(|&i| ok(i) && !used.contains(&i)).collect();
    (!all.is_empty()).then(|| all[rng.random_range(0..all.len())])
}

fn pick_unused(n: u32, used: &[NodeId], rng: &mut impl Rng) -> NodeId {
    pick(n, used, rng, |_| true).expect("pick_unused called with every node used")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ClusterSpec, DatacenterSpec};
    use crate::sim::rng;

    fn cluster(nodes: u32, racks: u32) -> Cluster {
        let dc = DatacenterSpec {
            name: "dc0".into(),
            nodes,
            racks,
            rack_sizes: Vec::new(),
        };
        let spec = ClusterSpec::typed(vec![dc], 2, 2);
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
