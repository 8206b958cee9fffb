//! Generated and replayed workloads: `[[workloads]] kind = "poisson"` and
//! `kind = "swim"`.
//!
//! Jobs arrive as a Poisson process (exponential gaps), each with a profile
//! drawn by weight, an input size drawn log-uniformly (so 1–12 GB spreads
//! evenly over orders of magnitude, as JoSS's mixed workload does) and a
//! pool drawn uniformly. The draws come from their own ChaCha stream, keyed
//! by the scenario seed and the workload's index, so the same scenario and
//! seed always give the same jobs, whatever policy runs them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::model::{JobSpec, Ms, Priority, Profile};

/// ChaCha stream id of the arrivals concern ("arrival" in ASCII); the
/// workload index is added so two workloads never share draws. Other
/// concerns (placement, durations, stragglers) use other stream ids.
pub const ARRIVAL_STREAM: u64 = 0x0061_7272_6976_616c;

/// Input per reduce when a workload does not give `reduces`: OMO Table 4
/// runs 20 GB jobs with 2 reduces and 10 GB jobs with 1.
pub const MB_PER_REDUCE: f64 = 10.0 * 1024.0;

/// A validated `kind = "poisson"` workload.
#[derive(Clone, Debug)]
pub struct PoissonParams {
    /// Position among the file's `[[workloads]]`; names and RNG stream.
    pub index: usize,
    pub jobs: u32,
    pub mean_interarrival: Ms,
    /// Profiles with positive weights, in name order (BTreeMap order).
    pub mix: Vec<(Profile, f64)>,
    /// `[lo, hi]` in MB, 0 < lo ≤ hi.
    pub input_mb: (f64, f64),
    /// Non-empty; every name is a declared pool.
    pub pools: Vec<String>,
    /// `[lo, hi]` reduces, drawn uniformly; `None` = ceil(input / 10 GB).
    pub reduces: Option<(u32, u32)>,
    /// Arrival time of the first job.
    pub submit_start: Ms,
    pub block_mb: f64,
    /// Every job's FP, overriding its profile's.
    pub fp: Option<f64>,
}

/// The jobs of one poisson workload, named `w<index>-<profile>-<k>` (k from 1).
pub fn poisson(seed: u64, p: &PoissonParams) -> Vec<JobSpec> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(ARRIVAL_STREAM.wrapping_add(p.index as u64));
    let total_weight: f64 = p.mix.iter().map(|(_, w)| w).sum();
    let mut t = p.submit_start;
    let mut out = Vec::with_capacity(p.jobs as usize);
    for k in 1..=p.jobs {
        // Draw order is fixed (gap, profile, input, pool, reduces): changing
        // it would change every generated workload.
        if k > 1 {
            let u: f64 = rng.random();
            // Inverse CDF of the exponential; 1 - u is in (0, 1], so ln is finite.
            let gap = -(1.0 - u).ln() * p.mean_interarrival as f64;
            t = t.saturating_add(gap.round() as Ms);
        }
        // The loader never passes an empty mix; an empty one yields no jobs.
        let Some(profile) = pick_profile(&p.mix, total_weight, rng.random::<f64>()) else {
            break;
        };
        let (lo, hi) = p.input_mb;
        let u: f64 = rng.random();
        let input = (lo * (u * (hi / lo).ln()).exp())
            .round()
            .clamp(lo.max(1.0), hi.max(1.0));
        let pool_ix = if p.pools.len() > 1 {
            rng.random_range(0..p.pools.len())
        } else {
            0
        };
        let reduces = match p.reduces {
            Some((a, b)) => rng.random_range(a..=b),
            None => (input / MB_PER_REDUCE).ceil().max(1.0) as u32,
        };
        let maps = (input / p.block_mb).ceil().max(1.0) as u32;
        out.push(JobSpec {
            name: format!("w{}-{}-{}", p.index, profile.name, k),
            fp: p.fp.unwrap_or(profile.fp),
            profile,
            input_mb: input,
            maps,
            reduces,
            submit: t,
            pool: p
                .pools
                .get(pool_ix)
                .cloned()
                .unwrap_or_else(|| "default".into()),
            user: "user".into(),
            priority: Priority::Normal,
            map_time: None,
            reduce_time: None,
            blocks: None,
            recorded: None,
            writer: None,
            output_replication: None,
            map_container: None,
            reduce_container: None,
        });
    }
    out
}

