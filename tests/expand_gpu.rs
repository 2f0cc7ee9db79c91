//! GPU tests of every work-expansion strategy against the CPU reference.
//!
//! Outputs are poisoned (0xAB) before each run; the pairs past the count must stay poisoned.
//! Canonical strategies are compared element by element, the others after sorting.
//! `WARPWORK_SMALL=1` (under compute-sanitizer) skips P1 = 2^22 and N = 2^24.

mod common;

use common::{check_pairs, expand_and_check, gpu, is_poisoned, poisoned, small};
use warpwork::abi::kernels::EXPAND_FOR_EACH_HISTOGRAM;
use warpwork::expand::{Dispatch, Strategy};
use warpwork::Error;
use warpwork_cpu_reference::{expand as cpu, inputs};

fn distributions(p1: usize) -> Vec<(&'static str, Vec<u32>)> {
    let mut v = vec![
        ("zero", vec![0u32; p1]),
        ("one", vec![1u32; p1]),
        ("uniform[0,64)", inputs::uniform_range(p1, 7, 0, 64)),
        ("power-law", inputs::power_law(p1, 8, 1.2, 1 << 16)),
        // Mostly empty sources: the fused walk keeps bounds for the non-empty ones only.
        ("power-law 90% zero", zero_most(inputs::power_law(p1, 9, 1.2, 1 << 16), 10)),
        ("every 97th, up to 300", (0..p1).map(|i| if i % 97 == 0 { 1 + (i / 97 % 300) as u32 } else { 0 }).collect()),
    ];
    if p1 > 0 {
        // More units in one tile than a grid's first claims, so that blocks claim again in it
        // (smaller under the sanitizers, which see it too).
        let mut huge = vec![0u32; p1];
        huge[p1 / 2] = if small() { 1 << 23 } else { 1 << 24 };
        if p1 > 2 {
            huge[p1 - 1] = 3;
        }
        v.push(("one huge", huge));
    }
    v
}

/// `counts` with all but about one in `keep` set to zero (a fixed seed).
fn zero_most(counts: Vec<u32>, keep: u32) -> Vec<u32> {
    let picks = inputs::uniform_range(counts.len(), 10, 0, keep);
    counts.into_iter().zip(picks).map(|(n, p)| if p == 0 { n } else { 0 }).collect()
}

