//! `capacity`: Hadoop 1.x CapacityTaskScheduler, reduced to what a slot
//! simulator can see (no memory-based scheduling, no job initialisation
//! limits). Queues are the scenario's pools, each with `capacity` percent.
//!
//! Speculative copies come from each job's lookup in queue order, after
//! its pending tasks, as `obtainNewNonLocalMapTask` and
//! `obtainNewReduceTask` give them: a speculative map is the heartbeat's
//! one off-switch map and waits for `scheduleOffSwitch` as one does.

use super::registry::{Entry, DEFAULT_SLOWSTART};
use super::settings::{ConfigError, Settings};
use crate::model::Models;
use crate::model::{JobId, NodeId};
use crate::sim::policy::{
    num, Inspection, Policy, PoolShare, PoolShares, ShareBasis, Show, Values,
};
use crate::sim::{Heartbeat, Kind, Locality, RunView};
use std::collections::BTreeMap;

/// `[scheduler.capacity]`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub slowstart: Option<f64>,
}

pub const CAPACITY: Entry = Entry {
    name: "capacity",
    summary: "Hadoop 1.x CapacityTaskScheduler: queues by occupied/capacity, FIFO with priorities inside, user limits",
    source: "Hadoop 1.0.3 CapacityTaskScheduler (TestCapacityScheduler)",
    runs_on: Models::SLOTS,
    meant_for: Models::SLOTS,
    build: |s, _| Ok(Box::new(Capacity::build(s)?)),
    check: None,
};

/// `mapreduce.job.locality.wait.factor` default.
const LOCALITY_WAIT_FACTOR: f64 = 1.0;

#[derive(Clone)]
pub struct Capacity {
    slowstart: f64,
    /// Scheduling opportunities each job has missed since its last local
    /// map (`JobInProgress.numSchedulingOpportunities`).
    missed: Vec<u64>,
}

impl Capacity {
    fn build(s: &Settings) -> Result<Capacity, ConfigError> {
        let own: Config = s.own()?;
        Ok(Capacity {
            slowstart: s.slowstart_or(own.slowstart, DEFAULT_SLOWSTART)?,
            missed: Vec::new(),
        })
    }

    fn missed(&mut self, j: JobId) -> &mut u64 {
        if self.missed.len() <= j as usize {
            self.missed.resize(j as usize + 1, 0);
        }
        &mut self.missed[j as usize]
    }
}

/// Each pool's capacity percent: as declared; pools without one share what
/// is left (100 − declared) equally.
pub fn capacity_percents(w: RunView<'_>) -> Vec<f64> {
    let declared: f64 = w.pools().iter().filter_map(|p| p.capacity).sum();
    let undeclared = w.pools().iter().filter(|p| p.capacity.is_none()).count();
    let rest = if undeclared > 0 {
        (100.0 - declared).max(0.0) / undeclared as f64
    } else {
        0.0
    };
    w.pools()
        .iter()
        .map(|p| p.capacity.unwrap_or(rest))
        .collect()
}

fn slots(w: RunView<'_>, map: bool) -> u32 {
    if w.capacity().kinds_share() {
        w.cluster().total_slots()
    } else if map {
        w.cluster().total_map_slots
    } else {
        w.cluster().total_reduce_slots
    }
}

fn occupied(w: RunView<'_>, p: usize, map: bool) -> u32 {
    let s = &w.pool_stats()[p];
    if w.capacity().kinds_share() {
        s.running_maps + s.running_reduces
    } else if map {
        s.running_maps
    } else {
        s.running_reduces
    }
}

/// A queue's view for one task kind.
struct Queue {
    pool: usize,
    capacity: u32,
    occupied: u32,
    jobs: Vec<JobId>,
    /// Each job's user (aligned with `jobs`), an index into `used`: users
    /// are numbered by name, once per heartbeat, so the per-job checks
    /// compare no strings.
    job_user: Vec<u32>,
    /// The slots each user's jobs in the queue occupy.
    used: Vec<u32>,
    /// Users with tasks of this kind pending (Hadoop's active users for the
    /// task type).
    active_users: u32,
}

