//! YARN's resource calculators, as the CapacityScheduler compares, divides
//! and rounds with them (Hadoop 2.7.3 `DefaultResourceCalculator`: memory
//! only; `DominantResourceCalculator`: dominant shares of the cluster).
//!
//! Amounts are signed ([`R`]): Hadoop's `Resources.subtract` goes below
//! zero (a headroom over a limit), and its comparisons see that.

use crate::model::Resource;
use std::cmp::Ordering;

/// A resource amount that may be negative (`Resources.subtract`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct R {
    pub mb: i64,
    pub vc: i64,
}

impl R {
    pub const ZERO: R = R { mb: 0, vc: 0 };

    pub fn new(mb: i64, vc: i64) -> R {
        R { mb, vc }
    }

    pub fn plus(self, o: R) -> R {
        R::new(self.mb + o.mb, self.vc + o.vc)
    }

    pub fn minus(self, o: R) -> R {
        R::new(self.mb - o.mb, self.vc - o.vc)
    }

    /// `Resources.componentwiseMin`.
    pub fn component_min(self, o: R) -> R {
        R::new(self.mb.min(o.mb), self.vc.min(o.vc))
    }

    /// `Resources.multiply`: each component times `by`, truncated.
    pub fn times(self, by: f64) -> R {
        R::new(
            (self.mb as f64 * by) as i32 as i64,
            (self.vc as f64 * by) as i32 as i64,
        )
    }

    /// Clamped at zero, for the engine's unsigned amounts.
    pub fn resource(self) -> Resource {
        Resource::new(self.mb.max(0) as u32, self.vc.max(0) as u32)
    }
}

