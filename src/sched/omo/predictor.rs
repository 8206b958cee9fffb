//! OMO's monitor and predictor (the OMO paper's Section IV-A; see
//! docs/policies.md):
//! how fast containers are released, and what that implies for each job.
//!
//! The monitor cuts time into windows of `T_w` starting when it is first
//! told about the cluster. For window t it records
//!
//! - R_t, the containers released in the window (every task completion
//!   frees one container), and f_t = R_t / T_w (per second);
//! - a_t, the *available* containers: those running maps, plus those
//!   running reduces of jobs whose map stage is finished (a reduce of a
//!   job with unfinished maps frees its container at an unknown time, so
//!   it is left out). a_t is the time average over the window of that
//!   count, which changes only at launches and completions, so it is
//!   integrated exactly in O(1) per event.
//!
//! When a window closes, F_o ← ema·f_t + (1 − ema)·F_o and A_o likewise;
//! the first window sets F_o = f_1 and A_o = a_1 (the paper leaves F_o(0)
//! open; starting from 0 would bias the first estimates low). The
//! estimated release frequency for a state with A_e available containers
//! is F_e = F_o·A_e / A_o (Eq. 1).
//!
//! The monitor also keeps, for the JSON summary and the TUI's chart (OMO
//! Fig. 7), each window's observed f_t next to the forecast made for it
//! when the previous window closed: F_e with A_e = the available
//! containers at that instant; the summary compares the two.
//!
//! The per-job quantities (T_m, d, T_s, F_e(i), x*, β, t_fair, s, t_batch)
//! are plain functions below, unit-tested against hand-computed numbers.
//! Their guards: F_o = 0 or no A_o yet makes every rate-based quantity
//! zero or undefined (so only the "no pending maps" rule can start a
//! reduce stage), a job without a finished map has no T_m, d or T_s, and
//! A_o ≤ r_i makes F_e(i) = 0 (starting the reduces would, by the model,
//! leave nothing to release).

use crate::model::Ms;

/// One closed window of OMO's release-rate monitor (the paper's Fig. 7):
/// how many containers were released, and what had been forecast.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ReleaseWindow {
    /// Window start, seconds.
    pub start_s: f64,
    /// R_t.
    pub releases: u32,
    /// f_t = R_t / T_w, containers per second.
    pub observed: f64,
    /// F_e forecast for this window when the previous one closed
    /// (null for the first window, or while A_o was 0).
    pub estimated: Option<f64>,
    /// a_t, time-averaged available containers.
    pub available: f64,
    /// F_o and A_o after this window.
    #[serde(rename = "F_o")]
    pub f_o: f64,
    #[serde(rename = "A_o")]
    pub a_o: f64,
}

/// 100 × Σ|estimated − observed| / Σ observed over the windows that have a
/// forecast: the mean absolute error as a percentage of the mean observed
/// release rate (per-window percentages are undefined for windows with no
/// release, which idle and start-up windows have). None when no window has
/// a forecast or nothing was released.
pub fn mean_abs_error_pct(windows: &[ReleaseWindow]) -> Option<f64> {
    let (mut err, mut obs, mut n) = (0.0, 0.0, 0usize);
    for w in windows {
        if let Some(e) = w.estimated {
            err += (e - w.observed).abs();
            obs += w.observed;
            n += 1;
        }
    }
    (n > 0 && obs > 0.0).then(|| 100.0 * err / obs)
}

/// One closed window, as kept for the report and the TUI.
pub type WindowPoint = ReleaseWindow;

/// The scalar state of the monitor: everything but the window history, so
/// that [`Predictor::peek`] can roll a copy forward without allocating.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Core {
    window: Ms,
    ema: f64,
    /// Start of the open window; None until the monitor is started.
    start: Option<Ms>,
    /// Releases so far in the open window.
    releases: u32,
    /// Available containers now.
    avail: u32,
    /// ∫ available dt over the open window so far (container·ms).
    area: f64,
    /// Time `area` is integrated up to.
    last: Ms,
    f_o: Option<f64>,
    a_o: Option<f64>,
    /// F_e forecast for the open window.
    forecast: Option<f64>,
}

