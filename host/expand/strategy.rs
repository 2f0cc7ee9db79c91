//! The strategies a caller names, and the one lookup of each one's row of the facts table
//! ([`super::facts`]).

use super::facts::*;

/// How pass 2 finds the `(src, local)` of a destination item.
///
/// Each strategy also has a short name, which [`Strategy::name`] returns and the benchmark
/// tables print: **S0** [`MaxN`](Strategy::MaxN), **S1** [`AppendPerItem`](Strategy::AppendPerItem),
/// **S2** [`LinearSearch`](Strategy::LinearSearch), **S2.5**
/// [`ScanBinarySearch`](Strategy::ScanBinarySearch), **S2.5+**
/// [`PackedAtomicCas`](Strategy::PackedAtomicCas) and [`PackedAtomicAdd`](Strategy::PackedAtomicAdd),
/// **S3** [`Po2Buckets`](Strategy::Po2Buckets) and [`Po2BucketsPerBucket`](Strategy::Po2BucketsPerBucket),
/// **S2.5f** [`ScanFused`](Strategy::ScanFused). The numbers order them roughly from the
/// simplest to the one with the most bookkeeping; S2.5+ and S2.5f are variants of S2.5 (`+`: a
/// packed atomic instead of the scan, `f`: the scan fused into pass 2). Each variant's docs say
/// what it does; [`Auto`](Strategy::Auto) picks one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Strategy {
    /// S0: pass 2 covers `P1 · max_n` slots and drops those past the source's count. Every count
    /// must be at most `max_n` ([`crate::Error::InvalidInput`] otherwise). Output order:
    /// unordered.
    MaxN {
        /// The most items one source may spawn.
        max_n: u32,
    },
    /// S1: pass 1 appends one `(src, local)` record per destination item. Unordered (by warp).
    AppendPerItem,
    /// S2: pass 1 appends one `(src, count)` per non-empty source; pass 2 searches linearly.
    /// Cost grows with P1 per item: for small P1 only. Unordered (by warp).
    LinearSearch,
    /// S2.5: device-wide exclusive scan of the counts, binary search. **Canonical order**.
    /// One of the two strategies that go past 2^32 destination items (with [`Strategy::ScanFused`]):
    /// with a capacity above `u32::MAX` its prefixes and destination indices are 64-bit (8 bytes
    /// per source of workspace instead of 4). S0, S1, S2, S2.5+ (whose packed 32+32-bit atomic is
    /// 32-bit by design) and S3 refuse such a capacity with [`crate::Error::CapacityExceeded`].
    ScanBinarySearch,
    /// S2.5+: pass 1 builds the prefix with a packed `(records, sum)` 64-bit compare-and-swap
    /// loop (one per block); binary search. Unordered (by block).
    PackedAtomicCas,
    /// S2.5+ with one 64-bit `atom.add` per block instead of the CAS loop. Unordered (by block).
    PackedAtomicAdd,
    /// S3: one record per set bit of N in power-of-two buckets; pass 2 by shifts, one merged
    /// launch for all buckets. Unordered (by bucket).
    Po2Buckets,
    /// S3 with one pass-2 launch per bucket (32 launches): what merging saves.
    Po2BucketsPerBucket,
    /// S2.5f: S2.5 with the scan fused into pass 2 — pass 1 only sums tiles of counts and plans
    /// pass 2's units (pieces of at most 2048 destination items); pass 2 claims up to four
    /// units at a time (fewer near the end), scans the tile of a claim's units in shared memory
    /// once and produces their items without any per-item search.
    /// No prefix array, and pass 2 is balanced over the output. Materializing only: its pass 2
    /// needs shared memory, so [`crate::Gpu::expand_with`] refuses it (users' own kernels get
    /// the same loop from `warpwork_kernels::device::expand::fused::for_each_fused`).
    /// **Canonical order**. Goes past 2^32 destination items (up to a capacity of 2^42): with a
    /// capacity above `u32::MAX` its plan records and destination indices are 64-bit (16 bytes
    /// per tile of 2048 sources instead of 8).
    ScanFused,
    /// Let warpwork choose: resolved to one of the strategies above **on the host**, from P1
    /// and what the caller states here, by [`Strategy::resolve`] (which [`crate::Gpu::expander`]
    /// and [`crate::Gpu::expand`] call; [`crate::expand::Expander::strategy`] tells the pick).
    /// No synchronization and no device data: the counts are not looked at. The rule and the
    /// H100 measurements it comes from: [`Strategy::resolve`]. Output order: the resolved
    /// strategy's, so unordered in general (name `ScanFused` where canonical order matters).
    /// Not for [`crate::expand::Expander::pass1_by_own_kernel`]: your pass-1 kernel calls one
    /// strategy's `push_*_with` block, so it names that strategy itself.
    Auto {
        /// An upper bound on every count, where the caller knows one beforehand: it lets Auto
        /// pick `MaxN` where its `P1 · max_n` slots are few. A count above it then ends in MaxN's
        /// [`crate::Error::InvalidInput`] (from [`crate::expand::Planned::count`]), never in a
        /// wrong result; where Auto picks another strategy, the bound is not used.
        max_n: Option<u32>,
        /// Pass 2 will be the caller's own kernel ([`crate::Gpu::expand_with`],
        /// [`crate::expand::Planned::pass2_with`]): Auto then picks only strategies that take
        /// one (`ScanFused` does not).
        own_pass2: bool,
    },
}

