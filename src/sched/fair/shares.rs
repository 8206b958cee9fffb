//! Hadoop 1.x's fair-share arithmetic (`SchedulingAlgorithms`): shares by
//! weight, min share and demand (`computeFairShares`), and the order of
//! schedulables (`FairShareComparator`). Used for pools and for jobs alike,
//! and by every policy built on the fair scheduler.

use std::cmp::Ordering;

/// Hadoop's `COMPUTE_FAIR_SHARES_ITERATIONS`.
const FAIR_SHARE_ITERATIONS: usize = 25;

/// Something fair shares are computed over: a pool or a job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sched {
    pub weight: f64,
    pub min_share: f64,
    pub demand: f64,
}

/// `SchedulingAlgorithms.computeFairShares`: find R such that
/// Σ min(demand, max(min_share, weight·R)) = min(Σ demand, slots), by
/// doubling an upper bound then 25 bisection steps, exactly as Hadoop.
pub fn compute_fair_shares(scheds: &[Sched], total_slots: f64) -> Vec<f64> {
    let share = |s: &Sched, r: f64| (s.weight * r).max(s.min_share).min(s.demand);
    let used = |r: f64| scheds.iter().map(|s| share(s, r)).sum::<f64>();
    let total_demand: f64 = scheds.iter().map(|s| s.demand).sum();
    let cap = total_demand.min(total_slots);
    let mut r_max = 1.0;
    while used(r_max) < cap {
        r_max *= 2.0;
    }
    let (mut left, mut right) = (0.0, r_max);
    for _ in 0..FAIR_SHARE_ITERATIONS {
        let mid = (left + right) / 2.0;
        if used(mid) < cap {
            left = mid;
        } else {
            right = mid;
        }
    }
    scheds.iter().map(|s| share(s, right)).collect()
}

/// What `FairShareComparator` compares.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub running: f64,
    pub min_share: f64,
    pub demand: f64,
    pub weight: f64,
}

/// `SchedulingAlgorithms.FairShareComparator`: needy schedulables (running
/// below min(min share, demand)) first, by running / max(that, 1); then the
/// rest by running / weight. Ties are broken by the caller.
pub fn fair_cmp(a: &Key, b: &Key) -> Ordering {
    let ms1 = a.min_share.min(a.demand);
    let ms2 = b.min_share.min(b.demand);
    let n1 = a.running < ms1;
    let n2 = b.running < ms2;
    match (n1, n2) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (true, true) => (a.running / ms1.max(1.0)).total_cmp(&(b.running / ms2.max(1.0))),
        // A size-based weight is log2(1 + demand): 0 for a job with no
        // demand. Java's 0/0 is NaN there and breaks the sort's contract; a
        // floor keeps the order total (such a job has nothing to run).
        (false, false) => {
            let ratio = |k: &Key| k.running / k.weight.max(f64::MIN_POSITIVE);
            ratio(a).total_cmp(&ratio(b))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(weight: f64, min_share: f64, demand: f64) -> Sched {
        Sched {
            weight,
            min_share,
            demand,
        }
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 0.01, "{a:?} vs {b:?}");
        }
    }

    // TestComputeFairShares.testEqualSharing
    #[test]
    fn equal_sharing() {
        let v = [
            s(1., 0., 100.),
            s(1., 0., 50.),
            s(1., 0., 30.),
            s(1., 0., 20.),
        ];
        close(&compute_fair_shares(&v, 40.0), &[10., 10., 10., 10.]);
    }

    // TestComputeFairShares.testLowDemands
    #[test]
    fn low_demands() {
        let v = [
            s(1., 0., 100.),
            s(1., 0., 50.),
            s(1., 0., 11.),
            s(1., 0., 3.),
        ];
        close(&compute_fair_shares(&v, 40.0), &[13., 13., 11., 3.]);
    }

    // TestComputeFairShares.testMinShares
    #[test]
    fn min_shares() {
        let v = [
            s(1., 20., 100.),
            s(1., 0., 50.),
            s(1., 0., 11.),
            s(1., 0., 3.),
        ];
        close(&compute_fair_shares(&v, 40.0), &[20., 8.5, 8.5, 3.]);
    }

    // TestComputeFairShares.testWeightedSharing
    #[test]
    fn weighted_sharing() {
        let v = [
            s(2., 0., 100.),
            s(1., 0., 50.),
            s(1., 0., 30.),
            s(0.5, 0., 20.),
        ];
        close(&compute_fair_shares(&v, 45.0), &[20., 10., 10., 5.]);
    }

    // TestComputeFairShares.testWeightedSharingWithLowDemands
    #[test]
    fn weighted_low_demands() {
        let v = [
            s(2., 0., 10.),
            s(1., 0., 11.),
            s(1., 0., 30.),
            s(0.5, 0., 20.),
        ];
        close(&compute_fair_shares(&v, 45.0), &[10., 11., 16., 8.]);
    }

    // Weights and min shares together: R = 60/7 solves
    // max(5, 2R) + max(15, R) + R + R/2 = 45.
    #[test]
    fn weighted_min_shares() {
        let v = [
            s(2., 5., 100.),
            s(1., 15., 50.),
            s(1., 0., 30.),
            s(0.5, 0., 20.),
        ];
        let r = 60.0 / 7.0;
        close(&compute_fair_shares(&v, 45.0), &[2. * r, 15., r, r / 2.]);
    }

    // TestComputeFairShares.testLargeShares / testZeroDemand / testEmptyList
    #[test]
    fn large_zero_and_empty() {
        let v = [
            s(1., 0., 1e15),
            s(1., 0., 1e15),
            s(1., 0., 1e15),
            s(1., 0., 1e15),
        ];
        for x in compute_fair_shares(&v, 4e14) {
            assert!((x - 1e14).abs() / 1e14 < 1e-6, "{x}");
        }
        let v = [s(1., 0., 100.), s(1., 0., 0.), s(1., 0., 0.)];
        close(&compute_fair_shares(&v, 40.0), &[40., 0., 0.]);
        assert!(compute_fair_shares(&[], 40.0).is_empty());
    }

    #[test]
    fn comparator_needy_first_then_running_over_weight() {
        let needy = Key {
            running: 3.0,
            min_share: 5.0,
            demand: 10.0,
            weight: 1.0,
        };
        let rich = Key {
            running: 0.0,
            min_share: 0.0,
            demand: 10.0,
            weight: 1.0,
        };
        assert_eq!(fair_cmp(&needy, &rich), Ordering::Less);
        let heavy = Key {
            running: 4.0,
            min_share: 0.0,
            demand: 10.0,
            weight: 2.0,
        };
        let light = Key {
            running: 3.0,
            min_share: 0.0,
            demand: 10.0,
            weight: 1.0,
        };
        assert_eq!(fair_cmp(&heavy, &light), Ordering::Less, "4/2 < 3/1");
    }
}
