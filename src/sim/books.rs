//! The books policies are fair by: what each pool runs and holds, how
//! many of its jobs count against its limit, and the run-wide counts that
//! scheduling rules read (early reduces, requeued tasks, the maps each
//! node has finished).
//!
//! Every change goes through a method here, so a pool's counts always
//! match what its tasks do: a task booked is released once, a job moved
//! takes its tasks' counts and holdings with it. And every change that
//! can reorder YARN's queues and applications moves the epoch, run-wide
//! and the pool's own ([`Books::epoch`]), so a scheduler that sorts may
//! keep its order while the epoch stands still.

use crate::model::{Kind, Ms, NodeId, Resource};

/// One pool's running tasks and runnable jobs, and what they hold.
#[derive(Clone, Debug, Default)]
pub struct PoolStats {
    pub running_maps: u32,
    pub running_reduces: u32,
    pub runnable_jobs: u32,
    /// What the pool's tasks hold, and of that what its ApplicationMasters
    /// hold.
    pub used: Resource,
    pub am_used: Resource,
    /// Moves with the run-wide epoch when the change is this pool's.
    pub epoch: u64,
}

#[derive(Clone, Debug)]
pub struct Books {
    pools: Vec<PoolStats>,
    epoch: u64,
    /// Running reduces of jobs whose maps are unfinished.
    early_reduces: u32,
    /// Tasks put back to pending after an attempt of theirs started.
    requeues: u64,
    /// Map attempts that succeeded on each node (less those whose output
    /// a failure lost), and their summed durations.
    maps_on: Vec<u32>,
    map_time: Ms,
}

impl Books {
    #[inline]
    pub fn new(pools: usize, nodes: usize) -> Books {
        Books {
            pools: vec![PoolStats::default(); pools],
            epoch: 0,
            early_reduces: 0,
            requeues: 0,
            maps_on: vec![0; nodes],
            map_time: 0,
        }
    }

    /// Each pool's books, by pool id.
    #[inline]
    pub fn pools(&self) -> &[PoolStats] {
        &self.pools
    }

    /// A counter that moves whenever what YARN's schedulers order
    /// applications and queues by may have changed: a container booked or
    /// released, an application moved, the applications asking changed.
    #[inline]
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Something that orders pool `p` or its applications changed.
    #[inline]
    pub fn changed(&mut self, p: usize) {
        self.epoch += 1;
        self.pools[p].epoch += 1;
    }

    /// A task of pool `p` takes `ask` (an ApplicationMaster's if `am`).
    #[inline]
    pub fn book(&mut self, p: usize, ask: Resource, am: bool) {
        self.changed(p);
        let s = &mut self.pools[p];
        s.used += ask;
        if am {
            s.am_used += ask;
        }
    }

    /// A task [`Books::book`] booked gives its ask back.
    #[inline]
    pub fn release(&mut self, p: usize, ask: Resource, am: bool) {
        self.changed(p);
        let s = &mut self.pools[p];
        s.used -= ask;
        if am {
            s.am_used -= ask;
        }
    }

    /// An attempt of `kind` of pool `p` starts running.
    #[inline]
    pub fn started(&mut self, p: usize, kind: Kind) {
        match kind {
            Kind::Map => self.pools[p].running_maps += 1,
            Kind::Reduce => self.pools[p].running_reduces += 1,
        }
    }

    /// An attempt [`Books::started`] counted ends.
    #[inline]
    pub fn ended(&mut self, p: usize, kind: Kind) {
        match kind {
            Kind::Map => self.pools[p].running_maps -= 1,
            Kind::Reduce => self.pools[p].running_reduces -= 1,
        }
    }

    /// A job of pool `p` counts against its running-job limit from now.
    #[inline]
    pub fn admitted(&mut self, p: usize) {
        self.pools[p].runnable_jobs += 1;
    }

    /// A job [`Books::admitted`] counted no longer does.
    #[inline]
    pub fn left(&mut self, p: usize) {
        self.pools[p].runnable_jobs -= 1;
    }

    /// A job moves from pool `from` to `to` with its running attempts
    /// (`maps`, `reduces`), what they hold (`used`, of which its AM's
    /// `am`), and its place against the limit if it held one.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn moved(
        &mut self,
        from: usize,
        to: usize,
        maps: u32,
        reduces: u32,
        used: Resource,
        am: Resource,
        held: bool,
    ) {
        let (f, t) = (from, to);
        self.pools[f].running_maps -= maps;
        self.pools[f].running_reduces -= reduces;
        self.pools[t].running_maps += maps;
        self.pools[t].running_reduces += reduces;
        self.pools[f].used -= used;
        self.pools[t].used += used;
        self.epoch += 1;
        self.pools[f].epoch += 1;
        self.pools[t].epoch += 1;
        self.pools[f].am_used -= am;
        self.pools[t].am_used += am;
        if held {
            self.left(f);
            self.admitted(t);
        }
    }

    #[inline]
    pub fn early_reduces(&self) -> u32 {
        self.early_reduces
    }

    /// `n` reduces of a job with unfinished maps start, or become early
    /// again (a node failure re-opened their job's maps).
    #[inline]
    pub fn early(&mut self, n: u32) {
        self.early_reduces += n;
    }

    /// `n` early reduces end, or their job's maps are all done.
    #[inline]
    pub fn not_early(&mut self, n: u32) {
        self.early_reduces -= n;
    }

    #[inline]
    pub fn requeues(&self) -> u64 {
        self.requeues
    }

    /// A task is pending again after an attempt of it started.
    #[inline]
    pub fn requeued(&mut self) {
        self.requeues += 1;
    }

    #[inline]
    pub fn maps_succeeded_on(&self) -> &[u32] {
        &self.maps_on
    }

    #[inline]
    pub fn map_time_succeeded(&self) -> Ms {
        self.map_time
    }

    /// A map attempt of `ms` succeeded on node `n`.
    #[inline]
    pub fn map_succeeded(&mut self, n: NodeId, ms: Ms) {
        self.maps_on[n as usize] += 1;
        self.map_time += ms;
    }

    /// The output of a map attempt of `ms` on node `n` was lost.
    #[inline]
    pub fn map_lost(&mut self, n: NodeId, ms: Ms) {
        self.maps_on[n as usize] -= 1;
        self.map_time -= ms;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_takes_a_jobs_counts_and_holdings_to_its_new_pool() {
        let mut b = Books::new(2, 1);
        let gb = Resource::memory(1024, 1);
        b.admitted(0);
        b.started(0, Kind::Map);
        b.started(0, Kind::Reduce);
        b.book(0, gb, false);
        b.book(0, gb, true);
        let before = b.epoch();
        b.moved(0, 1, 1, 1, gb + gb, gb, true);
        assert!(b.epoch() > before && b.pools()[1].epoch > 0);
        let (p0, p1) = (&b.pools()[0], &b.pools()[1]);
        assert_eq!(
            (p0.running_maps, p0.running_reduces, p0.runnable_jobs),
            (0, 0, 0)
        );
        assert_eq!(
            (p1.running_maps, p1.running_reduces, p1.runnable_jobs),
            (1, 1, 1)
        );
        assert_eq!((p0.used, p0.am_used), (Resource::ZERO, Resource::ZERO));
        assert_eq!((p1.used, p1.am_used), (gb + gb, gb));
        b.ended(1, Kind::Map);
        b.release(1, gb, true);
        assert_eq!(
            (b.pools()[1].running_maps, b.pools()[1].am_used),
            (0, Resource::ZERO)
        );
    }
}