fn strategies(p1: usize, counts: &[u32]) -> Vec<Strategy> {
    let mut v: Vec<Strategy> =
        Strategy::UNBOUNDED.into_iter().filter(|&s| s != Strategy::LinearSearch || p1 <= 100_000).collect();
    let max_n = counts.iter().copied().max().unwrap_or(0).max(1);
    if (p1 as u64) * (max_n as u64) <= 1 << 30 {
        v.push(Strategy::MaxN { max_n });
    }
    v
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn every_strategy_matches_cpu() {
    let gpu = gpu();
    let mut sizes = vec![0usize, 1, 33, 100_000];
    if !small() {
        sizes.push(1 << 22);
    }
    for p1 in sizes {
        for (dist, counts) in distributions(p1) {
            for s in strategies(p1, &counts) {
                let what = format!("{} P1={p1} N={dist}", s.name());
                expand_and_check(&gpu, &counts, s, Dispatch::Persistent, &what);
                if p1 <= 100_000 {
                    expand_and_check(&gpu, &counts, s, Dispatch::ReadBack, &format!("{what} read-back"));
                }
            }
        }
    }
}

/// Pass 2 run again after one pass 1 gives the same answer, with either dispatch (ScanFused's
/// pass 2 claims units from a counter that its last block clears), at sizes around ScanFused's
/// tile (2048 sources) and pass-1 block (8192).
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn pass2_runs_again_after_one_pass1() {
    let gpu = gpu();
    for p1 in [2047usize, 2049, 8191, 8193, 3 * 8192 + 5] {
        for (dist, counts) in distributions(p1) {
            let total = cpu::total(&counts) as usize;
            let d = gpu.upload(&counts).unwrap();
            for s in strategies(p1, &counts) {
                let mut e = gpu.expander(s, p1, total).unwrap();
                let mut planned = e.pass1(&gpu, &d).unwrap();
                for dispatch in [Dispatch::Persistent, Dispatch::ReadBack, Dispatch::Persistent] {
                    let what = format!("{} P1={p1} N={dist} {dispatch:?} again", s.name());
                    let mut out = poisoned::<[u32; 2]>(&gpu, total + 5);
                    planned.pass2(&gpu, &mut out, dispatch).unwrap();
                    assert_eq!(planned.count(&gpu).unwrap(), total, "{what}: count");
                    let got = gpu.download(&out).unwrap();
                    assert!(is_poisoned(&got[total..]), "{what}: wrote past the count");
                    check_pairs(&counts, &got[..total], s.is_canonical(), &what);
                }
            }
        }
    }
}

/// Once the count is read, pass 2 takes an output as long as the count alone (the capacity is
/// twice the total and more): every strategy, an output of exactly the count (then one pair
/// short, refused), the tail past it untouched. MaxN counts in pass 2, so it reads the count
/// after a first pass 2; a new pass 1 forgets the count.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn pass2_takes_an_output_as_long_as_a_read_count() {
    let gpu = gpu();
    let p1 = 8193;
    for (dist, counts) in distributions(p1) {
        let total = cpu::total(&counts) as usize;
        let capacity = 2 * total + 64;
        let d = gpu.upload(&counts).unwrap();
        for s in strategies(p1, &counts) {
            let what = format!("{} N={dist}", s.name());
            let mut e = gpu.expander(s, p1, capacity).unwrap();
            let mut planned = e.pass1(&gpu, &d).unwrap();
            if s.name() == "S0 MaxN" {
                let mut full = poisoned::<[u32; 2]>(&gpu, capacity);
                planned.pass2(&gpu, &mut full, Dispatch::Persistent).unwrap();
            }
            assert_eq!(planned.count(&gpu).unwrap(), total, "{what}: count");
            // The pairs go into the first `total` of a buffer 8 longer (to see a stray write).
            let mut buffer = poisoned::<[u32; 2]>(&gpu, total + 8);
            let mut exact = buffer.slice_mut(..total);
            planned.pass2(&gpu, &mut exact, Dispatch::Persistent).unwrap_or_else(|e| panic!("{what}: {e}"));
            if total > 0 {
                let mut short = buffer.slice_mut(..total - 1);
                let r = planned.pass2(&gpu, &mut short, Dispatch::Persistent);
                assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{what}: {r:?}");
            }
            let got = gpu.download(&buffer).unwrap();
            assert!(is_poisoned(&got[total..]), "{what}: wrote past the count");
            check_pairs(&counts, &got[..total], s.is_canonical(), &what);
            // A new pass 1: the count is not known any more.
            let mut again = e.pass1(&gpu, &d).unwrap();
            let mut exact = buffer.slice_mut(..total);
            if total < capacity {
                let r = again.pass2(&gpu, &mut exact, Dispatch::Persistent);
                assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{what} after pass 1: {r:?}");
            }
        }
    }
}