impl From<Resource> for R {
    fn from(r: Resource) -> R {
        R::new(i64::from(r.mb), i64::from(r.vcores))
    }
}

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
    fn value(cluster: R, r: R, dominant: bool) -> f32 {
        let m = r.mb as f32 / cluster.mb as f32;
        let c = r.vc as f32 / cluster.vc as f32;
        if dominant {
            m.max(c)
        } else {
            m.min(c)
        }
    }

    /// `ResourceCalculator.compare`.
    pub fn cmp(self, cluster: R, a: R, b: R) -> Ordering {
        match self {
            Calc::Memory => a.mb.cmp(&b.mb),
            Calc::Dominant => {
                if a == b {
                    return Ordering::Equal;
                }
                if cluster.mb == 0 || cluster.vc == 0 {
                    let mixed = (a.mb < b.mb && a.vc > b.vc) || (a.mb > b.mb && a.vc < b.vc);
                    return if mixed {
                        Ordering::Equal
                    } else if a.mb > b.mb || a.vc > b.vc {
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

    pub fn gt(self, cluster: R, a: R, b: R) -> bool {
        self.cmp(cluster, a, b) == Ordering::Greater
    }

    pub fn lt(self, cluster: R, a: R, b: R) -> bool {
        self.cmp(cluster, a, b) == Ordering::Less
    }

    /// `Resources.min`: the lesser by this calculator (not per component).
    pub fn min(self, cluster: R, a: R, b: R) -> R {
        if self.cmp(cluster, a, b) != Ordering::Greater {
            a
        } else {
            b
        }
    }

    /// `Resources.max`.
    pub fn max(self, cluster: R, a: R, b: R) -> R {
        if self.cmp(cluster, a, b) != Ordering::Less {
            a
        } else {
            b
        }
    }

    /// `ResourceCalculator.divide`.
    pub fn divide(self, cluster: R, a: R, b: R) -> f32 {
        match self {
            Calc::Memory => a.mb as f32 / b.mb as f32,
            Calc::Dominant => Self::value(cluster, a, true) / Self::value(cluster, b, true),
        }
    }

    /// `ResourceCalculator.ratio`.
    pub fn ratio(self, a: R, b: R) -> f32 {
        match self {
            Calc::Memory => a.mb as f32 / b.mb as f32,
            Calc::Dominant => (a.mb as f32 / b.mb as f32).max(a.vc as f32 / b.vc as f32),
        }
    }

    /// `computeAvailableContainers`: how many of `req` fit in `avail`.
    pub fn fits(self, avail: R, req: R) -> i64 {
        let m = if req.mb > 0 {
            avail.mb / req.mb
        } else {
            i64::MAX
        };
        match self {
            Calc::Memory => m,
            Calc::Dominant => m.min(if req.vc > 0 {
                avail.vc / req.vc
            } else {
                i64::MAX
            }),
        }
    }

    /// What the memory-only calculator makes of a memory amount
    /// (`Resources.createResource(memory)`: one vcore if any memory).
    fn mem(mb: i64) -> R {
        R::new(mb, i64::from(mb > 0))
    }

    pub fn round_up(self, r: R, step: R) -> R {
        match self {
            Calc::Memory => Self::mem(round_up(r.mb, step.mb)),
            Calc::Dominant => R::new(round_up(r.mb, step.mb), round_up(r.vc, step.vc)),
        }
    }

    pub fn round_down(self, r: R, step: R) -> R {
        match self {
            Calc::Memory => Self::mem(round_down(r.mb, step.mb)),
            Calc::Dominant => R::new(round_down(r.mb, step.mb), round_down(r.vc, step.vc)),
        }
    }

    /// `multiplyAndNormalizeUp` (memory-only: rounded to nearest first, as
    /// `(int)(memory * by + 0.5)`; dominant: `ceil`).
    pub fn times_up(self, r: R, by: f64, step: R) -> R {
        match self {
            Calc::Memory => Self::mem(round_up((r.mb as f64 * by + 0.5) as i32 as i64, step.mb)),
            Calc::Dominant => R::new(
                round_up((r.mb as f64 * by).ceil() as i32 as i64, step.mb),
                round_up((r.vc as f64 * by).ceil() as i32 as i64, step.vc),
            ),
        }
    }

    /// `multiplyAndNormalizeDown`.
    pub fn times_down(self, r: R, by: f64, step: R) -> R {
        match self {
            Calc::Memory => Self::mem(round_down((r.mb as f64 * by) as i32 as i64, step.mb)),
            Calc::Dominant => R::new(
                round_down((r.mb as f64 * by) as i32 as i64, step.mb),
                round_down((r.vc as f64 * by) as i32 as i64, step.vc),
            ),
        }
    }

    /// `divideAndCeil`.
    pub fn div_ceil(self, r: R, n: i64) -> R {
        match self {
            Calc::Memory => Self::mem(div_ceil(r.mb, n)),
            Calc::Dominant => R::new(div_ceil(r.mb, n), div_ceil(r.vc, n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominant_compares_by_dominant_share_then_the_other() {
        let c = R::new(8000, 8);
        // 4000 MB is half of memory, 3 vcores 3/8: dominant 0.5 against
        // 5/8 for <2000, 5>.
        assert!(Calc::Dominant.lt(c, R::new(4000, 3), R::new(2000, 5)));
        // Memory only sees memory.
        assert!(Calc::Memory.gt(c, R::new(4000, 3), R::new(2000, 5)));
        // Equal dominant shares fall to the smaller share.
        assert!(Calc::Dominant.lt(c, R::new(4000, 1), R::new(4000, 2)));
    }

    #[test]
    fn rounding_follows_each_calculator() {
        let step = R::new(1024, 1);
        assert_eq!(
            Calc::Memory.times_up(R::new(10240, 10), 0.1, step),
            R::new(1024, 1)
        );
        // (int)(10000 * 0.1 + 0.5) = 1000 → 1024; dominant ceil: 1000 → 1024, 1 vcore.
        assert_eq!(
            Calc::Dominant.times_up(R::new(10000, 10), 0.1, step),
            R::new(1024, 1)
        );
        assert_eq!(
            Calc::Dominant.times_down(R::new(10000, 10), 0.25, step),
            R::new(2048, 2)
        );
        assert_eq!(Calc::Memory.div_ceil(R::new(3000, 3), 2), R::new(1500, 1));
        assert_eq!(Calc::Dominant.fits(R::new(8192, 1), R::new(1024, 1)), 1);
        assert_eq!(Calc::Memory.fits(R::new(8192, 1), R::new(1024, 1)), 8);
    }
}
