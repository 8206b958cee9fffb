//! `omo`, `omo-lazy`, `omo-batch`: OMO ("Optimizing internal overlaps by
//! self-adjusting resource allocation in multi-stage computing systems",
//! IEEE Access 2021), read as docs/policies.md settles it. Lazy start of
//! reduces and batch finish of maps over a fair base that counts a job's
//! containers ([`OmoHooks`]), driven by the release-rate [`Predictor`].
//!
//! Every free container of a heartbeating node goes, in this order, to:
//!
//! 1. `omo/reduce-continue` — Principle 1: a pending reduce of a job whose
//!    reduce stage has started (the earliest started first), so a started
//!    job's reduces run back to back.
//! 2. `omo/lazy-start` — Algorithm 1: among running jobs whose reduce
//!    stage has not started, the candidates are those with no pending
//!    (unassigned) map, and, with lazy start on, those whose pending maps
//!    m'_i ≤ x*_i = (T_s(i) − T_m(i))·F_e(i), i.e. whose gap β between map
//!    end and shuffle end has reached ≥ 0. The candidate occupying the
//!    fewest containers starts its reduce stage with its first reduce.
//!    Without a finished map (no T_m) or while F_o = 0 only "no pending
//!    map" qualifies. With lazy start off (`omo-batch`) that is the only
//!    way a reduce stage starts: OMO never uses slowstart.
//! 3. `omo/batch-finish` — Algorithm 2: among jobs whose reduce stage has
//!    started and that still have pending maps, the one with the largest
//!    t_fair − t_batch > 0 gets the container for a map (the best-placed
//!    of its pending maps, no delay scheduling).
//! 4. `omo/fair` — the fair base: fair order over a job's containers
//!    (maps and reduces together), delay scheduling, maps only.
//!
//! That is Algorithm 3's precedence (lazy start before batch finish before
//! fair), with Principle 1's continuation ahead of all three.
//!
//! **Reduces and deadlock.** OMO decides reduce start itself, so it reads
//! neither the slowstart gate (`RunView::reduces_schedulable`) nor the
//! engine's unified-container ramp-up bound (`RunView::reduce_allowed`,
//! which caps early reduces at half the containers and would split a
//! started job's reduces, silently overriding Principle 1). It keeps its
//! own, narrower guard instead: reduces of a job with *pending* maps wait
//! for those maps, and if such reduces held every container no map could
//! ever run. So on unified containers lazy start admits a job with pending
//! maps only if its reduces plus the unfinished reduces of every started
//! job that still has pending maps leave at least one container free.
//! Reduces of jobs with no pending map are always safe (their maps are
//! running or done and will release). The paper's settings (80
//! containers, at most 2 reduces per job) never meet the guard. On typed
//! slots reduces cannot block maps and the guard is off.
//!
//! OMO also keeps pools' `max_maps` / `max_reduces` for its own rules.
//! On typed slots (a cluster with `slot_model = "typed"`) reduces go to
//! reduce slots and maps to map slots; the paper's setting is unified.

pub mod predictor;

use super::fair::base::{auto_delay, BaseSettings, FairBase, Hooks, Round};
use super::registry::Entry;
use super::settings::{ConfigError, Settings};
use crate::model::Models;
use crate::model::{JobId, Ms, NodeId};
use crate::sim::policy::{
    opt, BuildCtx, Event, Inspection, Observer, Policy, PoolShares, Show, Values,
};
use crate::sim::{AttemptId, Heartbeat, Locality, RunView};
use crate::units::de_opt_duration;
use predictor::Predictor;
pub use predictor::{mean_abs_error_pct, ReleaseWindow};

/// The release-rate windows a run reports (the summary's `predictor`, the
/// inspector's chart): its policy's own monitor (OMO's, which its
/// decisions used), else the first observer that keeps one (OMO's passive
/// monitor, attached to every run).
pub fn release_windows(sim: &crate::sim::Sim) -> &[ReleaseWindow] {
    policy_windows(sim.policy())
        .or_else(|| sim.observers().iter().find_map(|o| windows(o.kept())))
        .unwrap_or(&[])
}

