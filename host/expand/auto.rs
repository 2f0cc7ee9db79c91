//! [`Strategy::Auto`]'s rule: which strategy to run, decided on the host from P1 and what the
//! caller states, before anything is allocated or launched. Derived from the H100 expansion
//! tables of 2026-11-23, 2026-11-26 and 2026-11-27 ([the benchmarks](crate::guide::benchmarks#work-expansion-bench-expand);
//! [the expansion notes](crate::guide::expand#choosing-a-strategy-strategyauto)).

use super::facts::UserPass2;
use super::strategy::Strategy;
use super::workspace::offset_bytes;
use warpwork_abi::expand::fused::FUSED_TILE;

/// The most sources at which Auto picks `ScanFused` even with a bound: one tile, which
/// [`crate::expand::Expander::expand`] runs as one launch in which every block scans all the
/// counts itself. On an H100 (2026-11-26, P1 = 2^10) it was the best strategy on all seven
/// distributions, 4% to 9% ahead of `MaxN` where a bound made `MaxN` possible, and its fixed
/// cost (5.3 µs at 32 sources) equals `MaxN`'s.
pub(super) const ONE_TILE_P1: usize = FUSED_TILE as usize;

/// The most `P1 · max_n` slots at which Auto picks `MaxN`. Measured: 2^16 and 2^18 slots took
/// 6.3 µs (1.6× to 2.1× faster than any other strategy), 2^22 slots 19 µs (18% slower than
/// `ScanFused`); S0 costs about 5 µs plus 3.5 µs per 2^20 slots, the others at least 8.6 µs.
pub(super) const MAX_N_SLOTS: u64 = 1 << 20;

