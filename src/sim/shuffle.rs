//! A reducer's copy (Hadoop's shuffle): every finished map of its job
//! leaves output / r bytes for each reducer on the map's node; the reducer
//! fetches them as flows, from at most `network.parallel_copies` source
//! nodes at once and one fetch per node at a time, taking the nodes in the
//! order their outputs appeared. A fetch takes everything the node has for
//! the reducer at that moment; what a node produces meanwhile waits for a
//! later fetch. The copy ends when every map of the job is done and every
//! byte is fetched.
//!
//! Under the `fixed` network model the reducer's fetches share its own
//! copy bandwidth, `shuffle_mbps` within its datacenter and
//! `inter_dc_mbps` from the others, as a reducer's copy did in the first
//! versions; under `shared` they share disks and links with everything
//! else.

use super::job::{AttemptId, Phase};
use super::network::{FlowId, ResId};
use super::paths::Path;
use super::phases::FlowKind;
use super::world::World;
use crate::model::{NetworkModel, NodeId};
use std::collections::VecDeque;

/// What a reducer has to fetch from one node, and has fetched: 24 bytes,
/// since a reducer of a job spread over the whole cluster keeps one for
/// every node (thousands of reducers at once, each with thousands).
#[derive(Clone, Debug, Default)]
struct Source {
    /// MB available, not fetched, not in flight.
    avail: f64,
    /// MB fetched.
    fetched: f64,
    /// Map outputs in `avail` (each map's output is a segment of the
    /// reducer's input).
    segs: u32,
    /// The map outputs in the fetch under way, with two flags in its top
    /// bits: [`Source::QUEUED`] and [`Source::BUSY`].
    fetching: u32,
}

const _: () = assert!(std::mem::size_of::<Source>() == 24);

impl Source {
    /// In the reducer's queue.
    const QUEUED: u32 = 1 << 31;
    /// A fetch from it is under way.
    const BUSY: u32 = 1 << 30;
    const SEGS: u32 = Source::BUSY - 1;

    fn queued(&self) -> bool {
        self.fetching & Source::QUEUED != 0
    }

    fn busy(&self) -> bool {
        self.fetching & Source::BUSY != 0
    }

    fn set_queued(&mut self, on: bool) {
        if on {
            self.fetching |= Source::QUEUED;
        } else {
            self.fetching &= !Source::QUEUED;
        }
    }

    /// A fetch of `segs` map outputs starts.
    fn start_fetch(&mut self, segs: u32) {
        debug_assert!(segs <= Source::SEGS, "a node holds fewer outputs");
        self.fetching = (self.fetching & Source::QUEUED) | Source::BUSY | segs;
    }

    /// The fetch under way ended (or did not start after all): the map
    /// outputs it held.
    fn end_fetch(&mut self) -> u32 {
        let segs = self.fetching & Source::SEGS;
        self.fetching &= Source::QUEUED;
        segs
    }
}

/// A reducer's copy state.
#[derive(Clone, Debug, Default)]
pub struct Copy {
    /// MB fetched so far, and of it from the reducer's own datacenter.
    pub fetched: f64,
    pub fetched_local: f64,
    /// By the node's place among the job's output holders
    /// ([`super::job::Job::source_place`]).
    sources: Vec<Source>,
    /// Nodes with bytes waiting, in the order they became available.
    queue: VecDeque<NodeId>,
    /// Fetches under way: (flow, source node).
    active: Vec<(FlowId, NodeId)>,
    /// Fixed model: the reducer's own copy bandwidths (intra, inter).
    own: Option<(ResId, ResId)>,
    /// Every fetch ends on the reducer's own disk (its input outgrows
    /// `network.shuffle_buffer`).
    pub(super) to_disk: bool,
    /// Its files on disk and in memory, and its merges (`merge.rs`).
    pub(super) merge: super::merge::Merges,
}

impl Copy {
    /// Fetches under way.
    pub fn fetches(&self) -> &[(FlowId, NodeId)] {
        &self.active
    }

    /// What it has of the node at `place`.
    fn source(&mut self, place: usize) -> &mut Source {
        if place >= self.sources.len() {
            self.sources.resize_with(place + 1, Source::default);
        }
        &mut self.sources[place]
    }
}

impl World {
    fn copy_mut(&mut self, a: AttemptId) -> Option<&mut Copy> {
        let r = self.attempts[a as usize].run;
        if r == u32::MAX {
            return None;
        }
        self.runs[r as usize].copy.as_deref_mut()
    }

