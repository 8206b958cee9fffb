//! `ComputeFairShares`: the queues' instantaneous fair shares, memory
//! and (under drf) vcores, recomputed when the cluster or the active
//! queues change.

use crate::model::{QueuePolicy, Resource};
use crate::sim::RunView;

/// The leaf queues' instantaneous fair shares, by pool, and what they
/// were computed from: the cluster's resources and which queues were
/// active (their weights do not change during a run).
#[derive(Clone, Default)]
pub(super) struct Shares {
    pub(super) fair: Vec<Resource>,
    from: (Resource, Vec<bool>),
}

/// One schedulable as `ComputeFairShares` sees it, for one resource: its
/// weight, minimum and maximum share, and whether it is active (a queue
/// with a runnable application).
#[derive(Clone, Copy, Debug)]
pub struct Sched {
    pub weight: f64,
    pub min: i64,
    pub max: i64,
    pub active: bool,
}

impl Sched {
    /// An active schedulable of this weight, no minimum, no maximum.
    pub fn weighted(weight: f64) -> Sched {
        Sched {
            weight,
            min: 0,
            max: i32::MAX.into(),
            active: true,
        }
    }

    /// `computeShare`: weight × ratio within [min, max], truncated.
    fn share(&self, ratio: f64) -> i64 {
        let share = f64::from(self.weight as f32) * ratio;
        share.max(self.min as f64).min(self.max as f64) as i32 as i64
    }

    /// `getFairShareIfFixed` (instantaneous shares): 0 with no maximum,
    /// when inactive, or, with no weight, the minimum; None if it is to be
    /// computed.
    fn fixed(&self) -> Option<i64> {
        if self.max == 0 || !self.active {
            Some(0)
        } else if self.weight as f32 <= 0.0 {
            Some(self.min)
        } else {
            None
        }
    }
}

/// `ComputeFairShares.computeShares`: fixed shares first, then the
/// weight-to-resource ratio Hadoop's binary search finds for the rest of
/// `total` (at most their maximums), each share weight × ratio within its
/// minimum and maximum, truncated to an int.
pub fn compute_shares(scheds: &[Sched], total: i64) -> Vec<i64> {
    let mut out: Vec<i64> = scheds.iter().map(|s| s.fixed().unwrap_or(0)).collect();
    let taken = scheds
        .iter()
        .filter_map(Sched::fixed)
        .fold(0i64, |a, x| (a + x).min(i64::from(i32::MAX)));
    let rest: Vec<usize> = (0..scheds.len())
        .filter(|&i| scheds[i].fixed().is_none())
        .collect();
    if rest.is_empty() {
        return out;
    }
    let max_total = rest
        .iter()
        .fold(0i64, |a, &i| (a + scheds[i].max).min(i64::from(i32::MAX)));
    let total = (total - taken).max(0).min(max_total);
    let used = |r: f64| -> i64 { rest.iter().map(|&i| scheds[i].share(r)).sum() };
    let mut r_max = 1.0;
    while used(r_max) < total {
        r_max *= 2.0;
    }
    let (mut left, mut right) = (0.0, r_max);
    for _ in 0..25 {
        let mid = (left + right) / 2.0;
        let planned = used(mid);
        if planned == total {
            right = mid;
            break;
        } else if planned < total {
            left = mid;
        } else {
            right = mid;
        }
    }
    for &i in &rest {
        out[i] = scheds[i].share(right);
    }
    out
}

/// The fair shares, recomputed only when what they depend on changed
/// (Hadoop's update thread recomputes them twice a second).
pub(super) fn cached_shares<'a>(
    cache: &'a std::cell::RefCell<Shares>,
    w: RunView<'_>,
    policy: QueuePolicy,
) -> std::cell::Ref<'a, Shares> {
    let fresh = {
        let c = cache.borrow();
        c.from.0 == w.cluster().live
            && c.from.1.len() == w.pool_stats().len()
            && c.from
                .1
                .iter()
                .zip(w.pool_stats())
                .all(|(&a, s)| a == (s.runnable_jobs > 0))
    };
    if !fresh {
        *cache.borrow_mut() = shares(w, policy);
    }
    cache.borrow()
}