impl Strategy {
    /// The concrete strategy that runs for `p1` sources and up to `capacity` destination items:
    /// `Auto`'s pick, any other strategy itself. A pure host function: no synchronization, no
    /// device data. [`crate::Gpu::expander`] resolves with its `max_p1` and capacity (the
    /// workspace depends on the strategy), [`crate::Gpu::expand`] with the counts' length;
    /// [`crate::expand::Expander::strategy`] returns the result.
    ///
    /// The rule, from the tables of every strategy × distribution at P1 = 2^10, 2^16, 2^22
    /// ([the benchmarks](crate::guide::benchmarks#work-expansion-bench-expand); the reasons are
    /// in [the expansion notes](crate::guide::expand#choosing-a-strategy-strategyauto)):
    /// 1. `ScanFused` up to 2048 sources (one tile: one launch that waits on nothing, the best
    ///    strategy on every distribution at 2^10, bound or not).
    /// 2. `MaxN { max_n }` if the caller gave `max_n` (> 0) and `p1 · max_n ≤ 2^20`: few slots,
    ///    and S0 has no pass 1 (all-small N at 2^16 and 2^18: 1.5× to 1.8× ahead of the
    ///    one-launch `ScanFused`).
    /// 3. Else `ScanFused`: up to 2^18 sources [`crate::expand::Expander::expand`] and
    ///    [`crate::Gpu::expand`] run it as one launch, past that in two. On an H100
    ///    (2026-11-27) it was the best strategy without a bound, or within 3% of it, on every
    ///    distribution at 2^16, 2^18 and 2^22 — the sparse ones included (90% of the sources
    ///    empty: level with the packed atomic, which writes records for the non-empty sources
    ///    only; four sources holding every item: 7% ahead of it).
    /// 4. With `own_pass2`, a pick whose row of the strategy table refuses a user's pass 2
    ///    (`ScanFused`) becomes `ScanBinarySearch`: canonical like it (source-major items for
    ///    the user's kernel), the runner-up on uniform and power-law at 2^22 (timed
    ///    materializing; a user's pass 2 was not timed).
    /// 5. A capacity past `u32::MAX` needs 64-bit offsets: a pick without them becomes
    ///    `ScanFused` (up to its 64-bit plan's capacity, in two launches), else
    ///    `ScanBinarySearch`.
    ///
    /// Only what the caller states refines the pick — a bound; the expected total does not
    /// (S2.5f won at 2^22 with totals from 2 M to 134 M) — since the counts themselves are not
    /// read.
    ///
    /// ```
    /// use warpwork::expand::Strategy;
    /// let auto = Strategy::AUTO;
    /// assert_eq!(auto.resolve(1 << 22, 1 << 30), Strategy::ScanFused);
    /// assert_eq!(auto.resolve(1000, 1 << 30), Strategy::ScanFused); // one launch
    /// // A known bound and few slots: S0, past one tile of sources.
    /// let bounded = Strategy::Auto { max_n: Some(4), own_pass2: false };
    /// assert_eq!(bounded.resolve(1 << 16, 1 << 30), Strategy::MaxN { max_n: 4 });
    /// assert_eq!(bounded.resolve(1000, 1 << 30), Strategy::ScanFused);
    /// // Your own pass-2 kernel: never ScanFused.
    /// let own = Strategy::Auto { max_n: None, own_pass2: true };
    /// assert_eq!(own.resolve(1 << 22, 1 << 30), Strategy::ScanBinarySearch);
    /// assert_eq!(Strategy::Po2Buckets.resolve(7, 1 << 30), Strategy::Po2Buckets);
    /// // Past 2^32 destination items: a strategy with 64-bit offsets.
    /// assert_eq!(auto.resolve(1000, 1 << 33), Strategy::ScanFused);
    /// ```
    ///
    /// On a GPU, the expander tells what ran:
    ///
    /// ```no_run
    /// use warpwork::{expand::Strategy, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let e = gpu.expander(Strategy::AUTO, 1 << 20, 1 << 26)?;
    /// assert_eq!(e.strategy(), Strategy::ScanFused);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn resolve(self, p1: usize, capacity: usize) -> Strategy {
        let Strategy::Auto { max_n, own_pass2 } = self else { return self };
        let slots = |max_n: u32| (p1 as u64).saturating_mul(max_n as u64);
        let pick = match max_n {
            _ if p1 <= ONE_TILE_P1 => Strategy::ScanFused,
            Some(max_n) if max_n > 0 && slots(max_n) <= MAX_N_SLOTS => Strategy::MaxN { max_n },
            _ => Strategy::ScanFused,
        };
        let takes = |s: Strategy| offset_bytes(s, capacity).is_ok();
        let pick = match pick {
            s if takes(s) => s,
            _ if takes(Strategy::ScanFused) => Strategy::ScanFused,
            _ => Strategy::ScanBinarySearch,
        };
        match (own_pass2, pick.facts().user_pass2) {
            (true, UserPass2::Refused(_)) => Strategy::ScanBinarySearch,
            _ => pick,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpwork_abi::expand::fused::FUSED_ONCE_MAX_P1;

    const AUTO: Strategy = Strategy::AUTO;
    /// A capacity of 32-bit offsets (every strategy takes it).
    const CAP: usize = 1 << 30;

    fn auto(max_n: Option<u32>, own_pass2: bool) -> Strategy {
        Strategy::Auto { max_n, own_pass2 }
    }

    /// The benchmark's distributions (`warpwork bench expand`) with the bound each guarantees,
    /// at its three sizes: the strategy the H100 table of 2026-11-23 makes best (or within 5%).
    #[test]
    fn each_measured_case_gets_its_measured_best() {
        let (uniform, power_law, small_n, few_huge) = (63, 1 << 16, 4, 1 << 15);
        let cases = [
            (1 << 10, uniform, Strategy::ScanFused),
            (1 << 10, small_n, Strategy::ScanFused),
            (1 << 10, power_law, Strategy::ScanFused),
            (1 << 10, few_huge, Strategy::ScanFused),
            (1 << 16, uniform, Strategy::ScanFused),
            (1 << 16, small_n, Strategy::MaxN { max_n: small_n }),
            (1 << 16, power_law, Strategy::ScanFused),
            (1 << 16, few_huge, Strategy::ScanFused),
            (1 << 22, uniform, Strategy::ScanFused),
            (1 << 22, small_n, Strategy::ScanFused),
            (1 << 22, power_law, Strategy::ScanFused),
            (1 << 22, few_huge, Strategy::ScanFused),
        ];
        for (p1, bound, want) in cases {
            assert_eq!(auto(Some(bound), false).resolve(p1, CAP), want, "P1 = {p1}, bound {bound}");
        }
        // Without a bound, S0 is never picked.
        for p1 in [1 << 10, 1 << 16, 1 << 22] {
            assert!(!matches!(AUTO.resolve(p1, CAP), Strategy::MaxN { .. }), "P1 = {p1}");
        }
    }

    #[test]
    fn thresholds_are_inclusive_and_exact() {
        // One tile exactly, and one source more.
        assert_eq!(auto(Some(4), false).resolve(ONE_TILE_P1, CAP), Strategy::ScanFused);
        assert_eq!(auto(Some(4), false).resolve(ONE_TILE_P1 + 1, CAP), Strategy::MaxN { max_n: 4 });
        // p1 · max_n = 2^20 exactly, and one slot-row more.
        assert_eq!(auto(Some(1 << 4), false).resolve(1 << 16, CAP), Strategy::MaxN { max_n: 1 << 4 });
        assert_eq!(auto(Some(1 << 4), false).resolve((1 << 16) + 1, CAP), Strategy::ScanFused);
        assert_eq!(auto(Some(1 << 8), false).resolve(1 << 12, CAP), Strategy::MaxN { max_n: 1 << 8 });
        assert_eq!(auto(Some((1 << 8) + 1), false).resolve(1 << 12, CAP), Strategy::ScanFused);
    }

    #[test]
    fn edge_sizes_resolve_to_a_valid_strategy() {
        // No sources: every strategy handles P1 = 0.
        assert_eq!(AUTO.resolve(0, CAP), Strategy::ScanFused);
        assert_eq!(auto(Some(7), false).resolve(0, CAP), Strategy::ScanFused);
        assert_eq!(AUTO.resolve(1, CAP), Strategy::ScanFused);
        // Huge P1 (the expander refuses more than u32::MAX sources itself): no overflow in the
        // slot count, even with the largest bound.
        for p1 in [u32::MAX as usize, usize::MAX] {
            assert_eq!(AUTO.resolve(p1, CAP), Strategy::ScanFused);
            assert_eq!(auto(Some(u32::MAX), false).resolve(p1, CAP), Strategy::ScanFused);
            assert_eq!(auto(Some(1), true).resolve(p1, CAP), Strategy::ScanBinarySearch);
        }
        // A bound of 0 (every count zero) is not S0's (MaxN refuses max_n = 0): ignored.
        assert_eq!(auto(Some(0), false).resolve(10, CAP), Strategy::ScanFused);
        assert_eq!(auto(Some(0), false).resolve(1 << 20, CAP), Strategy::ScanFused);
    }

    #[test]
    fn a_bound_is_passed_on_unchanged_so_maxn_checks_it() {
        // Auto never widens or narrows the caller's bound: a count above it is MaxN's typed
        // error (tests/expand_auto_gpu.rs checks that on the device), never a silent truncation.
        for max_n in [1, 3, 64, 300] {
            assert_eq!(auto(Some(max_n), false).resolve(3000, CAP), Strategy::MaxN { max_n });
            assert_eq!(auto(Some(max_n), true).resolve(3000, CAP), Strategy::MaxN { max_n });
        }
    }

    #[test]
    fn own_pass2_never_resolves_to_a_strategy_that_refuses_it() {
        // (Just past the one launch's sources too: two launches from there.)
        let past_once = FUSED_ONCE_MAX_P1 as usize + 1;
        for p1 in [0, 1, 1 << 10, 1 << 16, past_once, 1 << 22, 1 << 30] {
            for max_n in [None, Some(0), Some(1), Some(4), Some(1 << 16)] {
                let s = auto(max_n, true).resolve(p1, CAP);
                assert!(!matches!(s.facts().user_pass2, UserPass2::Refused(_)), "P1 = {p1}, {max_n:?}: {s:?}");
                // The materializing pick is the same, but for ScanFused's place.
                let m = auto(max_n, false).resolve(p1, CAP);
                assert!(s == m || (m == Strategy::ScanFused && s == Strategy::ScanBinarySearch), "{m:?} {s:?}");
            }
        }
    }

    #[test]
    fn concrete_strategies_resolve_to_themselves_and_auto_to_a_concrete_one() {
        let mut all = Strategy::UNBOUNDED.to_vec();
        all.push(Strategy::MaxN { max_n: 9 });
        for s in all {
            assert_eq!(s.resolve(0, CAP), s);
            assert_eq!(s.resolve(usize::MAX, CAP), s);
        }
        for p1 in [0, 1 << 10, 1 << 22] {
            let s = AUTO.resolve(p1, CAP);
            assert!(!matches!(s, Strategy::Auto { .. }));
            assert_eq!(s.resolve(p1, CAP), s, "resolving twice changes nothing");
        }
        // Auto's own facts are those of a resolved strategy (the table has no Auto row).
        assert_eq!(AUTO.facts().name, Strategy::ScanFused.name());
        assert_eq!(auto(None, true).facts().name, Strategy::ScanBinarySearch.name());
    }

    /// Past `u32::MAX` destination items only the strategies with 64-bit offsets are picked,
    /// whatever the bound and P1.
    #[test]
    fn a_capacity_past_32_bits_picks_a_wide_strategy() {
        let wide = (u32::MAX as usize) + 1;
        for p1 in [0, 1, 1000, 1 << 16, 1 << 22] {
            for max_n in [None, Some(1), Some(4)] {
                assert_eq!(auto(max_n, false).resolve(p1, wide), Strategy::ScanFused, "P1 = {p1}");
                assert_eq!(auto(max_n, true).resolve(p1, wide), Strategy::ScanBinarySearch, "P1 = {p1}");
            }
            // Past S2.5f's 64-bit plan: S2.5, which takes any capacity.
            assert_eq!(AUTO.resolve(p1, 1 << 50), Strategy::ScanBinarySearch);
            assert_eq!(AUTO.resolve(p1, u32::MAX as usize), AUTO.resolve(p1, CAP));
        }
    }
}
