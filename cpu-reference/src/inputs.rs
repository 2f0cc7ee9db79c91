//! Seeded input generators shared by the tests, the benchmarks and the CLI, so that every
//! comparison runs on the same kinds of data: uniform and power-law (heavy-tailed) values.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

/// Items generated per independently seeded chunk (keeps generation parallel and reproducible).
const CHUNK: usize = 1 << 16;

/// `n` values drawn by `draw` from a generator seeded by `seed` and the chunk index: the same
/// seed gives the same values whatever the thread count.
pub fn generate<T: Send>(n: usize, seed: u64, draw: impl Fn(&mut Pcg64Mcg) -> T + Sync) -> Vec<T> {
    let mut out = Vec::with_capacity(n);
    out.par_extend((0..n.div_ceil(CHUNK)).into_par_iter().flat_map_iter(|c| {
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ (c as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let len = CHUNK.min(n - c * CHUNK);
        (0..len).map(|_| draw(&mut rng)).collect::<Vec<_>>()
    }));
    out
}

/// Uniform `u32`s over the whole range.
pub fn uniform_u32(n: usize, seed: u64) -> Vec<u32> {
    generate(n, seed, |r| r.random())
}

/// Uniform `u64`s over the whole range (random bit patterns for any type of up to 8 bytes).
pub fn uniform_u64(n: usize, seed: u64) -> Vec<u64> {
    generate(n, seed, |r| r.random())
}

/// Uniform values in `lo..hi`.
pub fn uniform_range(n: usize, seed: u64, lo: u32, hi: u32) -> Vec<u32> {
    generate(n, seed, |r| r.random_range(lo..hi))
}

/// Power-law (Pareto-like) values in `1..=max`: `P(X ≥ x) ≈ x^-alpha`, so most values are
/// small and a few are huge — the heavy tail that breaks naive work distribution.
pub fn power_law(n: usize, seed: u64, alpha: f64, max: u32) -> Vec<u32> {
    generate(n, seed, |r| draw_power_law(r, alpha, max))
}

/// One value of [`power_law`] (one draw from `r`).
pub fn draw_power_law(r: &mut Pcg64Mcg, alpha: f64, max: u32) -> u32 {
    let u: f64 = r.random_range(f64::MIN_POSITIVE..1.0);
    (u.powf(-1.0 / alpha).floor() as u64).clamp(1, max as u64) as u32
}

/// One flag byte per item, set with probability `rate`.
pub fn flags(n: usize, seed: u64, rate: f64) -> Vec<u8> {
    generate(n, seed, |r| r.random_bool(rate.clamp(0.0, 1.0)) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_reproducible_and_sized() {
        for n in [0, 1, 33, CHUNK + 1, 3 * CHUNK] {
            assert_eq!(uniform_u32(n, 7), uniform_u32(n, 7));
            assert_eq!(uniform_u32(n, 7).len(), n);
        }
        assert_ne!(uniform_u32(100, 1), uniform_u32(100, 2));
    }

    #[test]
    fn power_law_is_heavy_tailed_and_bounded() {
        let v = power_law(1 << 18, 3, 1.2, 1 << 16);
        assert!(v.iter().all(|&x| (1..=1 << 16).contains(&x)));
        let small = v.iter().filter(|&&x| x <= 2).count();
        assert!(small > v.len() / 2, "most values are small");
        assert!(v.iter().any(|&x| x > 1 << 10), "some are huge");
    }

    #[test]
    fn flag_rate_is_respected() {
        let f = flags(1 << 18, 5, 0.25);
        let kept = f.iter().filter(|&&b| b != 0).count() as f64 / f.len() as f64;
        assert!((kept - 0.25).abs() < 0.01);
        assert!(flags(1000, 1, 0.0).iter().all(|&b| b == 0));
        assert!(flags(1000, 1, 1.0).iter().all(|&b| b == 1));
    }
}
