//! The SchedulingPolicy comparators: `FairSharePolicy`,
//! `DominantResourceFairnessPolicy` and `FifoPolicy`, as the walk sorts
//! queues and applications by them.

use crate::model::{QueuePolicy, Resource};
use std::cmp::Ordering;

/// What `policy`'s comparator orders by: a needy schedulable (below its
/// minimum share) first, then the needy by usage over minimum share, the
/// others by memory usage over weight (`fair`, Java's `float`) or by
/// dominant then other share of the cluster over weight (`drf`); `fifo`
/// leaves the order to the ties (start time, then name: FifoPolicy, every
/// application's priority being the same).
pub(super) fn share_key(policy: QueuePolicy, cluster: Resource, s: Sortable) -> Key {
    match policy {
        QueuePolicy::Fifo => (1, 0.0, 0.0),
        QueuePolicy::Fair => {
            // Resources.min/max under DefaultResourceCalculator: by memory.
            let min_share = if s.min.mb() <= s.demand.mb() {
                s.min
            } else {
                s.demand
            };
            if s.used.mb() < min_share.mb() {
                let ratio = s.used.mb() as f64 / min_share.mb().max(1) as f64;
                (0, ratio, 0.0)
            } else {
                (1, f64::from(s.used.mb() as f32 / s.weight as f32), 0.0)
            }
        }
        QueuePolicy::Drf => {
            let (of_cluster, cpu_first) = drf_ordered(s.used, cluster, s.weight);
            // usage over the minimum share, per resource (neutral
            // weights; 0 over 0 is NaN, never below 1: not needy).
            let mem = s.used.mb() as f32 / s.min.mb() as f32;
            let cpu = s.used.vcores() as f32 / s.min.vcores() as f32;
            let of_min = if cpu_first { (cpu, mem) } else { (mem, cpu) };
            if of_min.0 < 1.0 {
                (0, f64::from(of_min.0), f64::from(of_min.1))
            } else {
                (1, f64::from(of_cluster.0), f64::from(of_cluster.1))
            }
        }
    }
}

/// A schedulable as the comparators see it: its usage, weight, minimum
/// share and demand.
#[derive(Clone, Copy, Debug)]
pub struct Sortable {
    pub used: Resource,
    pub weight: f64,
    pub min: Resource,
    pub demand: Resource,
}

impl Sortable {
    /// An application: no minimum share (`FSAppAttempt.getMinShare`),
    /// weight 1.
    pub(super) fn app(used: Resource) -> Sortable {
        Sortable {
            used,
            weight: 1.0,
            min: Resource::ZERO,
            demand: Resource::UNLIMITED,
        }
    }
}

/// A comparator key: 0 for needy, 1 for not, then the two ratios.
pub(super) type Key = (u8, f64, f64);

pub(super) fn cmp_keys(a: Key, b: Key) -> Ordering {
    a.0.cmp(&b.0)
        .then(a.1.partial_cmp(&b.1).unwrap_or(Ordering::Equal))
        .then(a.2.partial_cmp(&b.2).unwrap_or(Ordering::Equal))
}

/// Shares of the cluster over weight, dominant first, and whether CPU is
/// the dominant one (`calculateShares`' resource order).
fn drf_ordered(used: Resource, cluster: Resource, weight: f64) -> ((f32, f32), bool) {
    let w = weight as f32;
    let mem = used.mb() as f32 / (cluster.mb() as f32 * w);
    let cpu = used.vcores() as f32 / (cluster.vcores() as f32 * w);
    if mem >= cpu {
        ((mem, cpu), false)
    } else {
        ((cpu, mem), true)
    }
}

/// A schedulable's shares of the cluster divided by its weight, dominant
/// first (`DominantResourceFairnessPolicy.calculateShares`, f32).
pub fn drf_shares(used: Resource, cluster: Resource, weight: f64) -> (f32, f32) {
    drf_ordered(used, cluster, weight).0
}

#[cfg(test)]
mod tests {
    use super::super::YarnFair;
    use super::*;

