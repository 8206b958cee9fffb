//! Built-in job profiles: how much a job's maps write (filtering percentage)
//! and how long its map and reduce work takes per MB.
//!
//! Filtering percentages come from the papers
//! (OMO Table 4 first, JoSS Table 5 for the benchmarks OMO lacks); the map
//! costs are calibrated against the engine's map model (docs/model.md):
//!
//! ```text
//! map duration = startup (1 s) + block/disk_mbps (read)
//!              + block × map_s_per_mb (compute)
//!              + block × fp/disk_mbps (spill the map output)
//! ```
//!
//! so that a 64 MB node-local map at speed 1.0, alone on an idle node with
//! the default 100 MB/s disk, lasts the target time: 8 s for terasort and
//! 9 s for wordcount, the average map times of HybSMRP Table 1 (64 MB
//! blocks, measured task times, JVM start-up included), and plausible
//! relative times for the others.
//!
//! `reduce_output` (reduce output / shuffled bytes, written to HDFS) follows
//! from what each benchmark computes: TeraSort writes every record it sorts
//! (1.0); counting benchmarks write one line per distinct key, far fewer
//! than the shuffled pairs; the rest are estimates, marked so.

use crate::model::Profile;

/// Block size (MB) the calibration targets refer to (HybSMRP's 64 MB blocks).
pub const CALIBRATION_BLOCK_MB: f64 = 64.0;
/// Disk bandwidth (MB/s) the calibration assumes: `NetworkSpec::default().disk_mbps`.
pub const CALIBRATION_DISK_MBPS: f64 = 100.0;
/// Task start-up (s) the calibration assumes: `tasks.startup`'s default.
pub const CALIBRATION_STARTUP_S: f64 = 1.0;

/// Map compute seconds per MB such that a node-local map of
/// [`CALIBRATION_BLOCK_MB`] lasts `target_s` in total, once the engine has
/// added reading the block and writing `fp` × block of output at
/// [`CALIBRATION_DISK_MBPS`]. Computing it here (rather than writing the
/// result) keeps the calibration visible and exact.
const fn calibrated_map_s_per_mb(target_s: f64, fp: f64) -> f64 {
    let read_s = CALIBRATION_BLOCK_MB / CALIBRATION_DISK_MBPS;
    let write_s = CALIBRATION_BLOCK_MB * fp / CALIBRATION_DISK_MBPS;
    (target_s - CALIBRATION_STARTUP_S - read_s - write_s) / CALIBRATION_BLOCK_MB
}

/// OMO Table 4 reports shuffle sizes for 20 GB inputs; sizes in MB.
const OMO_INPUT_MB: f64 = 20.0 * 1024.0;

// Filtering percentages (map output / map input).
const FP_TERASORT: f64 = 1.0; // OMO T4: 20 GB shuffle / 20 GB input
const FP_SEQUENCECOUNT: f64 = 17.5 / 20.0; // OMO T4: 17.5 GB / 20 GB
const FP_WORDCOUNT: f64 = 3.9 / 20.0; // OMO T4: 3.9 GB / 20 GB
const FP_INVERTEDINDEX: f64 = 3.45 / 20.0; // OMO T4: 3.45 GB / 20 GB
const FP_HISTOGRAMMOVIES: f64 = (22.0 / 1024.0) / OMO_INPUT_MB; // OMO T4: 22 KB / 20 GB
const FP_CLASSIFICATION: f64 = 6.0 / OMO_INPUT_MB; // OMO T4: 6 MB / 20 GB
const FP_GREP: f64 = 0.10; // JoSS T5
const FP_PERMU: f64 = 3.0; // JoSS T5
const FP_HISTOGRAMRATINGS: f64 = (11.0 / 1024.0) / OMO_INPUT_MB; // estimate: a 5-bucket histogram, like histogrammovies
const FP_SELFJOIN: f64 = 0.5; // estimate
const FP_KMEANS: f64 = 1.0; // estimate: each point is emitted with its nearest centroid

