//! Reservations: `LeafQueue.shouldAllocOrReserveNewContainer`,
//! `FiCaSchedulerApp.reserve` / `unreserve` (charged to the queue and the
//! user at once) and `LeafQueue.findNodeToUnreserve`.

use super::{step, YarnCapacity};
use crate::model::{JobId, NodeId, Resource};
use crate::sched::yarn::{self, Ask};
use crate::sim::RunView;

/// A reserved node: the application, priority and container it is held
/// for, and the queue charged.
#[derive(Clone, Copy, Debug)]
pub(super) struct Resv {
    pub(super) job: JobId,
    pub(super) ask: Ask,
    pub(super) res: Resource,
    pub(super) pool: usize,
}

impl YarnCapacity {
    /// `LeafQueue.shouldAllocOrReserveNewContainer`.
    pub(super) fn should_alloc_or_reserve(
        &self,
        w: RunView<'_>,
        j: JobId,
        ask: Ask,
        required: Resource,
    ) -> bool {
        let (a, jx) = (ask as usize, j as usize);
        let reserved = self.n_reserved[jx][a];
        let max = yarn::max_allocation(w);
        let starvation = if reserved > 0 {
            let node_factor = self.calc.ratio(required, max);
            let min_factor = self.calc.ratio(max - step(), max);
            ((self.rereservations[jx][a] as f32 / reserved as f32)
                * (1.0 - node_factor.min(min_factor))) as i32 as i64
        } else {
            0
        };
        starvation + Self::outstanding(w, j, ask) - reserved > 0
    }

    pub(super) fn reserve(&mut self, node: NodeId, resv: Resv) {
        let (j, a) = (resv.job as usize, resv.ask as usize);
        match self.reserved[node as usize] {
            Some(_) => self.rereservations[j][a] += 1,
            None => {
                self.job_reserved[j] += resv.res;
                self.pool_reserved[resv.pool] += resv.res;
                self.n_reserved[j][a] += 1;
                self.rereservations[j][a] = 0;
                let at = self.resv_nodes.partition_point(|&n| n < node);
                self.resv_nodes.insert(at, node);
                self.reserved[node as usize] = Some(resv);
            }
        }
    }

    /// Drops node's reservation and its charge.
    pub(super) fn unreserve(&mut self, node: NodeId) {
        let Some(r) = self.reserved[node as usize].take() else {
            return;
        };
        let (j, a) = (r.job as usize, r.ask as usize);
        self.job_reserved[j] -= r.res;
        self.pool_reserved[r.pool] -= r.res;
        self.n_reserved[j][a] -= 1;
        self.rereservations[j][a] = 0;
        if let Ok(at) = self.resv_nodes.binary_search(&node) {
            self.resv_nodes.remove(at);
        }
    }

