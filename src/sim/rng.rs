//! Seeded random streams. Each concern has its own stream so that, for
//! example, switching policy (which changes launch order) never changes
//! block placement or which task attempts straggle.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub const STREAM_PLACEMENT: u64 = 1;
pub const STREAM_NODES: u64 = 2;
pub const STREAM_ARRIVALS: u64 = 3;
pub const STREAM_STRAGGLERS: u64 = 4;
pub const STREAM_DURATIONS: u64 = 5;
pub const STREAM_OUTPUT: u64 = 6;
pub const STREAM_FAILURES: u64 = 7;

/// splitmix64: a good, tiny mixing function for deriving seeds.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream `stream` of a run with seed `seed`.
pub fn stream(seed: u64, stream: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(mix(seed ^ mix(stream)))
}

/// A uniform number in [0, 1) that depends only on its arguments: used for
/// per-attempt draws (stragglers) so that the same attempt of the same task
/// straggles under every policy.
pub fn unit(seed: u64, a: u64, b: u64, c: u64) -> f64 {
    let h = mix(mix(mix(seed ^ mix(STREAM_STRAGGLERS)) ^ a) ^ b.wrapping_mul(0x1000_0000_01B3) ^ c);
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// A generator for one thing (an attempt's output placement, say) that
/// depends only on its key: the same draws under every policy.
pub fn keyed(seed: u64, stream: u64, a: u64, b: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(mix(mix(seed ^ mix(stream)) ^ a) ^ b.wrapping_mul(0x9E37_79B9))
}

/// A log-normal factor with mean 1 and coefficient of variation `cv` for
/// the attempt keyed (a, b, c): the variance of a task's compute time.
pub fn lognormal(seed: u64, a: u64, b: u64, c: u64, cv: f64) -> f64 {
    use rand_distr::{Distribution, LogNormal};
    let Ok(d) = LogNormal::from_mean_cv(1.0, cv) else {
        return 1.0;
    };
    let mut r = keyed(seed, STREAM_DURATIONS, a, b << 32 ^ c);
    d.sample(&mut r)
}
