//! The per-job index of pending maps: by node, rack and datacenter, each
//! list's lowest pending task found in amortised O(1), so a policy asking
//! "a local map of this job on this node?" at every heartbeat does not
//! scan the job's maps.

use super::cluster::Cluster;
use crate::model::NodeId;
use std::cell::Cell;
use std::sync::Arc;

/// Lists of task ids in ascending order, one per key (a node, rack or
/// datacenter), each with a lazily advanced head (kept apart, in
/// [`MapIndex`]): entries that stopped being pending are skipped once and
/// never again, so finding a list's lowest pending task is amortised
/// O(1). No entry ever leaves a list and none joins after building (a
/// task put back is one its lists hold), so all of them share one array:
/// list `i`, of key `keys[i]` (ascending), is
/// `items[starts[i]..starts[i + 1]]`, its head `heads[i]` (an index into
/// `items`). About 12 bytes a key and 4 a task, where a hash map of `Vec`s
/// took over 100 bytes a key, which for a job of a few thousand maps on a
/// cluster of thousands of nodes outweighed its tasks.
#[derive(Debug, Default)]
pub(super) struct KeyedLists {
    keys: Vec<u32>,
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl KeyedLists {
    /// The lists of tasks `0..tasks` under keys below `n_keys`, task `t`
    /// in the list of each key `keys_of(t, ..)` pushes (once each), and
    /// their heads.
    fn build(
        tasks: u32,
        n_keys: usize,
        keys_of: impl Fn(u32, &mut Vec<u32>),
    ) -> (KeyedLists, Vec<Cell<u32>>) {
        let mut scratch = Vec::new();
        let mut count = vec![0u32; n_keys];
        for t in 0..tasks {
            scratch.clear();
            keys_of(t, &mut scratch);
            for &k in &scratch {
                count[k as usize] += 1;
            }
        }
        let mut out = KeyedLists::default();
        let mut heads = Vec::new();
        // `count` becomes each key's next free place in `items`.
        let mut next = 0u32;
        for (k, c) in count.iter_mut().enumerate() {
            if *c > 0 {
                out.keys.push(k as u32);
                out.starts.push(next);
                heads.push(Cell::new(next));
                next += *c;
                *c = next - *c;
            }
        }
        out.starts.push(next);
        out.items = vec![0; next as usize];
        for t in 0..tasks {
            scratch.clear();
            keys_of(t, &mut scratch);
            for &k in &scratch {
                out.items[count[k as usize] as usize] = t;
                count[k as usize] += 1;
            }
        }
        (out, heads)
    }

    /// The first entry of `key`'s list for which `pending` holds, advancing
    /// its head (in `heads`) past the others.
    fn first(&self, heads: &[Cell<u32>], key: u32, pending: impl Fn(u32) -> bool) -> Option<u32> {
        let i = self.keys.binary_search(&key).ok()?;
        let end = self.starts[i + 1];
        let mut h = heads[i].get();
        while h < end {
            let t = self.items[h as usize];
            if pending(t) {
                heads[i].set(h);
                return Some(t);
            }
            h += 1;
        }
        heads[i].set(h);
        None
    }

    /// How many keys' lists hold an entry for which `pending` holds.
    fn keys_with(&self, heads: &[Cell<u32>], pending: impl Fn(u32) -> bool) -> u32 {
        let mut n = 0;
        for &k in &self.keys {
            if self.first(heads, k, &pending).is_some() {
                n += 1;
            }
        }
        n
    }

    /// Puts task `t` of `key`'s list back (a failed or killed attempt's
    /// task is pending again).
    fn reinsert(&self, heads: &[Cell<u32>], key: u32, t: u32) {
        let Ok(i) = self.keys.binary_search(&key) else {
            return;
        };
        let (from, to) = (self.starts[i] as usize, self.starts[i + 1] as usize);
        let list = &self.items[from..to];
        let pos = list.partition_point(|&x| x < t);
        debug_assert_eq!(list.get(pos), Some(&t), "a list gains no task");
        let pos = (from + pos) as u32;
        if pos < heads[i].get() {
            heads[i].set(pos);
        }
    }
}

/// Every task id below `len` with a lazily advanced head: one of
/// [`KeyedLists`]'s lists holding `0..len`, without its storage. No entry ever leaves such a list, so
/// putting a task back only moves the head.
#[derive(Clone, Debug, Default)]
pub struct LazyRange {
    len: u32,
    head: Cell<u32>,
}

impl LazyRange {
    pub(super) fn new(len: u32) -> LazyRange {
        LazyRange {
            len,
            head: Cell::new(0),
        }
    }