/// One expander reused for several runs (as the benchmarks do), with the capacity exactly the
/// total: every run must give the same, complete answer.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn a_reused_expander_with_exact_capacity_matches_cpu() {
    let gpu = gpu();
    for p1 in [1usize << 16, 100_003] {
        let mut dists = distributions(p1);
        // The benchmark's inputs (`warpwork bench expand`).
        dists.push(("bench uniform[0,64)", inputs::uniform_range(p1, 0xE1, 0, 64)));
        dists.push(("bench power-law", inputs::power_law(p1, 0xE2, 1.2, 1 << 16)));
        for (dist, counts) in dists {
            let total = cpu::total(&counts) as usize;
            let d = gpu.upload(&counts).unwrap();
            for s in strategies(p1, &counts) {
                let mut e = gpu.expander(s, p1, total).unwrap();
                let mut out = poisoned::<[u32; 2]>(&gpu, total.max(1));
                for run in 0..3 {
                    let what = format!("{} P1={p1} N={dist} run {run}", s.name());
                    let mut planned = e.pass1(&gpu, &d).unwrap();
                    planned.pass2(&gpu, &mut out, Dispatch::Persistent).unwrap();
                    assert_eq!(
                        planned.count(&gpu).unwrap_or_else(|err| panic!("{what}: {err}")),
                        total,
                        "{what}: count"
                    );
                    check_pairs(&counts, &gpu.download_prefix(&out, total).unwrap(), s.is_canonical(), &what);
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn expand_convenience_matches_cpu() {
    let gpu = gpu();
    let counts = inputs::uniform_range(3333, 3, 0, 20);
    let d = gpu.upload(&counts).unwrap();
    let total = cpu::total(&counts) as usize;
    for s in Strategy::UNBOUNDED {
        let e = gpu.expand(&d, s, total).unwrap();
        assert_eq!(e.count, total);
        check_pairs(&counts, &gpu.download_prefix(&e.pairs, total).unwrap(), s.is_canonical(), s.name());
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn max_n_edge_cases() {
    let gpu = gpu();
    let ones = vec![1u32; 1000];
    expand_and_check(&gpu, &ones, Strategy::MaxN { max_n: 1 }, Dispatch::Persistent, "max_n=1, all one");
    let full = vec![7u32; 777];
    expand_and_check(&gpu, &full, Strategy::MaxN { max_n: 7 }, Dispatch::Persistent, "N = max_n = 7");
    let mut upto = inputs::uniform_range(5000, 4, 0, 65);
    upto[17] = 64;
    expand_and_check(&gpu, &upto, Strategy::MaxN { max_n: 64 }, Dispatch::Persistent, "N up to max_n = 64");
    expand_and_check(&gpu, &upto, Strategy::MaxN { max_n: 1000 }, Dispatch::ReadBack, "max_n far above N");
    // One source above max_n is an error, not a silent truncation.
    let mut over = vec![3u32; 100];
    over[42] = 5;
    let d = gpu.upload(&over).unwrap();
    let r = gpu.expand(&d, Strategy::MaxN { max_n: 4 }, 1000);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    assert!(matches!(gpu.expander(Strategy::MaxN { max_n: 0 }, 10, 10), Err(Error::InvalidInput(_))));
}

fn all_strategies(max_n: u32) -> Vec<Strategy> {
    let mut v = Strategy::UNBOUNDED.to_vec();
    v.push(Strategy::MaxN { max_n });
    v
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn capacity_overflow_is_an_error_and_writes_nothing_out_of_bounds() {
    let gpu = gpu();
    let counts = inputs::uniform_range(100_000, 9, 0, 64);
    let total = cpu::total(&counts) as usize;
    let d = gpu.upload(&counts).unwrap();
    for s in all_strategies(64) {
        for capacity in [0, 1, total / 2, total - 1] {
            let mut e = gpu.expander(s, counts.len(), capacity).unwrap();
            // The buffer is longer than the capacity: the rest must stay poisoned.
            let mut out = poisoned::<[u32; 2]>(&gpu, capacity + 4096);
            let mut planned = e.pass1(&gpu, &d).unwrap();
            planned.pass2(&gpu, &mut out, Dispatch::Persistent).unwrap();
            let r = planned.count(&gpu);
            assert!(
                matches!(r, Err(Error::CapacityExceeded { capacity: c, .. }) if c == capacity as u64),
                "{} capacity {capacity}: {r:?}",
                s.name()
            );
            let got = gpu.download(&out).unwrap();
            assert!(is_poisoned(&got[capacity..]), "{} wrote past capacity {capacity}", s.name());
            // The expander is reusable after an overflow: pass 1 resets the control block.
            let fits = vec![1u32; capacity.min(1000)];
            let df = gpu.upload(&fits).unwrap();
            let mut planned = e.pass1(&gpu, &df).unwrap();
            planned.pass2(&gpu, &mut out, Dispatch::Persistent).unwrap();
            assert_eq!(planned.count(&gpu).unwrap(), fits.len(), "{} reuse after overflow", s.name());
        }
        // Exactly at capacity is fine.
        expand_and_check(&gpu, &counts, s, Dispatch::Persistent, &format!("{} at capacity", s.name()));
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sum_overflowing_32_bits_is_an_error() {
    let gpu = gpu();
    // 2^32 - 1 + 2 + 1000: the 32-bit running sum wraps to 1001, which would "fit" a capacity of
    // 2000 if the wrap went unnoticed.
    let mut counts = vec![0u32; 10_000];
    counts[3] = u32::MAX;
    counts[4000] = 2;
    counts[9999] = 1000;
    let d = gpu.upload(&counts).unwrap();
    for s in Strategy::UNBOUNDED {
        let mut e = gpu.expander(s, counts.len(), 2000).unwrap();
        let mut out = poisoned::<[u32; 2]>(&gpu, 2000 + 64);
        let mut planned = e.pass1(&gpu, &d).unwrap();
        planned.pass2(&gpu, &mut out, Dispatch::Persistent).unwrap();
        let r = planned.count(&gpu);
        assert!(matches!(r, Err(Error::CapacityExceeded { .. })), "{}: {r:?}", s.name());
        let got = gpu.download(&out).unwrap();
        assert!(is_poisoned(&got[2000..]), "{} wrote out of bounds", s.name());
    }
    assert!(matches!(gpu.expander(Strategy::Po2Buckets, 10, 1 << 33), Err(Error::CapacityExceeded { .. })));
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn user_pass2_kernel_sees_every_item_once() {
    let gpu = gpu();
    let mut cases = vec![inputs::uniform_range(100_000, 5, 0, 64), inputs::power_law(50_000, 6, 1.2, 1 << 16)];
    cases.push({
        let mut v = vec![0u32; 1000];
        v[500] = 1 << 20;
        v
    });
    let f = gpu.function(EXPAND_FOR_EACH_HISTOGRAM).unwrap();
    for counts in cases {
        let total = cpu::total(&counts) as usize;
        let d = gpu.upload(&counts).unwrap();
        let max_n = counts.iter().copied().max().unwrap();
        // ScanFused has no separate pass 2 to replace: refused with a typed error (below).
        let mut list: Vec<Strategy> = Strategy::UNBOUNDED.into_iter().filter(|&s| s != Strategy::ScanFused).collect();
        if (counts.len() as u64) * (max_n as u64) <= 1 << 30 {
            list.push(Strategy::MaxN { max_n });
        }
        for s in list {
            let mut hits = gpu.zeros::<u32>(counts.len()).unwrap();
            let mut sums = gpu.zeros::<u64>(counts.len()).unwrap();
            let mut e = gpu.expander(s, counts.len(), total).unwrap();
            let mut planned = e.pass1(&gpu, &d).unwrap();
            // Pass 2 twice after the one pass 1: every item once more each time, the same count
            // (S0 counts its total on the device the first time only).
            for round in 1..=2u64 {
                unsafe {
                    planned.pass2_with(&gpu, f, |l| {
                        l.write(&mut hits).write(&mut sums);
                    })
                }
                .unwrap();
                assert_eq!(planned.count(&gpu).unwrap(), total, "{} after pass 2 #{round}", s.name());
                let (h, m) = (gpu.download(&hits).unwrap(), gpu.download(&sums).unwrap());
                for (i, &c) in counts.iter().enumerate() {
                    let want = c as u64 * (c as u64).saturating_sub(1) / 2;
                    assert!(
                        h[i] as u64 == round * c as u64 && m[i] == round * want,
                        "{} source {i} after pass 2 #{round}: {} hits, local sum {}",
                        s.name(),
                        h[i],
                        m[i]
                    );
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scan_fused_refuses_a_user_pass2_kernel() {
    let gpu = gpu();
    let d = gpu.upload(&[3u32, 0, 5]).unwrap();
    let f = gpu.function(EXPAND_FOR_EACH_HISTOGRAM).unwrap();
    let mut hits = gpu.zeros::<u32>(3).unwrap();
    let mut sums = gpu.zeros::<u64>(3).unwrap();
    let mut e = gpu.expander(Strategy::ScanFused, 3, 8).unwrap();
    let r = unsafe {
        gpu.expand_with(&mut e, &d, f, |l| {
            l.write(&mut hits).write(&mut sums);
        })
    };
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
}

/// The count of the last expansion is the expander's: readable after its `Planned` is gone, for
/// every strategy (those that count in pass 2 included).
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn the_count_outlives_the_planned_expansion() {
    let gpu = gpu();
    let counts: Vec<u32> = (0..3000).map(|i| (i * 7 % 11) as u32).collect();
    let d = gpu.upload(&counts).unwrap();
    let total = cpu::total(&counts) as usize;
    let mut out = gpu.zeros::<[u32; 2]>(total).unwrap();
    for s in Strategy::UNBOUNDED.into_iter().chain([Strategy::MaxN { max_n: 10 }]) {
        let mut e = gpu.expander(s, counts.len(), total).unwrap();
        e.pass1(&gpu, &d).unwrap().pass2(&gpu, &mut out, Dispatch::Persistent).unwrap();
        assert_eq!(e.count(&gpu).unwrap(), total, "{}", s.name());
    }
}
