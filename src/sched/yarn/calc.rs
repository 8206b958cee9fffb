//! YARN's resource calculators, as the CapacityScheduler compares, divides
//! and rounds with them (Hadoop 2.7.3 `DefaultResourceCalculator`: memory
//! only; `DominantResourceCalculator`: dominant shares of the cluster).
//!
//! Amounts are signed ([`Resource`]): Hadoop's `Resources.subtract` goes
//! below zero (a headroom over a limit), and its comparisons see that.

use crate::model::Resource;
use std::cmp::Ordering;

/// `yarn.scheduler.capacity.resource-calculator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Calc {
    /// `DefaultResourceCalculator` (the shipped default): memory only.
    Memory,
    /// `DominantResourceCalculator`: memory and vcores, by dominant share.
    Dominant,
}

fn round_up(x: i64, step: i64) -> i64 {
    div_ceil(x, step) * step
}

fn round_down(x: i64, step: i64) -> i64 {
    if step == 0 {
        x
    } else {
        x / step * step
    }
}

/// `ResourceCalculator.divideAndCeil`: 0 for a divisor of 0.
fn div_ceil(a: i64, b: i64) -> i64 {
    if b == 0 {
        0
    } else {
        (a + b - 1) / b
    }
}

impl Calc {
    /// `DominantResourceCalculator.getResourceAsValue`.
    fn value(cluster: Resource, r: Resource, dominant: bool) -> f32 {
        let m = r.mb() as f32 / cluster.mb() as f32;
        let c = r.vcores() as f32 / cluster.vcores() as f32;
        if dominant {
            m.max(c)
        } else {
            m.min(c)
        }
    }

    /// `ResourceCalculator.compare`.
    pub fn cmp(self, cluster: Resource, a: Resource, b: Resource) -> Ordering {
        match self {
            Calc::Memory => a.mb().cmp(&b.mb()),
            Calc::Dominant => {
                if a == b {
                    return Ordering::Equal;
                }
                if cluster.mb() == 0 || cluster.vcores() == 0 {
                    let mixed = (a.mb() < b.mb() && a.vcores() > b.vcores())
                        || (a.mb() > b.mb() && a.vcores() < b.vcores());
                    return if mixed {
                        Ordering::Equal
                    } else if a.mb() > b.mb() || a.vcores() > b.vcores() {
                        Ordering::Greater
                    } else {
                        Ordering::Less
                    };
                }
                let (l, r) = (Self::value(cluster, a, true), Self::value(cluster, b, true));
                match l.partial_cmp(&r) {
                    Some(Ordering::Equal) | None => {
                        let (l, r) = (
                            Self::value(cluster, a, false),
                            Self::value(cluster, b, false),
                        );
                        l.partial_cmp(&r).unwrap_or(Ordering::Equal)
                    }
                    Some(o) => o,
                }
            }
        }
    }

    pub fn gt(self, cluster: Resource, a: Resource, b: Resource) -> bool {
        self.cmp(cluster, a, b) == Ordering::Greater
    }

    pub fn lt(self, cluster: Resource, a: Resource, b: Resource) -> bool {
        self.cmp(cluster, a, b) == Ordering::Less
    }

    /// `Resources.min`: the lesser by this calculator (not per component).
    pub fn min(self, cluster: Resource, a: Resource, b: Resource) -> Resource {
        if self.cmp(cluster, a, b) != Ordering::Greater {
            a
        } else {
            b
        }
    }

    /// `Resources.max`.
    pub fn max(self, cluster: Resource, a: Resource, b: Resource) -> Resource {
        if self.cmp(cluster, a, b) != Ordering::Less {
            a
        } else {
            b
        }
    }

    /// `ResourceCalculator.divide`.
    pub fn divide(self, cluster: Resource, a: Resource, b: Resource) -> f32 {
        match self {
            Calc::Memory => a.mb() as f32 / b.mb() as f32,
            Calc::Dominant => Self::value(cluster, a, true) / Self::value(cluster, b, true),
        }
    }

    /// `ResourceCalculator.ratio`.
    pub fn ratio(self, a: Resource, b: Resource) -> f32 {
        match self {
            Calc::Memory => a.mb() as f32 / b.mb() as f32,
            Calc::Dominant => {
                (a.mb() as f32 / b.mb() as f32).max(a.vcores() as f32 / b.vcores() as f32)
            }
        }
    }