    /// `LeafQueue.findNodeToUnreserve`: job `j`'s first reservation at
    /// `ask` of at least `amount` (lowest node id first) is dropped.
    pub(super) fn unreserve_elsewhere(
        &mut self,
        w: RunView<'_>,
        j: JobId,
        ask: Ask,
        amount: Resource,
    ) -> bool {
        let cluster = Self::cluster(w);
        let found = self.resv_nodes.iter().copied().find(|&n| {
            self.reserved[n as usize].is_some_and(|r| {
                r.job == j && r.ask == ask && !self.calc.gt(cluster, amount, r.res)
            })
        });
        match found {
            Some(n) => {
                self.unreserve(n);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{beats, cluster, job, Run};
    use crate::sched::yarn::{show, Ask};
    use crate::sim::policy::Show;

    /// Queues `a` and `b` at half of two 8 GB nodes; in `a` one job of two
    /// 6 GB maps, both blocks on node 0, and node 0's heartbeats at these
    /// times (ms). Its first heartbeat runs one map and reserves the node
    /// for the other (2 GB left free).
    fn reserving(at: &[u64]) -> String {
        let mut text = cluster(2, false, "");
        text += "[[pools]]\nname = \"a\"\ncapacity = 50\n[[pools]]\nname = \"b\"\ncapacity = 50\n";
        text += &job("j", "a", "u", "6GB", &[0, 0]);
        text + &beats(&at.iter().map(|&t| (t, 0)).collect::<Vec<_>>())
    }

    /// A reservation (`FiCaSchedulerApp.reserve`) is charged at once to
    /// the application, its queue (and so root) and, in the tally, its
    /// user; `unreserve` gives all of it back.
    #[test]
    fn a_reservation_is_charged_to_queue_and_user_until_unreserved() {
        let run = Run::new(&reserving(&[1000]), 2000);
        let (j, a, b) = (run.job("j"), run.pool("a"), run.pool("b"));
        let (mut cs, w) = run.parts();
        let r = cs.reserved[0].expect("node 0 reserved");
        assert_eq!((r.job, r.ask, r.res.mb(), r.pool), (j, Ask::Map, 6144, a));
        assert_eq!(cs.resv_nodes, [0]);
        assert_eq!(cs.n_reserved[j as usize][Ask::Map as usize], 1);
        assert_eq!(cs.job_reserved[j as usize].mb(), 6144);
        assert_eq!(cs.pool_reserved[a].mb(), 6144);
        // The running map and the reservation.
        assert_eq!(w.job(j).used.mb(), 6144);
        assert_eq!(cs.queue_used(w, a).mb(), 12_288);
        cs.tally(w);
        let u = cs.user_of(w, j);
        assert_eq!(cs.user_used[u].mb(), 12_288);
        // b may take what is left: 16384 - 12288.
        assert_eq!(cs.queue_limit(w, b).mb(), 4096);
        // What the inspector shows: the node, and the application holding it.
        let held = show::reservations(&cs.inspect(w, 0));
        let want = show::Reservation {
            node: 0,
            app: "j".into(),
            queue: "a".into(),
            ask: Ask::Map,
            container: r.res,
        };
        assert_eq!(held, [want]);

        cs.unreserve(0);
        assert!(cs.reserved[0].is_none() && cs.resv_nodes.is_empty());
        assert_eq!(cs.n_reserved[j as usize][Ask::Map as usize], 0);
        assert_eq!(cs.job_reserved[j as usize].mb(), 0);
        assert_eq!(cs.pool_reserved[a].mb(), 0);
        assert_eq!(cs.queue_used(w, a).mb(), 6144);
        cs.tally(w);
        assert_eq!(cs.user_used[u].mb(), 6144);
        assert_eq!(cs.queue_limit(w, b).mb(), 10_240);
    }

    /// `LeafQueue.assignReservedContainer`: once the node can hold the
    /// reserved container (the first map done at 101 s), its heartbeat
    /// unreserves it, charge and all, and runs the container.
    #[test]
    fn a_filled_reservation_gives_back_its_charge() {
        let mut run = Run::new(&reserving(&[1000, 102_000]), 2000);
        let (j, a) = (run.job("j"), run.pool("a"));
        assert_eq!(run.parts().0.pool_reserved[a].mb(), 6144);
        run.to(103_000);
        let (cs, w) = run.parts();
        assert!(cs.reserved[0].is_none() && cs.resv_nodes.is_empty());
        assert_eq!(cs.n_reserved[j as usize][Ask::Map as usize], 0);
        assert_eq!(cs.job_reserved[j as usize].mb(), 0);
        assert_eq!(cs.pool_reserved[a].mb(), 0);
        assert_eq!((w.job(j).maps_pending, w.job(j).used.mb()), (0, 6144));
        assert_eq!(cs.queue_used(w, a).mb(), 6144);
    }

    /// `LeafQueue.shouldAllocOrReserveNewContainer`: with one map
    /// outstanding and one reservation, no new container until the
    /// re-reservations' starvation, (int)(re-reservations / 1 × (1 -
    /// min(6144 / 8192, 7168 / 8192))), reaches 1: at the fourth. Each
    /// heartbeat of the reserved node that still cannot hold the container
    /// re-reserves it.
    #[test]
    fn re_reservations_bound_a_new_reservation() {
        let mut run = Run::new(&reserving(&[1000, 2000, 3000, 4000, 5000]), 1500);
        let j = run.job("j");
        let six_gb = crate::model::Resource::memory(6144, 1);
        let mut seen = Vec::new();
        for t in [1500, 2500, 3500, 4500, 5500] {
            run.to(t);
            let (cs, w) = run.parts();
            assert_eq!(cs.n_reserved[j as usize][Ask::Map as usize], 1);
            seen.push((
                cs.rereservations[j as usize][Ask::Map as usize],
                cs.should_alloc_or_reserve(w, j, Ask::Map, six_gb),
            ));
        }
        assert_eq!(
            seen,
            [(0, false), (1, false), (2, false), (3, false), (4, true)]
        );
    }
}
