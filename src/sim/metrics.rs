//! Time-integrated metrics (docs/model.md), updated in O(pools) at every
//! change of running tasks.

use crate::model::capacity::Utilization;
use crate::model::{Ms, Resource};

#[derive(Clone, Debug, Default)]
pub struct Metrics {
    last: Ms,
    /// First job submission; integrals start here.
    pub start: Option<Ms>,
    /// ∫ running tasks dt (task·ms).
    pub busy: f64,
    /// ∫ Σ_nodes (l_i − l̄)² dt (DynamicMR's f(t)).
    pub node_sq: f64,
    /// ∫ Σ_active pools (s_i − s̄)² dt (DynamicMR's g(t)).
    pub pool_sq: f64,
    node_sum: f64,
    node_sumsq: f64,
    /// Live nodes: a dead node is not part of UnbalancedDegree's cluster.
    pub n_nodes: f64,
    /// Running tasks per pool and whether the pool has runnable jobs.
    pub pool_running: Vec<i64>,
    pub pool_active: Vec<u32>,
    pub running: i64,
    pub locality: [u64; 4],
    pub reduce_bytes_local: f64,
    pub reduce_bytes_total: f64,
    pub inter_dc_mb: f64,
    pub speculative_launched: u64,
    pub speculative_won: u64,
    /// Attempts that ended killed (finished maps whose output a lost node
    /// took count here too, as Hadoop reports them) and failed.
    pub attempts_killed: u64,
    pub attempts_failed: u64,
    /// Slots of live nodes now, and ∫ of it (slot·ms): utilisation's
    /// denominator, so a dead node's slots do not count as idle.
    pub live_slots: f64,
    pub slot_time: f64,
    /// Speculative attempts running now (LATE's cap).
    pub speculative_running: u32,
    /// What utilisation measures ([`crate::model::Capacity::utilization`]).
    pub basis: Option<Utilization>,
    /// Under [`Utilization::Memory`]: memory containers hold now and live
    /// nodes' memory (MB), and their integrals (MB·ms): utilisation is
    /// allocated memory over memory, AM containers included.
    pub mem_used: f64,
    pub mem_live: f64,
    pub mem_busy: f64,
    pub mem_time: f64,
}

impl Metrics {
    pub fn new(n_nodes: usize, n_pools: usize, live_slots: f64) -> Metrics {
        Metrics {
            n_nodes: n_nodes as f64,
            live_slots,
            pool_running: vec![0; n_pools],
            pool_active: vec![0; n_pools],
            ..Default::default()
        }
    }

    /// Utilisation measured by `basis`, with `live` what live nodes offer.
    pub fn with_basis(mut self, basis: Utilization, live: Resource) -> Metrics {
        self.basis = Some(basis);
        self.set_live(self.live_slots, live);
        self
    }

    /// Live nodes changed: their slots and what they offer.
    pub fn set_live(&mut self, slots: f64, live: Resource) {
        self.live_slots = slots;
        if self.basis == Some(Utilization::Memory) {
            self.mem_live = live.mb() as f64;
        }
    }

    /// Tasks' asks changed at `now`: what they hold over the cluster is
    /// `used`.
    pub fn set_allocated(&mut self, now: Ms, used: Resource) {
        if self.basis == Some(Utilization::Memory) {
            self.advance(now);
            self.mem_used = used.mb() as f64;
        }
    }

    pub fn add_pool(&mut self) {
        self.pool_running.push(0);
        self.pool_active.push(0);
    }

    /// The integrals as they will stand at `end` (the summary's stop time,
    /// which may be after the last event, as with `--until`), without
    /// changing anything: advancing at arbitrary stop points would split
    /// the sums differently and change the last bits of the results.
    pub fn at(&self, end: Ms) -> Metrics {
        let mut m = self.clone();
        m.advance(end);
        m
    }

    /// Integrates up to `now`. Call before any change.
    pub fn advance(&mut self, now: Ms) {
        if now <= self.last {
            return;
        }
        let dt = (now - self.last) as f64;
        self.last = now;
        if self.start.is_none() {
            return;
        }
        self.busy += self.running as f64 * dt;
        self.slot_time += self.live_slots * dt;
        self.mem_busy += self.mem_used * dt;
        self.mem_time += self.mem_live * dt;
        let f = self.node_sumsq - self.node_sum * self.node_sum / self.n_nodes.max(1.0);
        self.node_sq += f.max(0.0) * dt;
        self.pool_sq += self.pool_dev() * dt;
    }

    fn pool_dev(&self) -> f64 {
        let (mut n, mut s, mut s2) = (0.0, 0.0, 0.0);
        for (i, &r) in self.pool_running.iter().enumerate() {
            if self.pool_active[i] > 0 {
                n += 1.0;
                s += r as f64;
                s2 += (r * r) as f64;
            }
        }
        if n == 0.0 {
            0.0
        } else {
            (s2 - s * s / n).max(0.0)
        }
    }

    /// A task started (+1) or ended (−1) on a node that had `before` running.
    pub fn task_delta(&mut self, pool: usize, before: u32, delta: i64) {
        let b = before as f64;
        let a = b + delta as f64;
        self.node_sum += a - b;
        self.node_sumsq += a * a - b * b;
        self.pool_running[pool] += delta;
        self.running += delta;
    }

    /// The run's utilisation so far: busy slots over live slots, or under
    /// yarn allocated memory over live memory.
    pub fn utilization(&self) -> f64 {
        if self.mem_time > 0.0 {
            self.mem_busy / self.mem_time
        } else {
            self.busy / self.slot_time.max(1.0)
        }
    }

    pub fn span(&self, end: Ms) -> f64 {
        match self.start {
            Some(s) if end > s => (end - s) as f64,
            _ => 0.0,
        }
    }
}
