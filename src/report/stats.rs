//! Mean, standard deviation and Student's 95 % interval: what `merge`'s
//! table and `compare`'s paired differences are made of.

/// Mean, sample sd and 95 % CI of one metric over a group's seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Stat {
    pub n: usize,
    pub mean: f64,
    pub sd: f64,
    pub ci: (f64, f64),
}

/// Student's t, two-sided 95 %, for `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        d if d <= 30 => T[d - 1],
        // Beyond the table: z with the first correction term.
        d => {
            let z = 1.959_964;
            z + (z * z * z + z) / (4.0 * d as f64)
        }
    }
}

/// `xs` against `base`, seed by seed (the seeds both have, a base of 0
/// left out): the per-seed differences in percent, and whether their 95 %
/// interval excludes 0 (two seeds or more). `None` with no seed shared.
pub fn paired_pct(xs: &[(u64, f64)], base: &[(u64, f64)]) -> Option<(Stat, bool)> {
    let d: Vec<f64> = xs
        .iter()
        .filter_map(|&(seed, x)| {
            let (_, y) = base.iter().find(|(s, _)| *s == seed)?;
            (*y != 0.0).then(|| 100.0 * (x - y) / y)
        })
        .collect();
    if d.is_empty() {
        return None;
    }
    let s = stat(&d);
    let sure = s.n > 1 && (s.ci.0 > 0.0 || s.ci.1 < 0.0);
    Some((s, sure))
}

pub fn stat(xs: &[f64]) -> Stat {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n.max(1) as f64;
    let sd = if n > 1 {
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    } else {
        0.0
    };
    let half = if n > 1 {
        t95(n - 1) * sd / (n as f64).sqrt()
    } else {
        0.0
    };
    Stat {
        n,
        mean,
        sd,
        ci: (mean - half, mean + half),
    }
}

#[cfg(test)]
mod tests {
    use super::paired_pct;

    #[test]
    fn a_paired_difference_goes_seed_by_seed() {
        // Seeds whose workloads differ widely, each 10 % slower: sure,
        // though the spread of either side alone dwarfs the difference.
        let base = [(1, 100.0), (2, 300.0), (3, 50.0)];
        let slower = [(1, 110.0), (2, 330.0), (3, 55.0)];
        let (s, sure) = paired_pct(&slower, &base).unwrap();
        assert!((s.mean - 10.0).abs() < 1e-9 && sure);
        // Up on one seed, down on another: not sure.
        let mixed = [(1, 120.0), (2, 270.0), (3, 50.0)];
        assert!(!paired_pct(&mixed, &base).unwrap().1);
        // One seed is never sure; seeds not shared are left out.
        let one = [(2, 600.0), (9, 1.0)];
        let (s, sure) = paired_pct(&one, &base).unwrap();
        assert_eq!((s.n, s.mean, sure), (1, 100.0, false));
        assert!(paired_pct(&[(7, 1.0)], &base).is_none());
    }
}
