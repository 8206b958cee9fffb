//! The running attempts' state beyond their phase: when the phase began,
//! its timer, its flow, its compute work, a reducer's copy. A slab whose
//! places an attempt holds while it runs (`Attempt::run`), reused once it
//! ends.

use super::copy::Copy;
use super::job::AttemptId;
use super::network::FlowId;
use crate::model::Ms;

/// A running attempt's state beyond its [`Phase`].
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub attempt: AttemptId,
    /// When the current phase began.
    pub since: Ms,
    /// The end of a timed phase (start-up, fixed-time), to tell a stale
    /// calendar entry from the live one.
    pub timer: Option<Ms>,
    /// The read, spill or write flow under way.
    pub flow: Option<FlowId>,
    /// Compute: the work, and the node's virtual time it finishes at.
    pub work: f64,
    pub target: f64,
    /// Nominal seconds of reading and computing (for progress).
    pub nominal_read: f64,
    /// A reducer's copy.
    pub copy: Option<Box<Copy>>,
}

/// The running attempts' states: a slab, its free places reused.
#[derive(Clone, Debug, Default)]
pub struct Running {
    slab: Vec<Run>,
    free: Vec<u32>,
}

impl Running {
    /// A place for attempt `a`, its phase begun at `now`.
    #[inline]
    pub fn begin(&mut self, a: AttemptId, now: Ms) -> u32 {
        let r = match self.free.pop() {
            Some(r) => {
                self.slab[r as usize] = Run::default();
                r
            }
            None => {
                self.slab.push(Run::default());
                (self.slab.len() - 1) as u32
            }
        };
        self.slab[r as usize].attempt = a;
        self.slab[r as usize].since = now;
        r
    }

    /// Place `r` is free again.
    #[inline]
    pub fn end(&mut self, r: u32) {
        self.free.push(r);
    }

    #[inline]
    pub fn get(&self, r: u32) -> &Run {
        &self.slab[r as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, r: u32) -> &mut Run {
        &mut self.slab[r as usize]
    }

    /// Every place, free ones included (a free one holds no flow).
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = &Run> {
        self.slab.iter()
    }

    /// Places kept (for a footprint).
    #[inline]
    pub fn places(&self) -> usize {
        self.slab.len()
    }
}
