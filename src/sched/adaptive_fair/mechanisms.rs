//! The adaptive fair scheduler's mechanisms as plain functions: Table 3's
//! priority adjustment (mechanism 5), the pool allocation by pending tasks
//! (mechanism 2), and the running mean of waits (mechanism 4).

use crate::model::{Ms, Priority};
use crate::sim::Locality;

/// Table 3's locality levels: node 0, rack 1, none 2.
pub fn locality_rank(l: Locality) -> i32 {
    match l {
        Locality::Node => 0,
        Locality::Rack => 1,
        Locality::OffRack | Locality::OffDc => 2,
    }
}

fn prio_index(p: Priority) -> i32 {
    match p {
        Priority::VeryHigh => 0,
        Priority::High => 1,
        Priority::Normal => 2,
        Priority::Low => 3,
        Priority::VeryLow => 4,
    }
}

fn prio_at(i: i32) -> Priority {
    match i {
        i32::MIN..=0 => Priority::VeryHigh,
        1 => Priority::High,
        2 => Priority::Normal,
        3 => Priority::Low,
        _ => Priority::VeryLow,
    }
}

pub fn priority_name(p: Priority) -> &'static str {
    p.as_str()
}

/// Table 3: the new priority of a job at `p` whose two most recent maps
/// launched at `prev` then `new`.
pub fn adjust_priority(p: Priority, prev: Locality, new: Locality) -> Priority {
    let i = prio_index(p);
    let up = locality_rank(prev) - locality_rank(new);
    let target = (i - up).clamp(0, 4);
    if target != i {
        return prio_at(target);
    }
    match p {
        Priority::VeryHigh => Priority::High,
        Priority::VeryLow => Priority::Low,
        other => other,
    }
}

/// Mechanism 2 for one kind of slot: the shared pool's allocation
/// (⌈`shared_size` / 2⌉ if the shared pool is enabled, at most `total`)
/// and each user pool's, min(max, ⌈RemainingSlots × pending / Σ pending⌉).
pub fn allocate(
    total: u32,
    shared_size: Option<u32>,
    pending: &[u32],
    max: &[u32],
) -> (u32, Vec<u32>) {
    let shared = shared_size.map_or(0, |m| m.div_ceil(2).min(total));
    let remaining = u64::from(total - shared);
    let all: u64 = pending.iter().map(|&p| u64::from(p)).sum();
    let pools = pending
        .iter()
        .zip(max)
        .map(|(&p, &mx)| {
            if all == 0 {
                0
            } else {
                (remaining * u64::from(p)).div_ceil(all).min(u64::from(mx)) as u32
            }
        })
        .collect();
    (shared, pools)
}

/// A running mean kept as the paper's TimeCount / NumberCount.
#[derive(Clone, Copy, Debug, Default)]
pub struct WaitMean {
    pub total: Ms,
    pub count: u64,
}

impl WaitMean {
    pub fn add(&mut self, wait: Ms) {
        self.total = self.total.saturating_add(wait);
        self.count += 1;
    }

    pub fn mean(&self) -> Option<Ms> {
        (self.count > 0).then(|| self.total / self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Locality::{Node, OffRack, Rack};
    use Priority::{High, Low, Normal, VeryHigh, VeryLow};

    /// Table 3 as we read it: rows are the change of locality, columns
    /// the original priority VERY_HIGH, HIGH, NORMAL, LOW, VERY_LOW.
    #[test]
    fn table_3() {
        let cols = [VeryHigh, High, Normal, Low, VeryLow];
        let rows: [(Locality, Locality, [Priority; 5]); 9] = [
            (Node, Node, [High, High, Normal, Low, Low]),
            (Node, Rack, [High, Normal, Low, VeryLow, Low]),
            (Node, OffRack, [Normal, Low, VeryLow, VeryLow, Low]),
            (Rack, Node, [High, VeryHigh, High, Normal, Low]),
            (Rack, Rack, [High, High, Normal, Low, Low]),
            (Rack, OffRack, [High, Normal, Low, VeryLow, Low]),
            (OffRack, Node, [High, VeryHigh, VeryHigh, High, Normal]),
            (OffRack, Rack, [High, VeryHigh, High, Normal, Low]),
            (OffRack, OffRack, [High, High, Normal, Low, Low]),
        ];
        for (a, b, want) in rows {
            for (p, w) in cols.iter().zip(want) {
                assert_eq!(adjust_priority(*p, a, b), w, "{a:?}->{b:?} from {p:?}");
            }
        }
        // Off-datacenter counts as "none", like off-rack.
        assert_eq!(adjust_priority(Normal, Node, Locality::OffDc), VeryLow);
    }

    #[test]
    fn allocation_by_pending_tasks() {
        // 16 slots, shared pool for a 6-map job: 3; 13 left over pending
        // 40/30/20, max 6: ceil(5.78), ceil(4.33), ceil(2.89) = 6, 5, 3.
        let (s, p) = allocate(16, Some(6), &[40, 30, 20], &[6, 6, 6]);
        assert_eq!((s, p), (3, vec![6, 5, 3]));
        // Disabled shared pool, no pending anywhere.
        assert_eq!(allocate(8, None, &[0, 0], &[9, 9]), (0, vec![0, 0]));
        // Ceilings never give a pending pool 0: 2 slots, 1 task each.
        assert_eq!(
            allocate(2, None, &[1, 1, 1], &[9, 9, 9]),
            (0, vec![1, 1, 1])
        );
        // The shared pool never gets more than the cluster.
        assert_eq!(allocate(2, Some(9), &[5], &[9]), (2, vec![0]));
        // Odd sizes round up: ceil(5 / 2) = 3.
        assert_eq!(allocate(10, Some(5), &[1], &[u32::MAX]).0, 3);
    }
}
