//! GPU tests of `Strategy::Auto`: it expands every distribution of the benchmark like the CPU
//! reference, with and without a bound, through `Gpu::expand`, a reused `Expander` (either
//! dispatch) and a user's pass 2; a bound that a count exceeds ends in a typed error or, where
//! Auto does not pick MaxN, in the right answer — never in a wrong one.
//!
//! Outputs are poisoned (0xAB); the pairs past the count must stay poisoned.
//! `WARPWORK_SMALL=1` (under compute-sanitizer) skips P1 = 2^22.

mod common;

use common::{check_pairs, gpu, is_poisoned, poisoned, small};
use warpwork::abi::kernels::EXPAND_FOR_EACH_HISTOGRAM;
use warpwork::expand::{Dispatch, Strategy};
use warpwork::Error;
use warpwork_cpu_reference::counts::CountDistribution;
use warpwork_cpu_reference::{expand as cpu, inputs};

fn auto(max_n: Option<u32>, own_pass2: bool) -> Strategy {
    Strategy::Auto { max_n, own_pass2 }
}

/// Sizes around Auto's switches (2^12 sources; 16 644 sources, the most whose bound of 63
/// keeps `P1 · max_n` within 2^20 slots) and the benchmark's three.
fn sizes() -> Vec<usize> {
    let mut v = vec![0, 1, 1 << 10, 1 << 12, (1 << 12) + 1, 16_644, 1 << 16, 100_003];
    if !small() {
        v.push(1 << 22);
    }
    v
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn auto_expands_every_bench_distribution_like_the_cpu() {
    let gpu = gpu();
    for p1 in sizes() {
        for dist in CountDistribution::ALL {
            let counts = dist.counts(p1);
            let total = cpu::total(&counts) as usize;
            let d = gpu.upload(&counts).unwrap();
            // One run per strategy Auto resolves to (told nothing, and the distribution's bound).
            let mut tried: Vec<Strategy> = Vec::new();
            for max_n in [None, Some(dist.bound())] {
                let s = auto(max_n, false);
                let resolved = s.resolve(p1, total + 5);
                if tried.contains(&resolved) {
                    continue;
                }
                tried.push(resolved);
                let what = format!("Auto(→ {}) P1={p1} N={} {s:?}", resolved.name(), dist.name());
                let mut e = gpu.expander(s, p1, total + 5).unwrap();
                assert_eq!(e.strategy(), resolved, "{what}: the expander runs what resolve says");
                let dispatches: &[Dispatch] =
                    if p1 <= 1 << 16 { &[Dispatch::Persistent, Dispatch::ReadBack] } else { &[Dispatch::Persistent] };
                for &dispatch in dispatches {
                    // A fresh poisoned output per run: a run that wrote nothing cannot pass on
                    // the pairs of the one before.
                    let mut out = poisoned::<[u32; 2]>(&gpu, total + 5);
                    let mut planned = e.pass1(&gpu, &d).unwrap();
                    planned.pass2(&gpu, &mut out, dispatch).unwrap();
                    let count = planned.count(&gpu).unwrap_or_else(|err| panic!("{what} {dispatch:?}: {err}"));
                    assert_eq!(count, total, "{what} {dispatch:?}: count");
                    let got = gpu.download(&out).unwrap();
                    assert!(is_poisoned(&got[total..]), "{what} {dispatch:?}: wrote past the count");
                    check_pairs(&counts, &got[..total], resolved.is_canonical(), &format!("{what} {dispatch:?}"));
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn expand_convenience_resolves_for_the_counts_length() {
    let gpu = gpu();
    for p1 in [1000usize, 50_000] {
        let counts = CountDistribution::Culled.counts(p1);
        let total = cpu::total(&counts) as usize;
        let d = gpu.upload(&counts).unwrap();
        let s = auto(None, false);
        let e = gpu.expand(&d, s, total).unwrap();
        assert_eq!(e.count, total, "P1 = {p1}");
        let got = gpu.download_prefix(&e.pairs, total).unwrap();
        check_pairs(&counts, &got, s.resolve(p1, total).is_canonical(), &format!("expand Auto P1={p1}"));
    }
}

/// A bound smaller than a count: where Auto picks MaxN, MaxN's check makes it a typed error;
/// where it picks another strategy, the bound is unused and the answer is right.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn a_bound_below_a_count_is_an_error_or_unused_never_a_wrong_answer() {
    let gpu = gpu();
    for p1 in [3000usize, 1 << 16] {
        let mut counts = inputs::uniform_range(p1, 21, 0, 64);
        counts[p1 / 3] = 100; // above the bound 63 given below
        let total = cpu::total(&counts) as usize;
        let d = gpu.upload(&counts).unwrap();
        let s = auto(Some(63), false);
        let r = gpu.expand(&d, s, total);
        match s.resolve(p1, total) {
            Strategy::MaxN { max_n: 63 } => {
                assert!(matches!(r, Err(Error::InvalidInput(_))), "P1 = {p1}: {r:?}");
            }
            other => {
                let e = r.unwrap_or_else(|err| panic!("P1 = {p1} ({}): {err}", other.name()));
                assert_eq!(e.count, total);
                let got = gpu.download_prefix(&e.pairs, total).unwrap();
                check_pairs(&counts, &got, other.is_canonical(), &format!("wrong bound, {}", other.name()));
            }
        }
    }
    // Both branches ran: 3000 · 63 slots are few (MaxN), 2^16 · 63 are not.
    assert_eq!(auto(Some(63), false).resolve(3000, 1 << 20), Strategy::MaxN { max_n: 63 });
    assert_ne!(auto(Some(63), false).resolve(1 << 16, 1 << 20), Strategy::MaxN { max_n: 63 });
}

/// `own_pass2: true` resolves to strategies that take a user's pass 2 (never ScanFused), and
/// the user's kernel sees every item once; without it, a large P1 resolves to ScanFused, which
/// refuses a user's pass 2 with a typed error.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn auto_for_a_users_pass2_runs_it_over_every_item_once() {
    let gpu = gpu();
    let f = gpu.function(EXPAND_FOR_EACH_HISTOGRAM).unwrap();
    let cases = [
        (CountDistribution::PowerLaw, 1000usize, None),
        (CountDistribution::SmallN, 1000, Some(4)),
        (CountDistribution::PowerLawMostlyZero, 100_003, None),
        (CountDistribution::Culled, 100_003, Some(63)),
    ];
    for (dist, p1, max_n) in cases {
        let counts = dist.counts(p1);
        let total = cpu::total(&counts) as usize;
        let d = gpu.upload(&counts).unwrap();
        let s = auto(max_n, true);
        let mut e = gpu.expander(s, p1, total).unwrap();
        let what = format!("Auto(→ {}) {} P1={p1}", e.strategy().name(), dist.name());
        assert_ne!(e.strategy(), Strategy::ScanFused, "{what}");
        let mut hits = gpu.zeros::<u32>(p1).unwrap();
        let mut sums = gpu.zeros::<u64>(p1).unwrap();
        // SAFETY: `expand_for_each_histogram(view, hits, local_sums)` follows the contract.
        let n = unsafe {
            gpu.expand_with(&mut e, &d, f, |l| {
                l.write(&mut hits).write(&mut sums);
            })
        }
        .unwrap_or_else(|err| panic!("{what}: {err}"));
        assert_eq!(n, total, "{what}: count");
        let (h, m) = (gpu.download(&hits).unwrap(), gpu.download(&sums).unwrap());
        for (i, &c) in counts.iter().enumerate() {
            let want = c as u64 * (c as u64).saturating_sub(1) / 2;
            assert!(h[i] == c && m[i] == want, "{what} source {i}: {} hits, local sum {}", h[i], m[i]);
        }
    }
    // Materializing Auto at a large P1 is ScanFused: a user's pass 2 is refused, typed.
    let counts = CountDistribution::Uniform.counts(100_003);
    let d = gpu.upload(&counts).unwrap();
    let mut e = gpu.expander(auto(None, false), counts.len(), cpu::total(&counts) as usize).unwrap();
    assert_eq!(e.strategy(), Strategy::ScanFused);
    let (mut hits, mut sums) = (gpu.zeros::<u32>(counts.len()).unwrap(), gpu.zeros::<u64>(counts.len()).unwrap());
    // SAFETY: as above.
    let r = unsafe {
        gpu.expand_with(&mut e, &d, f, |l| {
            l.write(&mut hits).write(&mut sums);
        })
    };
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
}