/// The windows of the policy's own monitor, if it keeps one (OMO).
pub fn policy_windows(p: &dyn Policy) -> Option<&[ReleaseWindow]> {
    windows(p.kept())
}

/// The windows of an observer's monitor, if it keeps one.
pub fn observer_windows(o: &dyn Observer) -> Option<&[ReleaseWindow]> {
    windows(o.kept())
}

fn windows(kept: Option<&dyn std::any::Any>) -> Option<&[ReleaseWindow]> {
    kept?
        .downcast_ref::<Vec<ReleaseWindow>>()
        .map(Vec::as_slice)
}

/// `[scheduler.omo]` (and `omo-lazy`, `omo-batch`): OMO's predictor and
/// techniques, plus the delay-scheduling settings of its fair base.
/// There is no `slowstart`: OMO decides when reduces start.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// T_w, the predictor's window (default 10 s).
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub window: Option<Ms>,
    /// Weight of the newest window in the moving averages F_o and A_o
    /// (the paper's β in Section IV-A; default 0.5).
    pub ema: Option<f64>,
    /// Start reduce stages early, when pending maps ≤ x* (default true;
    /// false for `omo-batch`).
    pub lazy_start: Option<bool>,
    /// Give released containers to the trailing maps of jobs whose reduce
    /// stage has started (default true; false for `omo-lazy`).
    pub batch_finish: Option<bool>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub node_locality_delay: Option<Ms>,
    #[serde(default, deserialize_with = "de_opt_duration")]
    pub rack_locality_delay: Option<Ms>,
    pub size_based_weight: Option<bool>,
}

impl Config {
    fn check(&self, name: &str) -> Result<(), ConfigError> {
        if let Some(e) = self.ema {
            if !(e > 0.0 && e <= 1.0) {
                return Err(ConfigError::new(
                    format!("scheduler.{name}.ema"),
                    format!("ema must be in (0, 1], got {e}"),
                ));
            }
        }
        if self.window == Some(0) {
            return Err(ConfigError::new(
                format!("scheduler.{name}.window"),
                "window must be longer than 0 ms, e.g. \"10s\"",
            ));
        }
        Ok(())
    }
}

const SOURCE: &str = "Yang, Wang, Mao, Yao, Mi, Sheng, Optimizing Internal Overlaps by Self-Adjusting Resource Allocation in Multi-Stage Computing Systems (OMO), IEEE Access 2021";

pub const OMO: Entry = Entry {
    name: "omo",
    summary: "OMO: lazy start of reduces and batch finish of maps, from a container-release predictor, over fair on unified containers",
    source: SOURCE,
    runs_on: Models::SLOTS,
    meant_for: Models::UNIFIED,
    build: |s, ctx| Ok(Box::new(Omo::build(s, ctx)?)),
    check: None,
};

pub const OMO_LAZY: Entry = Entry {
    name: "omo-lazy",
    summary: "OMO with lazy start of reduces only (batch finish off)",
    source: "OMO (IEEE Access 2021), \"Lazy Start\" of Figs. 10 and 12",
    runs_on: Models::SLOTS,
    meant_for: Models::UNIFIED,
    build: |s, ctx| Ok(Box::new(Omo::build(s, ctx)?)),
    check: None,
};

pub const OMO_BATCH: Entry = Entry {
    name: "omo-batch",
    summary: "OMO with batch finish of maps only (lazy start off: reduce stages start once no map is pending)",
    source: "OMO (IEEE Access 2021), \"Batch Finish\" of Figs. 11 and 12",
    runs_on: Models::SLOTS,
    meant_for: Models::UNIFIED,
    build: |s, ctx| Ok(Box::new(Omo::build(s, ctx)?)),
    check: None,
};

/// Default T_w.
pub const DEFAULT_WINDOW: Ms = 10_000;
/// Default EMA weight.
pub const DEFAULT_EMA: f64 = 0.5;

pub const RULE_CONTINUE: &str = "omo/reduce-continue";
pub const RULE_LAZY: &str = "omo/lazy-start";
pub const RULE_BATCH: &str = "omo/batch-finish";
pub const RULE_FAIR: &str = "omo/fair";