    /// `computeAvailableContainers`: how many of `req` fit in `avail`.
    pub fn fits(self, avail: Resource, req: Resource) -> i64 {
        let m = if req.mb() > 0 {
            avail.mb() / req.mb()
        } else {
            i64::MAX
        };
        match self {
            Calc::Memory => m,
            Calc::Dominant => m.min(if req.vcores() > 0 {
                avail.vcores() / req.vcores()
            } else {
                i64::MAX
            }),
        }
    }

    /// What the memory-only calculator makes of a memory amount
    /// (`Resources.createResource(memory)`: one vcore if any memory).
    fn mem(mb: i64) -> Resource {
        Resource::memory(mb, i64::from(mb > 0))
    }

    pub fn round_up(self, r: Resource, step: Resource) -> Resource {
        match self {
            Calc::Memory => Self::mem(round_up(r.mb(), step.mb())),
            Calc::Dominant => Resource::memory(
                round_up(r.mb(), step.mb()),
                round_up(r.vcores(), step.vcores()),
            ),
        }
    }

    pub fn round_down(self, r: Resource, step: Resource) -> Resource {
        match self {
            Calc::Memory => Self::mem(round_down(r.mb(), step.mb())),
            Calc::Dominant => Resource::memory(
                round_down(r.mb(), step.mb()),
                round_down(r.vcores(), step.vcores()),
            ),
        }
    }

    /// `multiplyAndNormalizeUp` (memory-only: rounded to nearest first, as
    /// `(int)(memory * by + 0.5)`; dominant: `ceil`).
    pub fn times_up(self, r: Resource, by: f64, step: Resource) -> Resource {
        match self {
            Calc::Memory => Self::mem(round_up(
                (r.mb() as f64 * by + 0.5) as i32 as i64,
                step.mb(),
            )),
            Calc::Dominant => Resource::memory(
                round_up((r.mb() as f64 * by).ceil() as i32 as i64, step.mb()),
                round_up((r.vcores() as f64 * by).ceil() as i32 as i64, step.vcores()),
            ),
        }
    }

    /// `multiplyAndNormalizeDown`.
    pub fn times_down(self, r: Resource, by: f64, step: Resource) -> Resource {
        match self {
            Calc::Memory => Self::mem(round_down((r.mb() as f64 * by) as i32 as i64, step.mb())),
            Calc::Dominant => Resource::memory(
                round_down((r.mb() as f64 * by) as i32 as i64, step.mb()),
                round_down((r.vcores() as f64 * by) as i32 as i64, step.vcores()),
            ),
        }
    }

    /// `divideAndCeil`.
    pub fn div_ceil(self, r: Resource, n: i64) -> Resource {
        match self {
            Calc::Memory => Self::mem(div_ceil(r.mb(), n)),
            Calc::Dominant => Resource::memory(div_ceil(r.mb(), n), div_ceil(r.vcores(), n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominant_compares_by_dominant_share_then_the_other() {
        let c = Resource::memory(8000, 8);
        // 4000 MB is half of memory, 3 vcores 3/8: dominant 0.5 against
        // 5/8 for <2000, 5>.
        assert!(Calc::Dominant.lt(c, Resource::memory(4000, 3), Resource::memory(2000, 5)));
        // Memory only sees memory.
        assert!(Calc::Memory.gt(c, Resource::memory(4000, 3), Resource::memory(2000, 5)));
        // Equal dominant shares fall to the smaller share.
        assert!(Calc::Dominant.lt(c, Resource::memory(4000, 1), Resource::memory(4000, 2)));
    }

    #[test]
    fn rounding_follows_each_calculator() {
        let step = Resource::memory(1024, 1);
        assert_eq!(
            Calc::Memory.times_up(Resource::memory(10240, 10), 0.1, step),
            Resource::memory(1024, 1)
        );
        // (int)(10000 * 0.1 + 0.5) = 1000 → 1024; dominant ceil: 1000 → 1024, 1 vcore.
        assert_eq!(
            Calc::Dominant.times_up(Resource::memory(10000, 10), 0.1, step),
            Resource::memory(1024, 1)
        );
        assert_eq!(
            Calc::Dominant.times_down(Resource::memory(10000, 10), 0.25, step),
            Resource::memory(2048, 2)
        );
        assert_eq!(
            Calc::Memory.div_ceil(Resource::memory(3000, 3), 2),
            Resource::memory(1500, 1)
        );
        assert_eq!(
            Calc::Dominant.fits(Resource::memory(8192, 1), Resource::memory(1024, 1)),
            1
        );
        assert_eq!(
            Calc::Memory.fits(Resource::memory(8192, 1), Resource::memory(1024, 1)),
            8
        );
    }
}