/// Every built-in profile, in the order `slotsim profiles` lists them.
static PROFILES: [Profile; 11] = [
    Profile {
        name: "terasort",
        fp: FP_TERASORT,
        map_s_per_mb: calibrated_map_s_per_mb(8.0, FP_TERASORT),
        reduce_s_per_mb: 0.01,
        reduce_output: 1.0,
        source: "fp: OMO Table 4 (20 GB shuffle / 20 GB input); map cost: HybSMRP Table 1 (8 s average map on 64 MB); reduce cost: estimate; reduce output: TeraSort writes every record (1.0)",
    },
    Profile {
        name: "wordcount",
        fp: FP_WORDCOUNT,
        map_s_per_mb: calibrated_map_s_per_mb(9.0, FP_WORDCOUNT),
        reduce_s_per_mb: 0.02,
        reduce_output: 0.1,
        source: "fp: OMO Table 4 (3.9 GB shuffle / 20 GB input); map cost: HybSMRP Table 1 (9 s average map on 64 MB); reduce cost: estimate; reduce output: estimate (one count per distinct word, 0.1 of the shuffled pairs)",
    },
    Profile {
        name: "grep",
        fp: FP_GREP,
        map_s_per_mb: calibrated_map_s_per_mb(4.0, FP_GREP),
        reduce_s_per_mb: 0.005,
        reduce_output: 1.0,
        source: "fp: JoSS Table 5 (0.10); costs: estimate (a light scan, about 4 s per 64 MB map); reduce output: estimate (the matches, as shuffled)",
    },
    Profile {
        name: "sequencecount",
        fp: FP_SEQUENCECOUNT,
        map_s_per_mb: calibrated_map_s_per_mb(10.0, FP_SEQUENCECOUNT),
        reduce_s_per_mb: 0.02,
        reduce_output: 0.5,
        source: "fp: OMO Table 4 (17.5 GB shuffle / 20 GB input); costs: estimate (about 10 s per 64 MB map); reduce output: estimate (one count per distinct sequence, 0.5)",
    },
    Profile {
        name: "invertedindex",
        fp: FP_INVERTEDINDEX,
        map_s_per_mb: calibrated_map_s_per_mb(10.0, FP_INVERTEDINDEX),
        reduce_s_per_mb: 0.02,
        reduce_output: 0.9,
        source: "fp: OMO Table 4 (3.45 GB shuffle / 20 GB input); costs: estimate (about 10 s per 64 MB map); reduce output: estimate (the posting lists, about what is shuffled)",
    },
    Profile {
        name: "histogrammovies",
        fp: FP_HISTOGRAMMOVIES,
        map_s_per_mb: calibrated_map_s_per_mb(5.0, FP_HISTOGRAMMOVIES),
        reduce_s_per_mb: 0.005,
        reduce_output: 1.0,
        source: "fp: OMO Table 4 (22 KB shuffle / 20 GB input); costs: estimate (about 5 s per 64 MB map); reduce output: the histogram (tiny, as shuffled)",
    },
    Profile {
        name: "histogramratings",
        fp: FP_HISTOGRAMRATINGS,
        map_s_per_mb: calibrated_map_s_per_mb(5.0, FP_HISTOGRAMRATINGS),
        reduce_s_per_mb: 0.005,
        reduce_output: 1.0,
        source: "not in the seeds: PUMA-like estimate (a tiny histogram output like histogrammovies; about 5 s per 64 MB map); reduce output: the histogram (tiny, as shuffled)",
    },
    Profile {
        name: "classification",
        fp: FP_CLASSIFICATION,
        map_s_per_mb: calibrated_map_s_per_mb(6.0, FP_CLASSIFICATION),
        reduce_s_per_mb: 0.01,
        reduce_output: 1.0,
        source: "fp: OMO Table 4 (6 MB shuffle / 20 GB input); costs: estimate (about 6 s per 64 MB map); reduce output: estimate (as shuffled)",
    },
    Profile {
        name: "selfjoin",
        fp: FP_SELFJOIN,
        map_s_per_mb: calibrated_map_s_per_mb(7.0, FP_SELFJOIN),
        reduce_s_per_mb: 0.03,
        reduce_output: 1.0,
        source: "not in the seeds: PUMA-like estimate (fp 0.5; about 7 s per 64 MB map, a join-heavy reduce); reduce output: estimate (the joined pairs, as shuffled)",
    },
    Profile {
        name: "permu",
        fp: FP_PERMU,
        map_s_per_mb: calibrated_map_s_per_mb(10.0, FP_PERMU),
        reduce_s_per_mb: 0.02,
        reduce_output: 1.0,
        source: "fp: JoSS Table 5 (3.0); costs: estimate (about 10 s per 64 MB map, output three times the input); reduce output: estimate (as shuffled)",
    },
    Profile {
        name: "kmeans",
        fp: FP_KMEANS,
        map_s_per_mb: calibrated_map_s_per_mb(12.0, FP_KMEANS),
        reduce_s_per_mb: 0.03,
        reduce_output: 0.01,
        source: "not in the seeds: PUMA-like estimate (fp 1.0, every point shuffled to its centroid; about 12 s per 64 MB map); reduce output: estimate (the new centroids, 0.01 of the shuffled points)",
    },
];

/// Every built-in profile.
pub fn all() -> &'static [Profile] {
    &PROFILES
}

