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

use super::World;
use crate::model::{NetworkModel, NodeId};
use crate::sim::copy::Copy;
use crate::sim::flows::FlowKind;
use crate::sim::job::{AttemptId, Phase};
use crate::sim::network::FlowId;
use crate::sim::paths::Path;
use std::collections::VecDeque;

impl World {
    fn copy_mut(&mut self, a: AttemptId) -> Option<&mut Copy> {
        let r = self.attempts[a as usize].run;
        if r == u32::MAX {
            return None;
        }
        self.running.get_mut(r).copy.as_deref_mut()
    }

    /// A reduce's start-up ended: it learns the outputs already there and
    /// starts fetching.
    pub(super) fn start_copy(&mut self, a: AttemptId) {
        self.set_phase(a, Phase::Shuffle);
        let r = self.attempts[a as usize].run;
        let mut copy = Copy::default();
        if self.cfg.net_spec.model == NetworkModel::Fixed {
            let intra = self.net.add_resource(self.cfg.net_spec.shuffle_mbps);
            let inter = self.net.add_resource(self.cfg.net_spec.inter_dc_mbps);
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
        if let Some(buffer) = self.cfg.net_spec.shuffle_buffer_mb {
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
        self.running.get_mut(r).copy = Some(Box::new(copy));
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
        let limit = self.cfg.net_spec.parallel_copies as usize;
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
