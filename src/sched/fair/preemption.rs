//! Fair-scheduler preemption and starvation (`updatePreemptionVariables`,
//! `preemptTasksIfNecessary`): when each pool was last at its min share and
//! at half its fair share, and which tasks to kill for starved pools.

use super::base::{pool_min, pool_running, FairBase, Hooks, TaskKind};
use crate::model::Ms;
use crate::sim::{AttemptId, Heartbeat, RunView};

/// Hadoop's `UPDATE_INTERVAL`: how often shares and starvation are refreshed.
pub const UPDATE_INTERVAL: Ms = 500;

/// Hadoop's `preemptionInterval` default.
pub const PREEMPTION_INTERVAL: Ms = 15_000;

/// Fair-scheduler preemption (`preemptTasksIfNecessary`): per task kind,
/// when each pool was last at its min share and at half its fair share.
#[derive(Clone, Debug, Default)]
pub struct Preemption {
    last_check: Option<Ms>,
    /// Last starvation update (Hadoop's update thread runs every 500 ms).
    last_update: Option<Ms>,
    /// Indexed by `kind_index`: maps (or containers) and reduces.
    at_min: [Vec<Ms>; 2],
    at_half: [Vec<Ms>; 2],
}

fn kind_index(k: TaskKind) -> usize {
    usize::from(k == TaskKind::Reduce)
}

impl<H: Hooks> FairBase<H> {
    pub(super) fn has_timeouts(w: RunView<'_>) -> bool {
        w.pools()
            .iter()
            .any(|p| p.min_share_timeout.is_some() || p.fair_share_timeout.is_some())
    }

    /// `updatePreemptionVariables` for maps. Hadoop runs it only with
    /// preemption on, which would make a configured timeout end delay
    /// scheduling for good once it elapses; we keep the times current so
    /// a timeout means "starved that long", as the docs describe.
    pub(super) fn update_starvation(&mut self, w: RunView<'_>) {
        let n = w.pools().len();
        self.last_at_min.resize(n, w.now());
        self.last_at_half.resize(n, w.now());
        let (shares, _) = self.fair_shares(w, TaskKind::Map);
        let (_, demand) = self.pools_view(w, TaskKind::Map);
        for p in 0..n {
            let running = w.pool_stats()[p].running_maps;
            let desired_min = w.pools()[p].min_maps.min(demand[p]);
            if running >= desired_min {
                self.last_at_min[p] = w.now();
            }
            let desired_half = (shares[p] / 2.0).min(demand[p] as f64).floor() as u32;
            if running >= desired_half {
                self.last_at_half[p] = w.now();
            }
        }
    }

    pub fn pool_starved(&self, w: RunView<'_>, p: usize) -> bool {
        let spec = &w.pools()[p];
        let since = |v: &Vec<Ms>| w.now().saturating_sub(v.get(p).copied().unwrap_or(w.now()));
        spec.min_share_timeout
            .is_some_and(|t| since(&self.last_at_min) > t)
            || spec
                .fair_share_timeout
                .is_some_and(|t| since(&self.last_at_half) > t)
    }

    /// `updatePreemptionVariables` + `preemptTasksIfNecessary`: keep each
    /// pool's starvation times current, and every 15 s kill, per task kind,
    /// max(min(min share, demand) − running once below min share longer
    /// than `min_share_timeout`, ⌊min(fair share, demand)⌋ − running once
    /// below half its fair share longer than `fair_share_timeout`) tasks,
    /// summed over pools: the newest tasks of pools above their fair share,
    /// never taking a pool below it.
    fn preempt_if_needed(&mut self, hb: &mut Heartbeat<'_>) {
        let w = hb.view();
        let now = w.now();
        let n = w.pools().len();
        let kinds: &[TaskKind] = if !self.typed_view(w) {
            &[TaskKind::Any]
        } else {
            &[TaskKind::Map, TaskKind::Reduce]
        };
        let mut plans: Vec<(TaskKind, u32, Vec<f64>)> = Vec::new();
        let Some(pre) = self.preemption.as_mut() else {
            return;
        };
        let due = pre
            .last_check
            .is_none_or(|t| now >= t + PREEMPTION_INTERVAL);
        for &k in kinds {
            let ki = kind_index(k);
            pre.at_min[ki].resize(n, now);
            pre.at_half[ki].resize(n, now);
        }
        // Computed outside the borrow of `pre`.
        let views: Vec<(TaskKind, Vec<f64>, Vec<u32>)> = kinds
            .iter()
            .map(|&k| (k, self.fair_shares(w, k).0, self.pools_view(w, k).1))
            .collect();
        let pre = self.preemption.as_mut().expect("checked above");
        for (k, shares, demand) in views {
            let ki = kind_index(k);
            let mut to_preempt = 0u32;
            for p in 0..n {
                let running = pool_running(w, p, k);
                let min_target = pool_min(w, p, k).min(demand[p]);
                let half_target = (shares[p] / 2.0).min(demand[p] as f64).floor() as u32;
                if running >= min_target {
                    pre.at_min[ki][p] = now;
                }
                if running >= half_target {
                    pre.at_half[ki][p] = now;
                }
                let spec = &w.pools()[p];
                let by_min = match spec.min_share_timeout {
                    Some(t) if now - pre.at_min[ki][p] > t => min_target.saturating_sub(running),
                    _ => 0,
                };
                let by_fair = match spec.fair_share_timeout {
                    Some(t) if now - pre.at_half[ki][p] > t => {
                        (shares[p].min(demand[p] as f64) as u32).saturating_sub(running)
                    }
                    _ => 0,
                };
                to_preempt += by_min.max(by_fair);
            }
            if due && to_preempt > 0 {
                plans.push((k, to_preempt, shares));
            }
        }
        if due {
            pre.last_check = Some(now);
        }
        for (k, mut to_preempt, shares) in plans {
            let w = hb.view();
            // Running attempts of the kind in pools above their fair share,
            // newest first.
            let mut victims: Vec<(Ms, AttemptId, usize)> = Vec::new();
            for &j in w.active() {
                let job = w.job(j);
                let p = job.pool as usize;
                if (pool_running(w, p, k) as f64) <= shares[p] {
                    continue;
                }
                let maps = job.maps.iter().flat_map(|m| m.live.iter());
                let reds = job.reduces.iter().flat_map(|r| r.live.iter());
                let live: Vec<AttemptId> = match k {
                    TaskKind::Map => maps.copied().collect(),
                    TaskKind::Reduce => reds.copied().collect(),
                    TaskKind::Any => maps.chain(reds).copied().collect(),
                };
                victims.extend(
                    live.into_iter()
                        .map(|a| (w.attempts()[a as usize].start, a, p)),
                );
            }
            victims.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
            let mut left: Vec<u32> = (0..n).map(|p| pool_running(w, p, k)).collect();
            for (_, a, p) in victims {
                if left[p] as f64 > shares[p] {
                    hb.preempt(a);
                    left[p] -= 1;
                    to_preempt -= 1;
                    if to_preempt == 0 {
                        break;
                    }
                }
            }
        }
    }

    /// Called on every heartbeat of a live node: every 500 ms (Hadoop's
    /// update thread), keep starvation current and preempt when due.
    pub fn maintain(&mut self, hb: &mut Heartbeat<'_>) {
        let now = hb.view().now();
        let Some(pre) = self.preemption.as_mut() else {
            return;
        };
        if pre.last_update.is_some_and(|t| now < t + UPDATE_INTERVAL) {
            return;
        }
        pre.last_update = Some(now);
        self.preempt_if_needed(hb);
    }
}