    /// A reduce's start-up ended: it learns the outputs already there and
    /// starts fetching.
    pub(super) fn start_copy(&mut self, a: AttemptId) {
        self.set_phase(a, Phase::Shuffle);
        let r = self.attempts[a as usize].run as usize;
        let mut copy = Copy::default();
        if self.net_spec.model == NetworkModel::Fixed {
            let intra = self.net.add_resource(self.net_spec.shuffle_mbps);
            let inter = self.net.add_resource(self.net_spec.inter_dc_mbps);
            copy.own = Some((intra, inter));
        }
        let job = &self.jobs[self.attempts[a as usize].job as usize];
        let nodes = self.cluster.nodes.len();
        if job.n_maps() as usize >= nodes {
            // Its job's outputs will likely lie on every node: room for a
            // place each, at once rather than by doubling, which would
            // leave up to half of it unused.
            copy.sources.reserve_exact(nodes);
        }
        if let Some(buffer) = self.net_spec.shuffle_buffer_mb {
            // The reducer's share of the job's map output: what Hadoop 1.x's
            // ReduceCopier holds in memory, merges and writes to disk when
            // it outgrows the buffer (segments over a quarter of it go to
            // disk directly), so above the buffer nearly every byte lands
            // on disk before the reduce reads it back.
            let input = job.input_mb * job.fp / job.n_reduces().max(1) as f64;
            copy.to_disk = input > buffer;
        }
        for &node in &job.waiting_order {
            let place = job
                .source_place_of(node)
                .expect("a listed node has a place");
            let src = copy.source(place);
            src.avail = job.waiting_at(place);
            src.segs = job.waiting_segs_at(place);
            src.set_queued(true);
            copy.queue.push_back(node);
        }
        self.runs[r].copy = Some(Box::new(copy));
        self.pump(a);
    }

    /// A map of job `j` finished on `node`: each reducer copying gets its
    /// share there.
    pub(super) fn offer_output(&mut self, j: u32, node: NodeId, mb: f64) {
        if self.jobs[j as usize].n_reduces() == 0 {
            return;
        }
        let r_count = self.jobs[j as usize].n_reduces() as f64;
        let place = self.jobs[j as usize].add_waiting(node, mb / r_count);
        let reducers = std::mem::take(&mut self.jobs[j as usize].running_reducers);
        for &a in &reducers {
            if self.attempts[a as usize].phase != Phase::Shuffle {
                continue;
            }
            if let Some(copy) = self.copy_mut(a) {
                let src = copy.source(place);
                src.avail += mb / r_count;
                src.segs += 1;
                if !src.queued() && !src.busy() {
                    src.set_queued(true);
                    copy.queue.push_back(node);
                }
            }
            self.pump(a);
        }
        self.jobs[j as usize].running_reducers = reducers;
    }

    /// Every map of job `j` is done: reducers with nothing left to fetch
    /// finish their copy.
    pub(super) fn maps_all_done(&mut self, j: u32) {
        let reducers = self.jobs[j as usize].running_reducers.clone();
        for a in reducers {
            if self.attempts[a as usize].phase == Phase::Shuffle {
                self.pump(a);
            }
        }
    }

    /// Starts fetches while there is room and a node with bytes waiting;
    /// ends the copy when nothing is left.
    pub(super) fn pump(&mut self, a: AttemptId) {
        let limit = self.net_spec.parallel_copies as usize;
        let dst = self.attempts[a as usize].node;
        let dst_dc = self.dc_of(dst);
        let j = self.attempts[a as usize].job as usize;
        loop {
            let Some(copy) = self.copy_mut(a) else { return };
            if copy.active.len() >= limit {
                break;
            }
            let Some(node) = copy.queue.pop_front() else {
                break;
            };
            let own = copy.own;
            let to_disk = copy.to_disk;
            let place = self.jobs[j].source_place_of(node);
            let copy = self.copy_mut(a).expect("still copying");
            let src = &mut copy.sources[place.expect("queued sources have a place")];
            src.set_queued(false);
            let mb = std::mem::take(&mut src.avail);
            let segs = std::mem::take(&mut src.segs);
            if mb <= 0.0 {
                continue;
            }
            src.start_fetch(segs);
            let local = self.dc_of(node) == dst_dc;
            let path = if to_disk {
                self.links.read_to_disk(node, dst)
            } else {
                self.links.read(node, dst)
            };
            let f = match own {
                // Fixed: the reducer's own copy bandwidth, shared by its
                // fetches alone.
                Some((intra, inter)) => {
                    let sharing = Path::of(if local { intra } else { inter });
                    let inf = f64::INFINITY;
                    self.start_flow_over(a, FlowKind::Shuffle, node, dst, path, sharing, mb, inf)
                }
                None => self.start_flow(a, FlowKind::Shuffle, node, dst, path, mb, f64::INFINITY),
            };
            let copy = self.copy_mut(a).expect("still copying");
            match f {
                Some(f) => copy.active.push((f, node)),
                None => {
                    let place = place.expect("queued sources have a place");
                    copy.sources[place].end_fetch();
                }
            }
        }
        self.end_copy_if_done(a);
    }