    impl YarnFair {
        /// `FairSharePolicy.FairShareComparator` / `DominantResourceFairness
        /// Comparator` (the walk sorts by [`share_key`]); ties by
        /// start time, then name.
        fn cmp(
            &self,
            cluster: Resource,
            a: (Sortable, u64, &str),
            b: (Sortable, u64, &str),
        ) -> Ordering {
            let (ka, kb) = (
                share_key(self.policy, cluster, a.0),
                share_key(self.policy, cluster, b.0),
            );
            cmp_keys(ka, kb)
                .then(a.1.cmp(&b.1))
                .then_with(|| a.2.cmp(b.2))
        }
    }

    /// DominantResourceFairnessPolicy: testCalculateShares' numbers, and
    /// the comparator's sign in testSameDominantResource,
    /// testDifferentDominantResource, testOneIsNeedy and testBothAreNeedy.
    #[test]
    fn hadoop_drf_policy_shares_and_order() {
        let (d, o) = drf_shares(Resource::memory(10, 5), Resource::memory(100, 10), 1.0);
        assert_eq!((d, o), (0.5, 0.1));
        let p = YarnFair {
            policy: QueuePolicy::Drf,
            ..YarnFair::defaults()
        };
        let s = |mb, vc, min_mb, min_vc| {
            let s = Sortable {
                used: Resource::memory(mb, vc),
                weight: 1.0,
                min: Resource::memory(min_mb, min_vc),
                demand: Resource::UNLIMITED,
            };
            (s, 0u64, "")
        };
        let c = Resource::memory(8000, 4);
        assert_eq!(p.cmp(c, s(1000, 1, 0, 0), s(2000, 1, 0, 0)), Ordering::Less);
        let c = Resource::memory(8000, 8);
        assert_eq!(p.cmp(c, s(4000, 3, 0, 0), s(2000, 5, 0, 0)), Ordering::Less);
        // testOneIsNeedy: 5 of a 6-vcore minimum is needy, goes first.
        assert_eq!(p.cmp(c, s(2000, 5, 0, 6), s(4000, 3, 0, 0)), Ordering::Less);
        // testBothAreNeedy: by dominant share, then by share of minimum.
        let c = Resource::memory(8000, 100);
        assert_eq!(p.cmp(c, s(2000, 5, 0, 0), s(4000, 3, 0, 0)), Ordering::Less);
        assert_eq!(
            p.cmp(c, s(2000, 5, 3000, 6), s(4000, 3, 5000, 4)),
            Ordering::Less
        );
    }

    /// FairSharePolicy's comparator: a queue below min(minimum, demand) of
    /// memory goes first; two needy ones by usage over that minimum.
    #[test]
    fn fair_policy_puts_needy_queues_first() {
        let p = YarnFair::defaults();
        let c = Resource::memory(10_240, 10);
        let q = |mb: i64, min: i64, demand: i64, weight: f64| {
            let s = Sortable {
                used: Resource::memory(mb, 1),
                weight,
                min: Resource::memory(min, 0),
                demand: Resource::memory(demand, 10),
            };
            (s, 0u64, "")
        };
        // Needy (1 GB of a 2 GB minimum) before a less used queue without one.
        assert_eq!(
            p.cmp(c, q(1024, 2048, 8192, 1.0), q(0, 0, 8192, 1.0)),
            Ordering::Less
        );
        // The minimum counts only up to the demand: not needy.
        assert_eq!(
            p.cmp(c, q(1024, 2048, 1024, 1.0), q(0, 0, 8192, 1.0)),
            Ordering::Greater
        );
        // Both needy: 1024/4096 before 1024/2048.
        assert_eq!(
            p.cmp(c, q(1024, 4096, 8192, 1.0), q(1024, 2048, 8192, 1.0)),
            Ordering::Less
        );
        // Neither: memory over weight.
        assert_eq!(
            p.cmp(c, q(2048, 0, 8192, 4.0), q(1024, 0, 8192, 1.0)),
            Ordering::Less
        );
    }
}