/// What OMO changes in its fair base: reduces count in a job's demand only
/// once OMO has started its reduce stage, and the base launches maps only.
#[derive(Clone)]
pub struct OmoHooks {
    /// Per job id: OMO has started its reduce stage.
    reduce_started: Vec<bool>,
}

impl Hooks for OmoHooks {
    fn reduce_demand(&self, w: RunView<'_>, j: JobId) -> u32 {
        let job = w.job(j);
        if job.runnable && self.reduce_started.get(j as usize) == Some(&true) {
            job.unfinished_reduces()
        } else {
            0
        }
    }

    fn launches_reduces(&self) -> bool {
        false
    }

    fn rule(&self, _loc: Option<Locality>) -> &'static str {
        RULE_FAIR
    }
}

#[derive(Clone)]
pub struct Omo {
    lazy_start: bool,
    batch_finish: bool,
    pred: Predictor,
    base: FairBase<OmoHooks>,
    /// Per job id: the order in which its reduce stage started.
    started: Vec<Option<u64>>,
    next_seq: u64,
}

/// OMO's per-job estimates (docs/policies.md), all in seconds or per second.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JobEstimate {
    pub t_m: Option<f64>,
    pub t_s: Option<f64>,
    pub f_e: Option<f64>,
    pub x_star: Option<f64>,
    pub beta: Option<f64>,
    pub t_fair: Option<f64>,
    pub t_batch: Option<f64>,
    pub pending_maps: u32,
}

/// Job `j`'s estimates with cluster values F_o, A_o and D running jobs.
pub fn estimate(
    w: RunView<'_>,
    j: JobId,
    f_o: Option<f64>,
    a_o: Option<f64>,
    d: u32,
) -> JobEstimate {
    let job = w.job(j);
    let r = job.n_reduces();
    let pending = job.maps_pending;
    let t_m = job.mean_map_ms().map(|ms| ms / 1000.0);
    let t_s = (job.maps_done > 0 && r > 0).then(|| {
        let d_mb = job.output_total / job.maps_done as f64;
        predictor::t_s(d_mb, job.n_maps(), w.net_spec().shuffle_mbps, r)
    });
    let f_e = match (f_o, a_o) {
        (Some(fo), Some(ao)) => predictor::f_e_job(fo, ao, r, d),
        _ => None,
    };
    let x_star = match (t_s, t_m, f_e) {
        (Some(ts), Some(tm), Some(fe)) => Some(predictor::x_star(ts, tm, fe)),
        _ => None,
    };
    let beta = match (t_s, t_m, f_e) {
        (Some(ts), Some(tm), Some(fe)) => predictor::beta(ts, tm, pending, fe),
        _ => None,
    };
    let (t_fair, t_batch) = match (f_o, a_o, t_m) {
        (Some(fo), Some(ao), Some(tm)) => {
            let tf = predictor::t_fair(d, pending, fo, tm);
            let s = predictor::s_others(d, pending, fo, tm);
            (tf, tf.and(predictor::t_batch(s, ao, fo, r)))
        }
        _ => (None, None),
    };
    JobEstimate {
        t_m,
        t_s,
        f_e,
        x_star,
        beta,
        t_fair,
        t_batch,
        pending_maps: pending,
    }
}

/// OMO's release-rate monitor run passively under every policy, with
/// `[scheduler.omo]`'s `window` and `ema`: the paper measures its
/// predictor under the Fair scheduler (Fig. 7), and a user deciding
/// whether to switch to OMO mid-run can watch the same numbers first.
/// Attached to every run as an [`Observer`]; it starts with the first job.
#[derive(Clone)]
pub struct PassiveMonitor {
    pred: Predictor,
}

impl PassiveMonitor {
    pub fn new(scheduler: &toml::Table) -> PassiveMonitor {
        let cfg: Config = Settings::new("omo", "omo", scheduler)
            .own()
            .unwrap_or_default();
        PassiveMonitor {
            pred: Predictor::new(
                cfg.window.unwrap_or(DEFAULT_WINDOW),
                cfg.ema.unwrap_or(DEFAULT_EMA),
            ),
        }
    }
}

