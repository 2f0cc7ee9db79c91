//! The count distributions of the work-expansion benchmark (`warpwork bench expand`) and of the
//! GPU tests that check every strategy (and `Strategy::Auto`) on the benchmark's own inputs:
//! one definition, fixed seeds, so a table row can be reproduced from its name.

use crate::inputs::{draw_power_law, generate, uniform_range};
use rand::Rng;

/// How the sources' counts are drawn. Each has a fixed seed and a [`bound`](Self::bound): the
/// largest count it can produce, which is what a caller knows *before* looking at the counts (and
/// so what the benchmark gives `MaxN` and `Auto` as their bound).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CountDistribution {
    /// Uniform in `0..64` (seed 0xE1).
    Uniform,
    /// Power law, `P(N ≥ x) ≈ x^-1.2`, in `1..=2^16` (seed 0xE2): most small, a heavy tail.
    PowerLaw,
    /// 90% of the sources spawn nothing, the rest follow [`PowerLaw`](Self::PowerLaw) (seed 0xE5).
    PowerLawMostlyZero,
    /// Uniform in `0..=4` (seed 0xE3): all small.
    SmallN,
    /// One source in 1024 (index 511 of each 1024; the middle one below 1024 sources) spawns
    /// 2^15, the others nothing: about 32 per source on average, all in a few.
    FewHuge,
    /// Culling-like: 90% of the sources culled to zero, the survivors uniform in `1..64`
    /// (seed 0xE6).
    Culled,
    /// Four sources hold every item: 2^22 each (sources `p1/8`, `3·p1/8`, `5·p1/8`, `7·p1/8`; the
    /// first four below 8 sources), the others nothing — a total of 2^24 whatever P1.
    FourHeavy,
}

/// The one source in 1024 of [`CountDistribution::FewHuge`] spawns this many.
const FEW_HUGE_N: u32 = 1 << 15;
/// What each of the four sources of [`CountDistribution::FourHeavy`] spawns.
const FOUR_HEAVY_N: u32 = 1 << 22;
/// The share of sources that spawn nothing in the mostly-zero and culled distributions.
const ZERO_SHARE: f64 = 0.9;

impl CountDistribution {
    /// Every distribution, in the benchmark's order.
    pub const ALL: [CountDistribution; 7] = [
        CountDistribution::Uniform,
        CountDistribution::PowerLaw,
        CountDistribution::PowerLawMostlyZero,
        CountDistribution::SmallN,
        CountDistribution::FewHuge,
        CountDistribution::Culled,
        CountDistribution::FourHeavy,
    ];

    /// The name in the benchmark's tables.
    pub fn name(self) -> &'static str {
        match self {
            CountDistribution::Uniform => "uniform[0,64)",
            CountDistribution::PowerLaw => "power-law",
            CountDistribution::PowerLawMostlyZero => "power-law 90% zero",
            CountDistribution::SmallN => "small N<=4",
            CountDistribution::FewHuge => "few huge",
            CountDistribution::Culled => "culled 90%",
            CountDistribution::FourHeavy => "four hold all",
        }
    }

    /// The largest count the distribution can produce (not the largest drawn).
    pub fn bound(self) -> u32 {
        match self {
            CountDistribution::Uniform | CountDistribution::Culled => 63,
            CountDistribution::PowerLaw | CountDistribution::PowerLawMostlyZero => 1 << 16,
            CountDistribution::SmallN => 4,
            CountDistribution::FewHuge => FEW_HUGE_N,
            CountDistribution::FourHeavy => FOUR_HEAVY_N,
        }
    }

    /// The counts of `p1` sources: the same for the same `p1` on every machine and thread count.
    pub fn counts(self, p1: usize) -> Vec<u32> {
        match self {
            CountDistribution::Uniform => uniform_range(p1, 0xE1, 0, 64),
            CountDistribution::PowerLaw => generate(p1, 0xE2, |r| draw_power_law(r, 1.2, 1 << 16)),
            CountDistribution::PowerLawMostlyZero => generate(p1, 0xE5, |r| {
                // One draw decides, a second gives the count: survivors follow PowerLaw exactly.
                if r.random_bool(ZERO_SHARE) {
                    0
                } else {
                    draw_power_law(r, 1.2, 1 << 16)
                }
            }),
            CountDistribution::SmallN => uniform_range(p1, 0xE3, 0, 5),
            CountDistribution::FewHuge => {
                (0..p1).map(|i| if i % 1024 == 511 || (p1 < 1024 && i == p1 / 2) { FEW_HUGE_N } else { 0 }).collect()
            }
            CountDistribution::Culled => {
                generate(p1, 0xE6, |r| if r.random_bool(ZERO_SHARE) { 0 } else { r.random_range(1..64) })
            }
            CountDistribution::FourHeavy => {
                let heavy = |i: usize| if p1 < 8 { i < 4 } else { [1, 3, 5, 7].iter().any(|&k| i == k * p1 / 8) };
                (0..p1).map(|i| if heavy(i) { FOUR_HEAVY_N } else { 0 }).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::power_law;

    #[test]
    fn counts_are_reproducible_sized_and_within_the_bound() {
        for d in CountDistribution::ALL {
            for p1 in [0, 1, 1000, 1 << 17] {
                let c = d.counts(p1);
                assert_eq!(c.len(), p1, "{d:?}");
                assert_eq!(c, d.counts(p1), "{d:?}: same seed, same counts");
                assert!(c.iter().all(|&n| n <= d.bound()), "{d:?}: above its bound");
            }
        }
        // The benchmark's older rows are reproduced: the same generators and seeds as before.
        assert_eq!(CountDistribution::PowerLaw.counts(5000), power_law(5000, 0xE2, 1.2, 1 << 16));
        assert_eq!(CountDistribution::Uniform.counts(5000), uniform_range(5000, 0xE1, 0, 64));
    }

    #[test]
    fn the_zero_heavy_distributions_are_mostly_zero() {
        let p1 = 1 << 18;
        let zero_share = |c: &[u32]| c.iter().filter(|&&n| n == 0).count() as f64 / c.len() as f64;
        for d in [CountDistribution::PowerLawMostlyZero, CountDistribution::Culled, CountDistribution::FewHuge] {
            assert!(zero_share(&d.counts(p1)) > 0.88, "{d:?}");
        }
        let tail = CountDistribution::PowerLawMostlyZero.counts(p1);
        assert!(tail.iter().any(|&n| n > 1 << 10), "the survivors keep the heavy tail");
        let culled = CountDistribution::Culled.counts(p1);
        assert!(culled.iter().all(|&n| n < 64) && culled.iter().filter(|&&n| n > 0).count() > p1 / 20);
        assert!(zero_share(&CountDistribution::Uniform.counts(p1)) < 0.05);
        assert_eq!(CountDistribution::FewHuge.counts(100).iter().filter(|&&n| n > 0).count(), 1);
        for p1 in [1usize, 5, 8, 1000, 1 << 22] {
            let four = CountDistribution::FourHeavy.counts(p1);
            assert_eq!(four.iter().filter(|&&n| n > 0).count(), p1.min(4), "P1 = {p1}");
            assert_eq!(four.iter().map(|&n| n as u64).sum::<u64>(), p1.min(4) as u64 * (1 << 22));
        }
    }

    #[test]
    fn names_are_distinct() {
        let mut names: Vec<_> = CountDistribution::ALL.iter().map(|d| d.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CountDistribution::ALL.len());
    }
}