impl Core {
    /// Closes every window that ends at or before `now`, calling `sink`
    /// with each closed window, then integrates the open one up to `now`.
    fn advance(&mut self, now: Ms, mut sink: impl FnMut(WindowPoint)) {
        let Some(mut start) = self.start else { return };
        let tw = self.window as f64 / 1000.0;
        while start + self.window <= now {
            let end = start + self.window;
            self.area += self.avail as f64 * (end - self.last) as f64;
            let f = self.releases as f64 / tw;
            let a = self.area / self.window as f64;
            let (f_o, a_o) = match (self.f_o, self.a_o) {
                (Some(fo), Some(ao)) => (ema(self.ema, f, fo), ema(self.ema, a, ao)),
                _ => (f, a),
            };
            sink(WindowPoint {
                start_s: start as f64 / 1000.0,
                releases: self.releases,
                observed: f,
                estimated: self.forecast,
                available: a,
                f_o,
                a_o,
            });
            self.f_o = Some(f_o);
            self.a_o = Some(a_o);
            // A_e for the next window: what is available at its start.
            self.forecast = f_e(f_o, a_o, self.avail as f64);
            start = end;
            self.releases = 0;
            self.area = 0.0;
            self.last = end;
        }
        self.start = Some(start);
        if now > self.last {
            self.area += self.avail as f64 * (now - self.last) as f64;
            self.last = now;
        }
    }
}

/// The container-release monitor.
#[derive(Clone, Debug)]
pub struct Predictor {
    core: Core,
    history: Vec<WindowPoint>,
    /// Ended attempts when [`Predictor::observe`] last looked.
    ended: u64,
}

/// What the monitor says at an instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observed {
    /// F_o, containers released per second (None before the first window closes).
    pub f_o: Option<f64>,
    /// A_o, available containers (None before the first window closes).
    pub a_o: Option<f64>,
    /// Releases so far in the open window.
    pub window_releases: u32,
    /// Available containers now.
    pub available: u32,
}

impl Predictor {
    /// `window` is T_w in ms (> 0); `ema` the weight of the newest window.
    pub fn new(window: Ms, ema: f64) -> Predictor {
        Predictor {
            core: Core {
                window: window.max(1),
                ema,
                start: None,
                releases: 0,
                avail: 0,
                area: 0.0,
                last: 0,
                f_o: None,
                a_o: None,
                forecast: None,
            },
            history: Vec::new(),
            ended: 0,
        }
    }

    pub fn window(&self) -> Ms {
        self.core.window
    }

    /// Starts the first window at `now` (no-op once started).
    pub fn start(&mut self, now: Ms, available: u32) {
        if self.core.start.is_none() {
            self.core.start = Some(now);
            self.core.last = now;
            self.core.avail = available;
        }
    }

    pub fn started(&self) -> bool {
        self.core.start.is_some()
    }

    /// Tells the monitor what the cluster looks like at `now`: `ended`
    /// attempts so far (each released a container; a running total, so
    /// releases nobody reported one by one are still counted) and
    /// `available` containers. The first call starts the monitor.
    pub fn observe(&mut self, now: Ms, ended: u64, available: u32) {
        if !self.started() {
            self.start(now, available);
            self.ended = ended;
            return;
        }
        let released = ended.saturating_sub(self.ended);
        // Nothing changed inside the open window (a full node's heartbeat,
        // most events): integrate later. The area is a sum of whole
        // container·ms, exact in f64, so deferring changes no bit.
        let c = &self.core;
        if released == 0
            && available == c.avail
            && c.start.is_some_and(|s| now < s.saturating_add(c.window))
        {
            return;
        }
        self.ended = ended;
        if released > 0 {
            self.release_n(now, u32::try_from(released).unwrap_or(u32::MAX));
        }
        self.set_available(now, available);
    }