    fn end_copy_if_done(&mut self, a: AttemptId) {
        let j = self.attempts[a as usize].job as usize;
        let all_maps = self.jobs[j].maps_done == self.jobs[j].n_maps();
        let Some(copy) = self.copy_mut(a) else { return };
        // (Hadoop waits for the merge under way on disk before the copy
        // phase ends.)
        if all_maps && copy.active.is_empty() && copy.queue.is_empty() && !copy.merge.busy() {
            // Only the totals matter from here on (the reduce's work, its
            // output, its progress): a reducer of a job spread over
            // thousands of nodes frees tens of kilobytes.
            copy.sources = Vec::new();
            copy.queue = VecDeque::new();
            copy.active = Vec::new();
            copy.merge.copied();
            if let Some((intra, inter)) = copy.own.take() {
                self.net.remove_resource(intra);
                self.net.remove_resource(inter);
            }
            self.copy_finished(a);
        }
    }

    /// A fetch of `mb` from `src` ended.
    pub(super) fn fetch_done(&mut self, a: AttemptId, f: FlowId, src: NodeId, mb: f64) {
        let local = self.dc_of(src) == self.dc_of(self.attempts[a as usize].node);
        self.metrics.reduce_bytes_total += mb;
        if local {
            self.metrics.reduce_bytes_local += mb;
        } else {
            self.metrics.inter_dc_mb += mb;
        }
        let j = self.attempts[a as usize].job as usize;
        let place = self.jobs[j].source_place_of(src);
        let Some(copy) = self.copy_mut(a) else { return };
        copy.active.retain(|&(x, _)| x != f);
        copy.fetched += mb;
        if local {
            copy.fetched_local += mb;
        }
        let s = &mut copy.sources[place.expect("a fetch has a source")];
        s.fetched += mb;
        let segs = s.end_fetch();
        if s.avail > 0.0 && !s.queued() {
            s.set_queued(true);
            copy.queue.push_back(src);
        }
        if copy.to_disk {
            self.landed_on_disk(a, mb, segs);
        }
        self.pump(a);
    }

    /// What a starting reducer of job `j` finds, summed again from its
    /// outputs (after a node failure lost some).
    pub(super) fn sum_waiting_again(&mut self, j: u32) {
        let job = &mut self.jobs[j as usize];
        job.forget_waiting();
        if job.n_reduces() == 0 {
            return;
        }
        let r_count = job.n_reduces() as f64;
        for i in 0..job.outputs.len() {
            let t = job.outputs[i];
            let Some(by) = job.maps[t as usize].done_by() else {
                continue;
            };
            let mb = job.map_output_mb(t);
            job.add_waiting(self.attempts[by as usize].node, mb / r_count);
        }
    }

    /// A reducer stops (killed, failed, or done): its fetches are cancelled.
    pub(super) fn cancel_copy(&mut self, _a: AttemptId, copy: Copy) {
        for &(f, _) in &copy.active {
            self.stop_flow(f);
        }
        if let Some((intra, inter)) = copy.own {
            self.net.remove_resource(intra);
            self.net.remove_resource(inter);
        }
    }

    /// Node `n` failed and job `j`'s outputs there are lost: each reducer
    /// still copying drops what it fetched from `n` (the maps run again and
    /// their new outputs are fetched anew) and its fetches from `n` stop.
    pub(super) fn forget_source(&mut self, a: AttemptId, n: NodeId) {
        let flows: Vec<FlowId> = match self.copy_mut(a) {
            Some(c) => c.active.iter().filter(|x| x.1 == n).map(|x| x.0).collect(),
            None => return,
        };
        for f in flows {
            self.stop_flow(f);
        }
        let dst_dc = self.dc_of(self.attempts[a as usize].node);
        let local = self.dc_of(n) == dst_dc;
        let j = self.attempts[a as usize].job as usize;
        let place = self.jobs[j].source_place_of(n);
        let Some(copy) = self.copy_mut(a) else { return };
        copy.active.retain(|x| x.1 != n);
        if let Some(s) = place
            .and_then(|p| copy.sources.get_mut(p))
            .map(std::mem::take)
        {
            copy.fetched -= s.fetched;
            if local {
                copy.fetched_local -= s.fetched;
            }
        }
        copy.queue.retain(|&x| x != n);
        self.pump(a);
    }
}

#[cfg(test)]
mod tests {
    use super::Source;

    /// The two flags and the fetch's segment count share a word: setting
    /// one leaves the others as they were.
    #[test]
    fn a_sources_flags_and_fetch_do_not_disturb_one_another() {
        let mut s = Source::default();
        assert!(!s.queued() && !s.busy());
        s.set_queued(true);
        s.start_fetch(Source::SEGS);
        assert!(s.queued() && s.busy(), "a fetch keeps the queued flag");
        s.set_queued(false);
        assert!(!s.queued() && s.busy());
        s.set_queued(true);
        assert_eq!(s.end_fetch(), Source::SEGS, "every segment comes back");
        assert!(s.queued() && !s.busy(), "the end keeps the queued flag");
        assert_eq!(s.end_fetch(), 0, "a fetch's segments are taken once");
        s.start_fetch(3);
        s.end_fetch();
        s.start_fetch(5);
        assert_eq!(
            s.end_fetch(),
            5,
            "a fetch that did not start leaves no count"
        );
        assert!(s.queued());
    }
}