impl Queue {
    fn ratio(&self) -> f64 {
        if self.capacity == 0 {
            f64::INFINITY
        } else {
            self.occupied as f64 / self.capacity as f64
        }
    }

    /// The slots the user of the queue's `ji`-th job occupies.
    fn user_slot(&mut self, ji: usize) -> &mut u32 {
        &mut self.used[self.job_user[ji] as usize]
    }
}

/// Least used relative to capacity first; a zero-capacity queue last.
fn sort_queues(qs: &mut [Queue]) {
    qs.sort_by(|a, b| {
        a.ratio()
            .partial_cmp(&b.ratio())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.pool.cmp(&b.pool))
    });
}

impl Capacity {
    /// The queues for one task kind, built once per heartbeat and then
    /// kept current as tasks launch.
    fn queues(&self, w: RunView<'_>, map: bool) -> Vec<Queue> {
        let pct = capacity_percents(w);
        let total = slots(w, map);
        let mut qs: Vec<Queue> = (0..w.pools().len())
            .map(|p| Queue {
                pool: p,
                capacity: (pct[p] * total as f64 / 100.0).floor() as u32,
                occupied: occupied(w, p, map),
                jobs: Vec::new(),
                job_user: Vec::new(),
                used: Vec::new(),
                active_users: 0,
            })
            .collect();
        for &j in w.active() {
            qs[w.job(j).pool as usize].jobs.push(j);
        }
        let mut names: Vec<&str> = Vec::new();
        let mut active: Vec<bool> = Vec::new();
        for q in &mut qs {
            q.jobs
                .sort_by_key(|&j| (w.job(j).priority, w.job(j).submit, j));
            names.clear();
            names.extend(q.jobs.iter().map(|&j| &*w.job(j).user));
            names.sort_unstable();
            names.dedup();
            q.used = vec![0; names.len()];
            active.clear();
            active.resize(names.len(), false);
            q.job_user = Vec::with_capacity(q.jobs.len());
            for &j in &q.jobs {
                let jb = w.job(j);
                let u = names
                    .binary_search(&&*jb.user)
                    .expect("every job's user is listed");
                let (used, pending) = if w.capacity().kinds_share() {
                    (
                        jb.maps_running + jb.reduces_running,
                        jb.maps_pending + jb.reduces_pending,
                    )
                } else if map {
                    (jb.maps_running, jb.maps_pending)
                } else {
                    (jb.reduces_running, jb.reduces_pending)
                };
                q.used[u] += used;
                active[u] |= pending > 0;
                q.job_user.push(u as u32);
            }
            q.active_users = active.iter().filter(|&&a| a).count() as u32;
        }
        sort_queues(&mut qs);
        qs
    }

    /// Hadoop 1.x's user limit (`CapacitySchedulerQueue.assignSlotsToJob`):
    /// min(max(ceil(cur / active users), ceil(min_user_limit % × cur)),
    /// ⌊capacity × user_limit_factor⌋), where capacity is at least the one
    /// slot asked for, cur is that capacity while the queue is under it and
    /// occupied + 1 once over, and active users are those with tasks of
    /// this kind pending (at least 1).
    fn user_over_limit(w: RunView<'_>, q: &Queue, ji: usize) -> bool {
        Self::user_room(w, q, ji) == 0
    }