/// The profile called `name` (exact, lowercase), if built in.
pub fn lookup(name: &str) -> Option<Profile> {
    PROFILES.iter().find(|p| p.name == name).cloned()
}

/// The built-in names, comma-separated, for "expected one of" messages.
/// "; did you mean \"terasort\"?" when a profile's name is near `word`.
pub fn suggestion(word: &str) -> String {
    crate::error::closest(word, all().iter().map(|p| p.name))
        .map(|n| format!("; did you mean \"{n}\"?"))
        .unwrap_or_default()
}

pub fn names_list() -> String {
    PROFILES
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's map model for a node-local map at speed 1.0 (docs/model.md).
    fn local_map_s(p: &Profile, block_mb: f64) -> f64 {
        let disk = crate::model::NetworkSpec::default().disk_mbps;
        CALIBRATION_STARTUP_S + block_mb / disk + block_mb * p.map_s_per_mb + block_mb * p.fp / disk
    }

    #[test]
    fn calibration_matches_hybsmrp_table_1() {
        let ts = lookup("terasort").expect("terasort");
        let wc = lookup("wordcount").expect("wordcount");
        let t = local_map_s(&ts, 64.0);
        let w = local_map_s(&wc, 64.0);
        assert!((7.0..=9.0).contains(&t), "terasort 64 MB map takes {t} s");
        assert!(
            (7.0..=9.000_001).contains(&w),
            "wordcount 64 MB map takes {w} s"
        );
        assert!(
            (t - 8.0).abs() < 1e-9,
            "terasort calibrated to 8 s, got {t}"
        );
        assert!(
            (w - 9.0).abs() < 1e-9,
            "wordcount calibrated to 9 s, got {w}"
        );
        assert_eq!(
            CALIBRATION_DISK_MBPS,
            crate::model::NetworkSpec::default().disk_mbps,
            "calibration assumes the default disk bandwidth"
        );
    }

    #[test]
    fn relative_costs_are_plausible() {
        let secs = |n: &str| local_map_s(&lookup(n).expect(n), 64.0);
        assert!((secs("grep") - 4.0).abs() < 1e-9);
        assert!((secs("histogrammovies") - 5.0).abs() < 1e-9);
        assert!((secs("sequencecount") - 10.0).abs() < 1e-9);
        assert!((secs("invertedindex") - 10.0).abs() < 1e-9);
        assert!((secs("kmeans") - 12.0).abs() < 1e-9);
        for p in all() {
            assert!(
                p.map_s_per_mb > 0.0,
                "{} has a non-positive map cost",
                p.name
            );
            assert!(
                (0.005..=0.03).contains(&p.reduce_s_per_mb),
                "{} reduce cost {} out of range",
                p.name,
                p.reduce_s_per_mb
            );
            assert!(p.fp >= 0.0 && p.fp.is_finite());
            assert!(!p.source.is_empty());
        }
    }

    #[test]
    fn every_name_resolves() {
        let names = [
            "terasort",
            "wordcount",
            "grep",
            "sequencecount",
            "invertedindex",
            "histogrammovies",
            "histogramratings",
            "classification",
            "selfjoin",
            "permu",
            "kmeans",
        ];
        assert_eq!(all().len(), names.len());
        for n in names {
            assert_eq!(lookup(n).map(|p| p.name), Some(n));
        }
        assert!(lookup("terasrot").is_none());
        assert!(lookup("TeraSort").is_none());
        assert!(names_list().starts_with("terasort, wordcount, grep"));
    }

    #[test]
    fn fp_values_match_the_tables() {
        let fp = |n: &str| lookup(n).expect(n).fp;
        // OMO Table 4: shuffle size / input size for 20 GB inputs.
        assert!((fp("terasort") - 1.0).abs() < 1e-12);
        assert!((fp("sequencecount") - 0.875).abs() < 1e-12);
        assert!((fp("wordcount") - 0.195).abs() < 1e-12);
        assert!((fp("invertedindex") - 0.1725).abs() < 1e-12);
        assert!((fp("histogrammovies") - 22.0 / (20.0 * 1024.0 * 1024.0)).abs() < 1e-15);
        assert!((fp("classification") - 6.0 / (20.0 * 1024.0)).abs() < 1e-15);
        // JoSS Table 5.
        assert!((fp("grep") - 0.10).abs() < 1e-12);
        assert!((fp("permu") - 3.0).abs() < 1e-12);
        // Estimates say so.
        for n in ["histogramratings", "selfjoin", "kmeans"] {
            assert!(lookup(n).expect(n).source.contains("not in the seeds"));
        }
    }
}