impl Observer for PassiveMonitor {
    fn snapshot(&self) -> Option<Box<dyn Observer>> {
        Some(Box::new(Self::clone(self)))
    }

    fn observe(&mut self, w: RunView<'_>) {
        if self.pred.started() || !w.active().is_empty() {
            self.pred
                .observe(w.now(), w.ended_attempts(), available_containers(w));
        }
    }

    fn kept(&self) -> Option<&dyn std::any::Any> {
        Some(self.pred.kept())
    }
}

impl Omo {
    /// Built as `omo`, `omo-lazy` or `omo-batch`. Window, ema and the
    /// base's delays come from `[scheduler.NAME]`, else `[scheduler.omo]`;
    /// `lazy_start` and `batch_finish` only from `[scheduler.NAME]`,
    /// defaulting to the variant's meaning.
    fn build(s: &Settings, ctx: &BuildCtx) -> Result<Omo, ConfigError> {
        let own: Config = s.own()?;
        own.check(s.name)?;
        let shared: Config = s.of("omo")?;
        shared.check("omo")?;
        fn pick<T: Copy>(
            own: &Config,
            shared: &Config,
            f: impl Fn(&Config) -> Option<T>,
        ) -> Option<T> {
            f(own).or_else(|| f(shared))
        }
        let window = pick(&own, &shared, |c| c.window).unwrap_or(DEFAULT_WINDOW);
        let ema = pick(&own, &shared, |c| c.ema).unwrap_or(DEFAULT_EMA);
        let auto = auto_delay(ctx);
        let base = FairBase::new(
            BaseSettings {
                slowstart: 0.0,
                node_delay: pick(&own, &shared, |c| c.node_locality_delay).unwrap_or(auto),
                rack_delay: pick(&own, &shared, |c| c.rack_locality_delay).unwrap_or(auto),
                assign_multiple: true,
                size_based_weight: pick(&own, &shared, |c| c.size_based_weight).unwrap_or(false),
                typed_slots: false,
                preemption: false,
                // OMO's own rules run before the fair steps: copies are
                // left to the engine's pass over idle slots.
                speculate: false,
            },
            OmoHooks {
                reduce_started: Vec::new(),
            },
        );
        Ok(Omo {
            lazy_start: own.lazy_start.unwrap_or(s.name != "omo-batch"),
            batch_finish: own.batch_finish.unwrap_or(s.name != "omo-lazy"),
            pred: Predictor::new(window, ema),
            base,
            started: Vec::new(),
            next_seq: 0,
        })
    }

    /// Brings the monitor up to `w.now` (starting it at the first sight
    /// of work).
    fn observe(&mut self, w: RunView<'_>) {
        self.pred
            .observe(w.now(), w.ended_attempts(), available_containers(w));
    }

    fn started_seq(&self, j: JobId) -> Option<u64> {
        self.started.get(j as usize).copied().flatten()
    }

    fn mark_started(&mut self, j: JobId) {
        let i = j as usize;
        if self.started.len() <= i {
            self.started.resize(i + 1, None);
        }
        self.started[i] = Some(self.next_seq);
        self.next_seq += 1;
        let rs = &mut self.base.hooks.reduce_started;
        if rs.len() <= i {
            rs.resize(i + 1, false);
        }
        rs[i] = true;
    }

    /// Principle 1: the earliest-started job with a pending reduce.
    fn continue_job(&self, w: RunView<'_>) -> Option<JobId> {
        w.active()
            .iter()
            .copied()
            .filter(|&j| {
                let job = w.job(j);
                // A started job can have pending maps again after a node
                // failure re-opened them: its reduces may then not take the
                // last free container, or its maps could never run.
                let safe = !w.capacity().kinds_share()
                    || job.maps_pending == 0
                    || w.early_reduces() + 1 < w.cluster().total_slots();
                job.reduces_pending > 0 && pool_takes_reduce(w, j) && safe
            })
            .filter_map(|j| self.started_seq(j).map(|s| (s, j)))
            .min()
            .map(|(_, j)| j)
    }