    /// Closes the windows that ended by `now` and integrates up to it.
    pub fn advance(&mut self, now: Ms) {
        let h = &mut self.history;
        self.core.advance(now, |p| h.push(p));
    }

    /// A container was released at `now`.
    pub fn release(&mut self, now: Ms) {
        self.release_n(now, 1);
    }

    /// `n` containers were released at `now`.
    pub fn release_n(&mut self, now: Ms, n: u32) {
        if self.started() {
            self.advance(now);
            self.core.releases += n;
        }
    }

    /// The available-container count changed at `now`.
    pub fn set_available(&mut self, now: Ms, available: u32) {
        self.advance(now);
        self.core.avail = available;
    }

    /// F_o, A_o and the open window as they stand at `now` (windows that
    /// ended by then closed), without changing anything.
    pub fn peek(&self, now: Ms) -> Observed {
        let mut c = self.core;
        c.advance(now, |_| {});
        Observed {
            f_o: c.f_o,
            a_o: c.a_o,
            window_releases: c.releases,
            available: c.avail,
        }
    }

    /// Closed windows so far.
    pub fn history(&self) -> &[WindowPoint] {
        &self.history
    }

    /// The closed windows, as a policy or an observer keeps them for
    /// reports (`Show::kept`; [`super::release_windows`] reads them back).
    pub fn kept(&self) -> &dyn std::any::Any {
        &self.history
    }
}

/// One exponential-moving-average step: `w`·new + (1 − `w`)·old.
pub fn ema(w: f64, new: f64, old: f64) -> f64 {
    w * new + (1.0 - w) * old
}

/// Eq. (1): F_e = F_o·A_e / A_o. None while A_o ≤ 0 (nothing observed).
pub fn f_e(f_o: f64, a_o: f64, a_e: f64) -> Option<f64> {
    (a_o > 0.0).then(|| f_o * a_e / a_o)
}

/// F_e(i) = F_o·(A_o − r_i)/(A_o·D): the release rate job i would see,
/// under fair sharing among D jobs, once its r_i reduces hold containers
/// for good. 0 when A_o ≤ r_i; None while A_o ≤ 0.
pub fn f_e_job(f_o: f64, a_o: f64, r: u32, d: u32) -> Option<f64> {
    let fe = f_e(f_o, a_o, (a_o - r as f64).max(0.0))?;
    Some(fe / d.max(1) as f64)
}

/// T_s(i) = d·m / (B·r) seconds: the last reducer's shuffle, for mean map
/// output `d_mb` (MB), `m` maps, bandwidth `b_mbps` (MB/s), `r` reduces.
pub fn t_s(d_mb: f64, m: u32, b_mbps: f64, r: u32) -> f64 {
    d_mb * m as f64 / (b_mbps * r.max(1) as f64)
}

/// x* = (T_s − T_m)·F_e(i): the most pending maps at which starting the
/// reduce stage now still leaves β ≥ 0.
pub fn x_star(t_s: f64, t_m: f64, f_e: f64) -> f64 {
    (t_s - t_m) * f_e
}

/// β = T_s − (x/F_e + T_m) (Eq. 3): shuffle end minus map end if the
/// reduce stage starts with `x` maps pending. None when F_e = 0 and x > 0
/// (the maps would never finish: β = −∞).
pub fn beta(t_s: f64, t_m: f64, x: u32, f_e: f64) -> Option<f64> {
    if x == 0 {
        return Some(t_s - t_m);
    }
    (f_e > 0.0).then(|| t_s - (x as f64 / f_e + t_m))
}

/// Eq. (4): t_fair = K·m'/F_o + T_m, job i's map-stage time under fair
/// sharing among K jobs. None when F_o = 0.
pub fn t_fair(k: u32, pending: u32, f_o: f64, t_m: f64) -> Option<f64> {
    (f_o > 0.0).then(|| k as f64 * pending as f64 / f_o + t_m)
}