fn shares(w: RunView<'_>, policy: QueuePolicy) -> Shares {
    let scheds = |of: fn(Resource) -> i64| -> Vec<Sched> {
        w.pools()
            .iter()
            .zip(w.pool_stats())
            .map(|(p, s)| Sched {
                weight: p.weight,
                min: of(p.min_resources),
                max: of(p.max_resources),
                active: s.runnable_jobs > 0,
            })
            .collect()
    };
    let mem = compute_shares(&scheds(|r| r.mb()), w.cluster().live.mb());
    let cpu = match policy {
        QueuePolicy::Drf => compute_shares(&scheds(|r| r.vcores()), w.cluster().live.vcores()),
        // FairSharePolicy computes memory shares only.
        QueuePolicy::Fair | QueuePolicy::Fifo => vec![0; w.pools().len()],
    };
    Shares {
        fair: mem
            .into_iter()
            .zip(cpu)
            .map(|(m, c)| Resource::memory(m, c))
            .collect(),
        from: (
            w.cluster().live,
            w.pool_stats().iter().map(|s| s.runnable_jobs > 0).collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scheds(list: &[(i64, i64, f64)]) -> Vec<Sched> {
        list.iter()
            .map(|&(min, max, weight)| Sched {
                weight,
                min,
                max,
                active: true,
            })
            .collect()
    }

    /// Hadoop 2.7.3's TestComputeFairShares (FakeSchedulable's defaults: no
    /// minimum, Integer.MAX_VALUE as maximum, weight 1).
    #[test]
    fn compute_fair_shares_as_hadoop_tests_them() {
        const NO_MAX: i64 = i32::MAX as i64;
        let w = |ws: &[f64]| ws.iter().map(|&x| Sched::weighted(x)).collect::<Vec<_>>();
        // testEqualSharing
        assert_eq!(compute_shares(&w(&[1.0; 4]), 40), [10, 10, 10, 10]);
        // testLowMaxShares
        let s = scheds(&[(0, 100, 1.0), (0, 50, 1.0), (0, 11, 1.0), (0, 3, 1.0)]);
        assert_eq!(compute_shares(&s, 40), [13, 13, 11, 3]);
        // testMinShares
        let s = scheds(&[
            (20, NO_MAX, 1.0),
            (18, NO_MAX, 1.0),
            (0, NO_MAX, 1.0),
            (2, NO_MAX, 1.0),
        ]);
        assert_eq!(compute_shares(&s, 40), [20, 18, 0, 2]);
        // testWeightedSharing
        assert_eq!(
            compute_shares(&w(&[2.0, 1.0, 1.0, 0.5]), 45),
            [20, 10, 10, 5]
        );
        // testWeightedSharingWithMaxShares
        let s = scheds(&[(0, 10, 2.0), (0, 11, 1.0), (0, 30, 1.0), (0, 20, 0.5)]);
        assert_eq!(compute_shares(&s, 45), [10, 11, 16, 8]);
        // testWeightedSharingWithMinShares
        let s = scheds(&[
            (20, NO_MAX, 2.0),
            (0, NO_MAX, 1.0),
            (5, NO_MAX, 1.0),
            (15, NO_MAX, 0.5),
        ]);
        assert_eq!(compute_shares(&s, 45), [20, 5, 5, 15]);
        // testLargeShares
        assert_eq!(compute_shares(&w(&[1.0; 4]), 40_000_000), [10_000_000; 4]);
        // testEmptyList
        assert!(compute_shares(&[], 40).is_empty());
        // An inactive queue gets nothing; the active share the rest.
        let mut s = w(&[1.0; 3]);
        s[1].active = false;
        assert_eq!(compute_shares(&s, 40), [20, 0, 20]);
        // Weight 0: the minimum share, fixed (getFairShareIfFixed).
        let s = scheds(&[(7, NO_MAX, 0.0), (0, NO_MAX, 1.0)]);
        assert_eq!(compute_shares(&s, 40), [7, 33]);
    }
}