    /// Algorithm 1 (as settled): the candidate with the fewest occupied
    /// containers, ties by submit time then id (the active order).
    fn lazy_start_job(
        &self,
        w: RunView<'_>,
        f_o: Option<f64>,
        a_o: Option<f64>,
        d: u32,
    ) -> Option<JobId> {
        let unified = w.capacity().kinds_share();
        // Reduces committed to jobs whose maps are still pending.
        let committed: u32 = if unified {
            w.active()
                .iter()
                .filter(|&&j| self.started_seq(j).is_some() && w.job(j).maps_pending > 0)
                .map(|&j| w.job(j).unfinished_reduces())
                .sum()
        } else {
            0
        };
        let total = w.cluster().total_slots();
        let mut best: Option<(u32, JobId)> = None;
        for &j in w.active() {
            let job = w.job(j);
            if self.started_seq(j).is_some()
                || job.reduces_pending == 0
                || job.n_reduces() == 0
                || !pool_takes_reduce(w, j)
            {
                continue;
            }
            let pending = job.maps_pending;
            let candidate = pending == 0
                || (self.lazy_start
                    && estimate(w, j, f_o, a_o, d)
                        .x_star
                        .is_some_and(|x| pending as f64 <= x)
                    && (!unified || committed + job.unfinished_reduces() < total));
            if !candidate {
                continue;
            }
            let occupied = job.maps_running + job.reduces_running;
            if best.is_none_or(|(o, _)| occupied < o) {
                best = Some((occupied, j));
            }
        }
        best.map(|(_, j)| j)
    }

    /// Algorithm 2: the started job with pending maps and the largest
    /// t_fair − t_batch > 0 (ties: the earlier in the active order).
    fn batch_finish_job(
        &self,
        w: RunView<'_>,
        f_o: Option<f64>,
        a_o: Option<f64>,
        d: u32,
    ) -> Option<JobId> {
        let mut best: Option<(f64, JobId)> = None;
        for &j in w.active() {
            let job = w.job(j);
            if self.started_seq(j).is_none() || job.maps_pending == 0 || !pool_takes_map(w, j) {
                continue;
            }
            let e = estimate(w, j, f_o, a_o, d);
            let (Some(tf), Some(tb)) = (e.t_fair, e.t_batch) else {
                continue;
            };
            let gain = tf - tb;
            if gain > 0.0 && best.is_none_or(|(g, _)| gain > g) {
                best = Some((gain, j));
            }
        }
        best.map(|(_, j)| j)
    }

    fn launch_reduce(hb: &mut Heartbeat<'_>, j: JobId, rule: &'static str) -> Option<AttemptId> {
        let r = hb.view().job(j).find_reduce()?;
        Some(hb.launch_reduce(j, r, rule))
    }

    /// One container's decision. Returns whether a task launched.
    fn assign_one(
        &mut self,
        hb: &mut Heartbeat<'_>,
        round: &mut Round,
        f_o: Option<f64>,
        a_o: Option<f64>,
        d: u32,
    ) -> bool {
        if hb.free_reduces() > 0 {
            if let Some(j) = self.continue_job(hb.view()) {
                if Self::launch_reduce(hb, j, RULE_CONTINUE).is_some() {
                    return true;
                }
            }
            if let Some(j) = self.lazy_start_job(hb.view(), f_o, a_o, d) {
                if Self::launch_reduce(hb, j, RULE_LAZY).is_some() {
                    self.mark_started(j);
                    return true;
                }
            }
        }
        if hb.free_maps() > 0 {
            if self.batch_finish {
                if let Some(j) = self.batch_finish_job(hb.view(), f_o, a_o, d) {
                    let w = hb.view();
                    if let Some((t, loc)) = w.job(j).find_map(hb.node, Locality::OffDc, w.cluster())
                    {
                        hb.launch_map(j, t, RULE_BATCH);
                        self.base.note_map(round, j, loc);
                        return true;
                    }
                }
            }
            return self.base.step(hb, round);
        }
        false
    }
}