/// s = (K−1)·m' + F_o·(K−1)·T_m/K: containers the other jobs receive
/// during t_fair.
pub fn s_others(k: u32, pending: u32, f_o: f64, t_m: f64) -> f64 {
    let k1 = k.saturating_sub(1) as f64;
    k1 * pending as f64 + f_o * k1 * t_m / k.max(1) as f64
}

/// Eq. (5): t_batch = s·A_o / (F_o·(A_o + r_i)), the time to give the
/// others `s` containers once job i's maps are batched and its r_i
/// reduces release faster. None when F_o = 0 or A_o + r_i ≤ 0.
pub fn t_batch(s: f64, a_o: f64, f_o: f64, r: u32) -> Option<f64> {
    let den = f_o * (a_o + r as f64);
    (den > 0.0).then(|| s * a_o / den)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }

    #[test]
    fn ema_and_f_e() {
        close(ema(0.5, 4.0, 2.0), 3.0);
        close(ema(0.25, 4.0, 2.0), 2.5);
        // F_o = 2/s at A_o = 40: 30 available containers → 1.5/s.
        close(f_e(2.0, 40.0, 30.0).unwrap(), 1.5);
        assert_eq!(f_e(2.0, 0.0, 30.0), None, "no A_o yet");
        close(f_e(0.0, 40.0, 30.0).unwrap(), 0.0);
    }

    #[test]
    fn f_e_per_job_and_its_guards() {
        // F_o 2.4/s, A_o 80, r_i 2, D 8: 2.4 × 78 / (80 × 8) = 0.2925.
        close(f_e_job(2.4, 80.0, 2, 8).unwrap(), 0.2925);
        // A_o ≤ r_i: nothing left to release.
        close(f_e_job(2.4, 2.0, 2, 1).unwrap(), 0.0);
        close(f_e_job(2.4, 1.5, 2, 1).unwrap(), 0.0);
        // F_o = 0.
        close(f_e_job(0.0, 80.0, 2, 8).unwrap(), 0.0);
        assert_eq!(f_e_job(2.4, 0.0, 2, 8), None);
    }

    #[test]
    fn shuffle_time_x_star_and_beta() {
        // 80 maps of 256 MB output, 2 reduces at 125 MB/s: 256·80/250 = 81.92 s.
        close(t_s(256.0, 80, 125.0, 2), 81.92);
        close(t_s(128.0, 40, 125.0, 1), 40.96);
        // x* = (81.92 − 31.92) × 0.2925 = 14.625.
        close(x_star(81.92, 31.92, 0.2925), 14.625);
        // Negative when the shuffle is shorter than a map.
        close(x_star(10.0, 30.0, 0.5), -10.0);
        // β at x = 10: 81.92 − (10/0.2925 + 31.92).
        close(
            beta(81.92, 31.92, 10, 0.2925).unwrap(),
            81.92 - (10.0 / 0.2925 + 31.92),
        );
        // β ≥ 0 exactly when x ≤ x*.
        assert!(beta(81.92, 31.92, 14, 0.2925).unwrap() >= 0.0);
        assert!(beta(81.92, 31.92, 15, 0.2925).unwrap() < 0.0);
        close(beta(81.92, 31.92, 0, 0.0).unwrap(), 50.0);
        assert_eq!(beta(81.92, 31.92, 3, 0.0), None, "F_e = 0: β = −∞");
    }

    #[test]
    fn batch_finish_times() {
        // K 4, m' 6, F_o 2/s, T_m 30 s: t_fair = 4·6/2 + 30 = 42.
        close(t_fair(4, 6, 2.0, 30.0).unwrap(), 42.0);
        // s = 3·6 + 2·3·30/4 = 18 + 45 = 63 (= F_o·(K−1)/K · t_fair).
        close(s_others(4, 6, 2.0, 30.0), 63.0);
        close(s_others(4, 6, 2.0, 30.0), 2.0 * 3.0 / 4.0 * 42.0);
        // t_batch = 63·40 / (2·(40 + 2)) = 30.
        close(t_batch(63.0, 40.0, 2.0, 2).unwrap(), 30.0);
        // One job: nobody else to serve.
        close(s_others(1, 6, 2.0, 30.0), 0.0);
        close(t_batch(0.0, 40.0, 2.0, 2).unwrap(), 0.0);
        // F_o = 0 guards.
        assert_eq!(t_fair(4, 6, 0.0, 30.0), None);
        assert_eq!(t_batch(63.0, 40.0, 0.0, 2), None);
    }

    #[test]
    fn windows_rates_and_available_average() {
        // 10 s windows, ema 0.5, started at t = 0 with 4 available.
        let mut p = Predictor::new(10_000, 0.5);
        p.start(0, 4);
        // Window 1: 5 releases; available 4 for 5 s then 8 for 5 s → a = 6.
        for t in [1_000, 2_000, 3_000, 4_000, 4_500] {
            p.release(t);
        }
        p.set_available(5_000, 8);
        let o = p.peek(9_999);
        assert_eq!(o.f_o, None, "no window closed yet");
        assert_eq!(o.window_releases, 5);
        // A release exactly at 10 s belongs to window 2.
        p.release(10_000);
        let h = p.history();
        assert_eq!(h.len(), 1);
        close(h[0].observed, 0.5);
        close(h[0].available, 6.0);
        assert_eq!(h[0].estimated, None);
        // First window initialises the averages.
        close(h[0].f_o, 0.5);
        close(h[0].a_o, 6.0);
        // Window 2: 1 release (at 10 s), 8 available throughout; closing it
        // lazily at 25 s also closes nothing else yet (window 3 is open).
        p.advance(25_000);
        let h = p.history();
        assert_eq!(h.len(), 2);
        close(h[1].observed, 0.1);
        close(h[1].available, 8.0);
        // Forecast made at 10 s: F_o·A_e/A_o = 0.5 × 8 / 6.
        close(h[1].estimated.unwrap(), 0.5 * 8.0 / 6.0);
        close(h[1].f_o, 0.5 * 0.1 + 0.5 * 0.5);
        close(h[1].a_o, 0.5 * 8.0 + 0.5 * 6.0);
        // peek rolls window 3 (no release) without storing it.
        let o = p.peek(30_000);
        close(o.f_o.unwrap(), 0.5 * 0.0 + 0.5 * 0.3);
        close(o.a_o.unwrap(), 0.5 * 8.0 + 0.5 * 7.0);
        assert_eq!(p.history().len(), 2);
        // Error: only window 2 has a forecast: |0.6667 − 0.1| / 0.1.
        close(
            mean_abs_error_pct(p.history()).unwrap(),
            100.0 * (0.5f64 * 8.0 / 6.0 - 0.1).abs() / 0.1,
        );
    }

    #[test]
    fn error_is_weighted_by_observed_rate() {
        let pt = |obs: f64, est: Option<f64>| WindowPoint {
            start_s: 0.0,
            releases: 0,
            observed: obs,
            estimated: est,
            available: 0.0,
            f_o: 0.0,
            a_o: 0.0,
        };
        // |1 − 2| + |0 − 1| + |3 − 3| over 2 + 0 + 3 = 2/5 = 40 %.
        let w = [
            pt(9.0, None),
            pt(2.0, Some(1.0)),
            pt(0.0, Some(1.0)),
            pt(3.0, Some(3.0)),
        ];
        close(mean_abs_error_pct(&w).unwrap(), 40.0);
        assert_eq!(mean_abs_error_pct(&[pt(0.0, Some(0.0))]), None);
        assert_eq!(mean_abs_error_pct(&[]), None);
    }

    #[test]
    fn not_started_ignores_events() {
        let mut p = Predictor::new(10_000, 0.5);
        p.release(5_000);
        p.advance(50_000);
        assert!(p.history().is_empty());
        assert!(!p.started());
        p.start(50_000, 2);
        assert_eq!(p.peek(50_000).window_releases, 0);
    }
}