/// How pass 2 is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dispatch {
    /// Dispatch-indirect emulation: an occupancy-sized grid whose blocks read the destination
    /// count on the device and loop over it. No host synchronization between the passes.
    Persistent,
    /// Read the count back to the host, then launch a grid sized to it (capped at the
    /// persistent grid). Costs a stream synchronization and a copy.
    ReadBack,
}

impl Strategy {
    /// `Auto` with nothing stated: P1 and the capacity alone decide.
    pub const AUTO: Strategy = Strategy::Auto { max_n: None, own_pass2: false };

    /// Every strategy except `MaxN` (which needs its bound) and `Auto` (which resolves to one of
    /// the others).
    pub const UNBOUNDED: [Strategy; 8] = [
        Strategy::AppendPerItem,
        Strategy::LinearSearch,
        Strategy::ScanBinarySearch,
        Strategy::PackedAtomicCas,
        Strategy::PackedAtomicAdd,
        Strategy::Po2Buckets,
        Strategy::Po2BucketsPerBucket,
        Strategy::ScanFused,
    ];

    /// The strategy's row of the table: the one place that tells strategies apart. `Auto` has
    /// no row: the expander and [`super::workspace_len`] resolve it first with the real P1;
    /// here it answers for a P1 too large to tell (so never with a row it could not resolve to).
    pub(super) fn facts(self) -> &'static Facts {
        match self {
            Strategy::Auto { .. } => self.resolve(usize::MAX, 0).facts(),
            Strategy::MaxN { .. } => &MAX_N,
            Strategy::AppendPerItem => &APPEND_PER_ITEM,
            Strategy::LinearSearch => &LINEAR_SEARCH,
            Strategy::ScanBinarySearch => &SCAN_BINARY_SEARCH,
            Strategy::PackedAtomicCas => &PACKED_ATOMIC_CAS,
            Strategy::PackedAtomicAdd => &PACKED_ATOMIC_ADD,
            Strategy::Po2Buckets => &PO2_BUCKETS,
            Strategy::Po2BucketsPerBucket => &PO2_BUCKETS_PER_BUCKET,
            Strategy::ScanFused => &SCAN_FUSED,
        }
    }

    /// S0's bound (`None` for the other strategies).
    pub(super) fn max_n(self) -> Option<u32> {
        match self {
            Strategy::MaxN { max_n } => Some(max_n),
            _ => None,
        }
    }

    /// Short name for tables: the strategy's number (S0 … S3, see [`Strategy`]) and the API
    /// name.
    ///
    /// ```
    /// use warpwork::expand::Strategy;
    /// assert_eq!(Strategy::ScanFused.name(), "S2.5f ScanFused");
    /// assert_eq!(Strategy::MaxN { max_n: 8 }.name(), "S0 MaxN");
    /// assert_eq!(Strategy::AUTO.name(), "Auto");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Auto { .. } => "Auto",
            _ => self.facts().name,
        }
    }

    /// Whether pairs come out in canonical order (source-major, local ascending).
    ///
    /// ```
    /// use warpwork::expand::Strategy;
    /// assert!(Strategy::ScanBinarySearch.is_canonical());
    /// assert!(!Strategy::PackedAtomicAdd.is_canonical()); // in the order of its atomics
    /// let canonical = Strategy::UNBOUNDED.iter().filter(|s| s.is_canonical()).count();
    /// assert_eq!(canonical, 2); // ScanBinarySearch and ScanFused
    /// // Auto promises no order: ask the strategy it resolves to.
    /// let auto = Strategy::AUTO;
    /// assert!(!auto.is_canonical() && auto.resolve(1 << 22, 1 << 30).is_canonical());
    /// ```
    pub fn is_canonical(self) -> bool {
        match self {
            Strategy::Auto { .. } => false,
            _ => self.facts().canonical,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpwork_abi::kernels;

    fn all() -> Vec<Strategy> {
        let mut all = Strategy::UNBOUNDED.to_vec();
        all.push(Strategy::MaxN { max_n: 4 });
        all
    }

    #[test]
    fn names_are_distinct_and_only_the_scan_strategies_are_canonical() {
        let all = all();
        let mut names: Vec<_> = all.iter().map(|s| s.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        let canonical: Vec<_> = all.iter().filter(|s| s.is_canonical()).copied().collect();
        assert_eq!(canonical, [Strategy::ScanBinarySearch, Strategy::ScanFused]);
    }

    #[test]
    fn every_row_is_complete_and_names_real_kernels() {
        let known = |k: &str| kernels::all_kernels().any(|n| n == k);
        for s in all() {
            let f = s.facts();
            assert!(!f.name.is_empty() && known(f.pass2), "{s:?}");
            assert!(f.pass2_threads % crate::abi::WARP_SIZE == 0, "{s:?}: whole warps");
            match (s, f.push) {
                (Strategy::MaxN { .. }, push) => assert!(push.is_none()),
                (_, Some(p)) => assert!(known(p.kernel) && p.sources_per_block > 0, "{s:?}"),
                (_, None) => panic!("{s:?} has no pass 1"),
            }
            if let UserPass2::CountFirst(p) = f.user_pass2 {
                assert!(known(p.kernel) && p.sources_per_block > 0);
            }
            if let Some(w) = f.wide {
                assert!(known(w.push) && known(w.pass2), "{s:?}");
                assert_eq!(f.push_in(true).unwrap().kernel, w.push);
                assert_eq!(f.pass2_in(true), w.pass2);
            }
            assert_eq!(f.pass2_in(false), f.pass2);
        }
        // The two S3 forms and the two S2.5+ forms share one code each; the others have their own.
        let mut codes: Vec<_> = all().iter().map(|s| s.facts().code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), 8);
    }

    #[test]
    fn only_maxn_and_scan_fused_read_the_counts_in_pass_2() {
        let reads: Vec<_> = all().into_iter().filter(|s| s.facts().pass2_reads_counts).collect();
        assert_eq!(reads, [Strategy::ScanFused, Strategy::MaxN { max_n: 4 }]);
    }

    #[test]
    fn only_the_scan_strategies_have_wide_kernels() {
        let wide: Vec<_> = all().into_iter().filter(|s| s.facts().wide.is_some()).collect();
        assert_eq!(wide, [Strategy::ScanBinarySearch, Strategy::ScanFused]);
    }
}