/// The profile whose cumulative-weight interval contains `u × total`.
fn pick_profile(mix: &[(Profile, f64)], total: f64, u: f64) -> Option<Profile> {
    let x = u * total;
    let mut acc = 0.0;
    for (p, w) in mix {
        acc += w;
        if x < acc {
            return Some(p.clone());
        }
    }
    // Rounding can leave x at the very top; the last profile owns that edge.
    mix.last().map(|(p, _)| p.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::profiles;

    fn params() -> PoissonParams {
        PoissonParams {
            index: 0,
            jobs: 200,
            mean_interarrival: 14_000,
            mix: vec![
                (profiles::lookup("terasort").expect("terasort"), 1.0),
                (profiles::lookup("wordcount").expect("wordcount"), 3.0),
            ],
            input_mb: (1024.0, 12.0 * 1024.0),
            pools: vec!["a".into(), "b".into()],
            reduces: None,
            submit_start: 5_000,
            block_mb: 128.0,
            fp: None,
        }
    }

    #[test]
    fn statistics_are_plausible() {
        let jobs = poisson(3, &params());
        assert_eq!(jobs.len(), 200);
        assert_eq!(jobs[0].submit, 5_000);
        assert!(jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
        let mean_gap = (jobs[199].submit - jobs[0].submit) as f64 / 199.0;
        assert!(
            (9_000.0..20_000.0).contains(&mean_gap),
            "mean gap {mean_gap}"
        );
        let wc = jobs
            .iter()
            .filter(|j| j.profile.name == "wordcount")
            .count();
        assert!(
            (120..180).contains(&wc),
            "{wc} wordcount jobs of 200 at weight 3:1"
        );
        for j in &jobs {
            assert!((1024.0..=12.0 * 1024.0).contains(&j.input_mb));
            assert_eq!(j.maps, (j.input_mb / 128.0).ceil() as u32);
            assert_eq!(j.reduces, (j.input_mb / MB_PER_REDUCE).ceil() as u32);
            assert!(j.pool == "a" || j.pool == "b");
        }
        assert!(jobs.iter().any(|j| j.pool == "a") && jobs.iter().any(|j| j.pool == "b"));
    }

    #[test]
    fn reduce_range_and_streams() {
        let mut p = params();
        p.reduces = Some((3, 5));
        let a = poisson(3, &p);
        assert!(a.iter().all(|j| (3..=5).contains(&j.reduces)));
        p.index = 1;
        let b = poisson(3, &p);
        let times = |v: &[JobSpec]| v.iter().map(|j| j.submit).collect::<Vec<_>>();
        assert_ne!(times(&a), times(&b), "workloads use distinct streams");
        assert!(b[0].name.starts_with("w1-"));
    }
}

/// Shuffle per reduce for replayed jobs: SWIM traces give bytes, not task
/// counts, so a job gets ceil(shuffle / 1 GB) reduces (none without a shuffle).
pub const SWIM_MB_PER_REDUCE: f64 = 1024.0;

/// A validated `kind = "swim"` workload.
#[derive(Clone, Debug)]
pub struct SwimParams {
    pub index: usize,
    /// Replay at most this many jobs (from the start of the trace).
    pub limit: Option<u32>,
    /// Submit times are multiplied by this.
    pub time_scale: f64,
    /// Compute profiles by weight (FP comes from the trace).
    pub mix: Vec<(Profile, f64)>,
    pub pools: Vec<String>,
    pub block_mb: f64,
}

/// Parses a SWIM trace (job, submit s, gap s, input bytes, shuffle bytes,
/// output bytes; tab-separated) into jobs named `w<index>-<job>` (a `/` in
/// the trace's job name becomes `_`, since `/` separates job and task in
/// traces and in `--inspect`'s `assigned`). A bad line
/// is an error naming its 1-based line and column in the trace.
pub fn swim(seed: u64, text: &str, p: &SwimParams) -> Result<Vec<JobSpec>, (usize, usize, String)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(ARRIVAL_STREAM.wrapping_add(p.index as u64));
    let total_weight: f64 = p.mix.iter().map(|(_, w)| w).sum();
    let mut out = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        if p.limit.is_some_and(|l| out.len() as u32 >= l) {
            break;
        }
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() < 6 {
            return Err((ln + 1, 1, format!(
                "expected 6 tab-separated fields (job, submit s, gap s, input bytes, shuffle bytes, output bytes), found {}",
                fields.len()
            )));
        }
        let col = |i: usize| {
            fields[..i]
                .iter()
                .map(|f| f.chars().count() + 1)
                .sum::<usize>()
                + 1
        };
        let num = |i: usize, what: &str| -> Result<f64, (usize, usize, String)> {
            let v: f64 = fields[i].trim().parse().map_err(|_| {
                (
                    ln + 1,
                    col(i),
                    format!("{what} \"{}\" is not a number", fields[i]),
                )
            })?;
            if !(v.is_finite() && v >= 0.0) {
                return Err((
                    ln + 1,
                    col(i),
                    format!("{what} must be at least 0, got {v}"),
                ));
            }
            Ok(v)
        };
        let submit_s = num(1, "submit time")?;
        let input_b = num(3, "input bytes")?;
        let shuffle_b = num(4, "shuffle bytes")?;
        let input_mb = input_b / (1024.0 * 1024.0);
        let shuffle_mb = shuffle_b / (1024.0 * 1024.0);
        let maps = ((input_mb / p.block_mb).ceil() as u64).max(1);
        if maps > 1_000_000 {
            return Err((
                ln + 1,
                col(3),
                format!("input of {input_mb:.0} MB makes more than 1000000 maps"),
            ));
        }
        let mut pick = rng.random::<f64>() * total_weight;
        let mut profile = p.mix.last().map(|m| m.0.clone());
        for (pr, w) in &p.mix {
            if pick < *w {
                profile = Some(pr.clone());
                break;
            }
            pick -= w;
        }
        let Some(profile) = profile else {
            return Ok(out);
        };
        let pool = p.pools[rng.random_range(0..p.pools.len())].clone();
        out.push(JobSpec {
            // `/` separates job and task in traces and `assigned`.
            name: format!("w{}-{}", p.index, fields[0].trim().replace('/', "_")),
            fp: if input_mb > 0.0 {
                shuffle_mb / input_mb
            } else {
                0.0
            },
            profile,
            input_mb,
            maps: maps as u32,
            reduces: if shuffle_mb > 0.0 {
                (shuffle_mb / SWIM_MB_PER_REDUCE).ceil().max(1.0) as u32
            } else {
                0
            },
            submit: (submit_s * p.time_scale * 1000.0).round() as Ms,
            pool,
            user: "swim".into(),
            priority: Priority::Normal,
            map_time: None,
            reduce_time: None,
            blocks: None,
            recorded: None,
            writer: None,
            output_replication: None,
            map_container: None,
            reduce_container: None,
        });
    }
    Ok(out)
}
