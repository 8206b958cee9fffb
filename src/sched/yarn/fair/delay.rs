//! Delay scheduling: `FSAppAttempt.getAllowedLocalityLevel` (count-based
//! locality thresholds) and the reset in `FSAppAttempt.allocate`.

use super::YarnFair;
use crate::model::JobId;
use crate::sched::yarn::{Ask, Level};

/// Delay scheduling's state for one application and priority.
#[derive(Clone, Copy, Debug)]
pub(super) struct Delay {
    allowed: Option<Level>,
    pub(super) opportunities: u32,
}

const NO_DELAY: Delay = Delay {
    allowed: None,
    opportunities: 0,
};

impl YarnFair {
    pub(super) fn delay_mut(&mut self, j: JobId, ask: Ask) -> &mut Delay {
        let j = j as usize;
        if self.delay.len() <= j {
            self.delay.resize(j + 1, [NO_DELAY; 3]);
        }
        &mut self.delay[j][ask as usize]
    }

    /// `FSAppAttempt.getAllowedLocalityLevel`: NODE_LOCAL at first, relaxed
    /// a level once the missed opportunities pass threshold × nodes.
    pub(super) fn allowed_level(&mut self, j: JobId, ask: Ask, nodes: usize) -> Level {
        let (node_t, rack_t) = (self.node_threshold.min(1.0), self.rack_threshold.min(1.0));
        if node_t < 0.0 || rack_t < 0.0 {
            return Level::OffSwitch;
        }
        let d = self.delay_mut(j, ask);
        let Some(allowed) = d.allowed else {
            d.allowed = Some(Level::NodeLocal);
            return Level::NodeLocal;
        };
        if allowed == Level::OffSwitch {
            return allowed;
        }
        let threshold = if allowed == Level::NodeLocal {
            node_t
        } else {
            rack_t
        };
        if f64::from(d.opportunities) > nodes as f64 * threshold {
            d.allowed = Some(if allowed == Level::NodeLocal {
                Level::RackLocal
            } else {
                Level::OffSwitch
            });
            d.opportunities = 0;
        }
        d.allowed.unwrap_or(Level::NodeLocal)
    }

    /// `FSAppAttempt.allocate`: an allocation at a better level than the
    /// one allowed brings the allowed level back to it.
    pub(super) fn allocated_at(&mut self, j: JobId, ask: Ask, level: Level) {
        let d = self.delay_mut(j, ask);
        if let Some(allowed) = d.allowed {
            if level < allowed && level != Level::OffSwitch {
                d.allowed = Some(level);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_thresholds(node: f64, rack: f64) -> YarnFair {
        let mut p = YarnFair::defaults();
        p.node_threshold = node;
        p.rack_threshold = rack;
        p
    }

    /// TestFSAppAttempt.testDelayScheduling: 10 nodes, thresholds 0.5 and
    /// 0.6: NODE_LOCAL for five missed opportunities, RACK_LOCAL at the
    /// sixth; after a reset the same again, then OFF_SWITCH after seven more.
    #[test]
    fn hadoop_fs_app_attempt_delay_scheduling() {
        let mut p = with_thresholds(0.5, 0.6);
        let (j, ask) = (0, Ask::Map);
        let level = |p: &mut YarnFair| p.allowed_level(j, ask, 10);
        assert_eq!(level(&mut p), Level::NodeLocal);
        for _ in 0..5 {
            p.delay_mut(j, ask).opportunities += 1;
            assert_eq!(level(&mut p), Level::NodeLocal);
        }
        p.delay_mut(j, ask).opportunities += 1;
        assert_eq!(level(&mut p), Level::RackLocal);
        // resetAllowedLocalityLevel(NODE_LOCAL), resetSchedulingOpportunities.
        *p.delay_mut(j, ask) = Delay {
            allowed: Some(Level::NodeLocal),
            opportunities: 0,
        };
        for _ in 0..5 {
            p.delay_mut(j, ask).opportunities += 1;
            assert_eq!(level(&mut p), Level::NodeLocal);
        }
        p.delay_mut(j, ask).opportunities += 1;
        assert_eq!(level(&mut p), Level::RackLocal);
        for _ in 0..6 {
            p.delay_mut(j, ask).opportunities += 1;
            assert_eq!(level(&mut p), Level::RackLocal);
        }
        p.delay_mut(j, ask).opportunities += 1;
        assert_eq!(level(&mut p), Level::OffSwitch);
    }

    /// TestFSAppAttempt.testLocalityLevelWithoutDelays: -1 → OFF_SWITCH.
    #[test]
    fn hadoop_fs_app_attempt_locality_without_delays() {
        let mut p = with_thresholds(-1.0, -1.0);
        assert_eq!(p.allowed_level(0, Ask::Map, 10), Level::OffSwitch);
    }
}