    /// How many more slots the user of queue `q`'s `ji`-th job may take.
    fn user_room(w: RunView<'_>, q: &Queue, ji: usize) -> u32 {
        let spec = &w.pools()[q.pool];
        // "Allow progress for queues with miniscule capacity."
        let capacity = q.capacity.max(1);
        let cur = if q.occupied < capacity {
            capacity
        } else {
            q.occupied + 1
        };
        let active = q.active_users.max(1);
        // ceil(cur / active), in integers.
        let a = cur.div_ceil(active) as f64;
        let b = (spec.min_user_limit * cur as f64 / 100.0).ceil();
        let cap = (capacity as f64 * spec.user_limit_factor).floor();
        let limit = a.max(b).min(cap) as u32;
        let used = q.used[q.job_user[ji] as usize];
        limit.saturating_sub(used)
    }
}

impl Capacity {
    /// Maps: as many as fit, node-or-rack-local first, one off-switch at most.
    fn assign_maps(&mut self, hb: &mut Heartbeat<'_>) {
        let n_nodes = hb.view().cluster().live_nodes as u64;
        let mut assign_off_switch = true;
        let mut qs = self.queues(hb.view(), true);
        'maps: while hb.free_maps() > 0 {
            for qi in 0..qs.len() {
                for ji in 0..qs[qi].jobs.len() {
                    let j = qs[qi].jobs[ji];
                    let w = hb.view();
                    let job = w.job(j);
                    // On unified containers a job whose reduces hold its
                    // user's room while they wait for its maps, none of
                    // which runs, may still run a map: without it the job
                    // waits for ever. Reduce placement leaves that room
                    // (see `assign_reduce`), but reduces launched under
                    // another policy before a switch, or maps lost with a
                    // node, can leave a job in that state.
                    let stuck = w.capacity().kinds_share()
                        && job.reduces_running > 0
                        && job.maps_running == 0
                        && job.maps_pending > 0;
                    if (Self::user_over_limit(w, &qs[qi], ji) && !stuck)
                        || (job.maps_pending == 0 && hb.speculative_task(j, Kind::Map).is_none())
                    {
                        continue;
                    }
                    *self.missed(j) += 1;
                    let w = hb.view();
                    let job = w.job(j);
                    // The task, and its rule (None: a speculative copy).
                    let mut launched = None;
                    if let Some((t, _)) = job.find_map(hb.node, Locality::Rack, w.cluster()) {
                        launched = Some((t, Some("capacity/local")));
                    } else {
                        // `scheduleOffSwitch`: only after missing enough heartbeats.
                        let required = (job.unfinished_maps() as u64).min(n_nodes) as f64;
                        if assign_off_switch
                            && required * LOCALITY_WAIT_FACTOR < self.missed[j as usize] as f64
                        {
                            if let Some((t, _)) =
                                job.find_map(hb.node, Locality::OffDc, w.cluster())
                            {
                                launched = Some((t, Some("capacity/off-switch")));
                                assign_off_switch = false;
                            } else if let Some(t) = hb.speculative_task(j, Kind::Map) {
                                launched = Some((t, None));
                                assign_off_switch = false;
                            }
                        }
                    }
                    if let Some((t, rule)) = launched {
                        match rule {
                            Some(rule) => hb.launch_map(j, t, rule),
                            None => hb.launch_speculative(j, Kind::Map, t),
                        };
                        *self.missed(j) = 0;
                        qs[qi].occupied += 1;
                        *qs[qi].user_slot(ji) += 1;
                        sort_queues(&mut qs);
                        continue 'maps;
                    }
                }
            }
            break;
        }
    }

    /// Reduces: at most one per heartbeat.
    fn assign_reduce(&mut self, hb: &mut Heartbeat<'_>) {
        if hb.free_reduces() > 0 {
            let qs = self.queues(hb.view(), false);
            for q in &qs {
                for (ji, &j) in q.jobs.iter().enumerate() {
                    let w = hb.view();
                    let job = w.job(j);
                    if !job.reduces_schedulable(self.slowstart)
                        || (job.reduces_pending == 0
                            && hb.speculative_task(j, Kind::Reduce).is_none())
                        || !w.reduce_allowed(j)
                    {
                        continue;
                    }
                    // On unified containers a reduce that waits on its
                    // job's maps must leave its user room for a map, or a
                    // user limit of one container deadlocks the job.
                    let early = w.capacity().kinds_share() && job.maps_done < job.n_maps();
                    if Self::user_room(w, q, ji) < if early { 2 } else { 1 } {
                        continue;
                    }
                    if let Some(r) = job.find_reduce() {
                        hb.launch_reduce(j, r, "capacity/reduce");
                        return;
                    }
                    if hb.speculate(j, Kind::Reduce).is_some() {
                        return;
                    }
                }
            }
        }
    }
}