    /// The first task for which `pending` holds, advancing past the others.
    pub(super) fn first(&self, pending: impl Fn(u32) -> bool) -> Option<u32> {
        let mut h = self.head.get();
        while h < self.len {
            if pending(h) {
                self.head.set(h);
                return Some(h);
            }
            h += 1;
        }
        self.head.set(h);
        None
    }

    /// Puts a task back (a failed or killed attempt's task is pending again).
    pub fn reinsert(&mut self, t: u32) {
        if t < self.head.get() {
            self.head.set(t);
        }
    }
}

/// Pending maps by node, rack and datacenter, like Hadoop's
/// `nonRunningMapCache`, plus all maps. The lists never change once
/// built, so a copy of the index (a checkpoint's) shares them, behind one
/// `Arc`, and copies only the heads; a job not yet indexed, or retired,
/// has no lists at all.
#[derive(Clone, Debug, Default)]
pub struct MapIndex {
    lists: Option<Arc<[KeyedLists; 3]>>,
    /// Each level's heads, one per list: nodes, racks, datacenters.
    heads: [Vec<Cell<u32>>; 3],
    pub(super) all: LazyRange,
}

/// A level of [`MapIndex`]: its lists and heads by node, rack or datacenter.
#[derive(Clone, Copy, Debug)]
pub(super) enum Level {
    Node = 0,
    Rack = 1,
    Dc = 2,
}

impl MapIndex {
    /// The index of maps `0..maps` whose replicas `replicas(t)` gives.
    pub fn build<'a>(
        maps: u32,
        replicas: impl Fn(u32) -> &'a [NodeId],
        cluster: &Cluster,
    ) -> MapIndex {
        let nodes = &cluster.nodes;
        let n_racks = nodes.iter().map(|n| n.rack as usize + 1).max().unwrap_or(0);
        let n_dcs = nodes.iter().map(|n| n.dc as usize + 1).max().unwrap_or(0);
        let (by_node, node_heads) =
            KeyedLists::build(maps, nodes.len(), |t, out| keys_of(replicas(t), |n| n, out));
        let (by_rack, rack_heads) = KeyedLists::build(maps, n_racks, |t, out| {
            keys_of(replicas(t), |n| nodes[n as usize].rack, out)
        });
        let (by_dc, dc_heads) = KeyedLists::build(maps, n_dcs, |t, out| {
            keys_of(replicas(t), |n| nodes[n as usize].dc, out)
        });
        MapIndex {
            lists: Some(Arc::new([by_node, by_rack, by_dc])),
            heads: [node_heads, rack_heads, dc_heads],
            all: LazyRange::new(maps),
        }
    }

    /// The first pending map (by `pending`) with a replica on `key` at
    /// `level`, advancing that list's head past the others.
    #[inline]
    pub(super) fn first(
        &self,
        level: Level,
        key: u32,
        pending: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        let l = level as usize;
        self.lists.as_ref()?[l].first(&self.heads[l], key, pending)
    }

    /// How many keys at `level` hold a pending map.
    pub(super) fn keys_with(&self, level: Level, pending: impl Fn(u32) -> bool) -> u32 {
        let l = level as usize;
        self.lists
            .as_ref()
            .map_or(0, |lists| lists[l].keys_with(&self.heads[l], pending))
    }

    pub(super) fn reinsert(&mut self, t: u32, replicas: &[NodeId], cluster: &Cluster) {
        self.all.reinsert(t);
        let Some(lists) = &self.lists else {
            return;
        };
        for &n in replicas {
            let node = &cluster.nodes[n as usize];
            lists[0].reinsert(&self.heads[0], n, t);
            lists[1].reinsert(&self.heads[1], node.rack, t);
            lists[2].reinsert(&self.heads[2], node.dc, t);
        }
    }
}

/// Pushes the distinct `key`s of `replicas` onto `out`, first seen first.
fn keys_of(replicas: &[NodeId], key: impl Fn(NodeId) -> u32, out: &mut Vec<u32>) {
    for &n in replicas {
        let k = key(n);
        if !out.contains(&k) {
            out.push(k);
        }
    }
}