/// OMO's *available* containers (docs/policies.md): those running maps,
/// plus those running reduces of jobs whose maps are all done. A reduce
/// of a job with unfinished maps frees its container at an unknown
/// time, so it is left out.
pub fn available_containers(w: RunView<'_>) -> u32 {
    (w.metrics().running.max(0) as u32).saturating_sub(w.early_reduces())
}

fn pool_takes_reduce(w: RunView<'_>, j: JobId) -> bool {
    let p = w.job(j).pool as usize;
    w.pool_stats()[p].running_reduces < w.pools()[p].max_reduces
}

fn pool_takes_map(w: RunView<'_>, j: JobId) -> bool {
    let p = w.job(j).pool as usize;
    w.pool_stats()[p].running_maps < w.pools()[p].max_maps
}

impl Policy for Omo {
    /// OMO starts reduce stages itself and never consults slowstart; 0
    /// makes the world's slowstart helpers say "no gate".
    fn slowstart(&self) -> f64 {
        0.0
    }

    fn adopt(&mut self, w: RunView<'_>) {
        self.base.adopt(w);
        self.started.clear();
        self.next_seq = 0;
        // Jobs that already run reduces have started their reduce stage,
        // in submit order.
        for &j in w.active() {
            let job = w.job(j);
            if job.reduces_running + job.reduces_done > 0 {
                self.mark_started(j);
            }
        }
        if !w.active().is_empty() {
            self.observe(w);
        }
    }

    fn heartbeat(&mut self, hb: &mut Heartbeat<'_>) {
        let now = hb.view().now();
        // Tasks the engine launched since the last hook (speculative
        // copies) count as available from now on.
        self.observe(hb.view());
        let obs = self.pred.peek(now);
        let d = hb.view().active().len() as u32;
        let mut round = self.base.begin_round(hb);
        while hb.free_maps() > 0 || hb.free_reduces() > 0 {
            if !self.assign_one(hb, &mut round, obs.f_o, obs.a_o, d) {
                break;
            }
        }
        self.base.finish_round(round);
        self.observe(hb.view());
    }

    fn hear(&mut self, w: RunView<'_>, e: Event) {
        match e {
            Event::JobArrived(j) => {
                self.base.job_arrived(j);
                self.observe(w);
            }
            // A job finishing after its last task (its clean-up task ended)
            // releases that slot: the monitor sees it as the passive one does.
            Event::TaskFinished(_) | Event::JobFinished(_) => {
                self.observe(w);
            }
            _ => {}
        }
    }
}

impl Show for Omo {
    fn inspect(&self, w: RunView<'_>, _node: NodeId) -> Inspection {
        let mut ins = Inspection::default();
        let obs = self.pred.peek(w.now());
        let d = w.active().len() as u32;
        ins.cluster.insert("F_o", opt(obs.f_o));
        ins.cluster.insert("A_o", opt(obs.a_o));
        ins.cluster.insert("D", d);
        ins.cluster.insert("window_releases", obs.window_releases);
        ins.cluster
            .insert("window_available", available_containers(w));
        for &j in w.active() {
            let e = estimate(w, j, obs.f_o, obs.a_o, d);
            let mut v = Values::new();
            v.insert("T_m", opt(e.t_m));
            v.insert("T_s", opt(e.t_s));
            v.insert("F_e", opt(e.f_e));
            v.insert("x_star", opt(e.x_star));
            v.insert("beta", opt(e.beta));
            v.insert("t_fair", opt(e.t_fair));
            v.insert("t_batch", opt(e.t_batch));
            v.insert("pending_maps", e.pending_maps);
            v.insert("reduce_started", self.started_seq(j).is_some());
            ins.jobs.insert(w.job(j).name.to_string(), v);
        }
        ins
    }

    fn kept(&self) -> Option<&dyn std::any::Any> {
        Some(self.pred.kept())
    }

    /// The fair base's shares (of containers on a unified cluster): what
    /// rule `omo/fair` divides the cluster by.
    fn pool_shares(&self, w: RunView<'_>) -> Option<PoolShares> {
        Some(super::fair::pool_shares(&self.base, w))
    }
}