impl Policy for Capacity {
    fn slowstart(&self) -> f64 {
        self.slowstart
    }

    fn speculates(&self) -> bool {
        true
    }

    fn adopt(&mut self, _w: RunView<'_>) {
        self.missed.clear();
    }

    /// Typed slots: maps, then at most one reduce, as Hadoop 1.x's
    /// `assignTasks`. On unified containers a map pass that fills every
    /// free container would hold back every reduce until the cluster's last
    /// map has launched, so the reduce goes first there, as YARN's MapReduce
    /// AM ranks its requests (`RMContainerAllocator`: PRIORITY_REDUCE 10
    /// before PRIORITY_MAP 20), still one per heartbeat and still within the
    /// engine's ramp-up bound on early reduces.
    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        if hb.capacity().kinds_share() {
            self.assign_reduce(hb);
            self.assign_maps(hb);
        } else {
            self.assign_maps(hb);
            self.assign_reduce(hb);
        }
    }
}

impl Show for Capacity {
    fn inspect(&self, w: RunView<'_>, _node: NodeId) -> Inspection {
        let mut ins = Inspection::default();
        let pct = capacity_percents(w);
        let mut by_pool: BTreeMap<String, Values> = BTreeMap::new();
        for map in [true, false] {
            let kind = if map { "map" } else { "reduce" };
            for q in self.queues(w, map) {
                let v = by_pool.entry(w.pools()[q.pool].name.clone()).or_default();
                v.insert("capacity_pct", num(pct[q.pool]));
                v.insert(format!("capacity_{kind}"), q.capacity);
                v.insert(format!("occupied_{kind}"), q.occupied);
            }
        }
        ins.pools = by_pool;
        for &j in w.active() {
            let job = w.job(j);
            let mut v = Values::new();
            v.insert("pool", w.pool_name(j));
            v.insert("user", job.user.to_string());
            v.insert("pending_maps", job.maps_pending);
            v.insert("running_map", job.maps_running);
            v.insert("running_reduce", job.reduces_running);
            v.insert(
                "missed_opportunities",
                self.missed.get(j as usize).copied().unwrap_or(0),
            );
            ins.jobs.insert(job.name.to_string(), v);
        }
        ins
    }

    fn pool_shares(&self, w: RunView<'_>) -> Option<PoolShares> {
        let pct = capacity_percents(w);
        let cap = |map: bool| -> Vec<f64> {
            let mut c = vec![0.0; w.pools().len()];
            for q in self.queues(w, map) {
                c[q.pool] = q.capacity as f64;
            }
            c
        };
        let (m, r) = (cap(true), cap(false));
        let pools = w
            .pools()
            .iter()
            .enumerate()
            .map(|(p, spec)| PoolShare {
                name: spec.name.clone(),
                weight: spec.weight,
                jobs: w
                    .active()
                    .iter()
                    .filter(|&&j| w.job(j).pool as usize == p)
                    .count(),
                running_maps: w.pool_stats()[p].running_maps,
                running_reduces: w.pool_stats()[p].running_reduces,
                share_map: m[p],
                share_reduce: r[p],
                capacity_pct: Some(pct[p]),
            })
            .collect();
        Some(PoolShares {
            basis: ShareBasis::Capacity,
            pools,
        })
    }
}
