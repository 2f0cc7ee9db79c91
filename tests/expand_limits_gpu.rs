//! GPU tests of every expansion strategy at the limit of its `u32` destination indices (issue
//! 17): a total of exactly 2^32 − 1 items at capacity `u32::MAX` with **every** pair checked, and
//! a total of exactly 2^32 refused with `Error::CapacityExceeded`, nothing written past the
//! capacity, the context and the expander usable afterwards. (Past 2^32, with the 64-bit kernels
//! of S2.5 and S2.5f: tests/expand_wide_gpu.rs.)
//!
//! GPU memory: the output is `u32::MAX` pairs (32 GiB) and a poisoned guard of 2^27 pairs
//! (1 GiB) after them; `AppendPerItem` adds its record workspace of `capacity` pairs (32 GiB):
//! 65 GiB at the peak, which an 80 GB H100 holds; every other workspace here is at most 18 MiB
//! (S3's records for 131 073 sources). Host: a 1 GiB staging chunk and a bitmap of 2^32 bits
//! (512 MiB). The two GPU tests take turns (each holds the 33 GiB output). `WARPWORK_SMALL=1`
//! (compute-sanitizer runs) skips them.
//!
//! The output comes back in chunks of 2^27 pairs. Canonical strategies are compared element by
//! element; for the others each pair `(src, local)` must be one of the expansion and marks bit
//! `prefix[src] + local`, which no other pair may have marked, and at the end every bit below the
//! total is set.

#[path = "common/chunks.rs"]
mod chunks;
mod common;

use chunks::{check_canonical, exclusive_prefix, first_written, read_chunks, Staging, CHUNK, POISON};
use common::{gpu, small};
use cudarc::driver::CudaSlice;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;
use warpwork::expand::{Dispatch, Strategy};
use warpwork::{Error, Gpu};
use warpwork_cpu_reference::{expand as cpu, inputs};

/// The largest capacity an expander takes: every `u32` destination index.
const CAP: usize = u32::MAX as usize;
/// The output: the capacity, then one chunk of guard.
const LEN: usize = CAP + CHUNK;

/// The GPU tests here each hold a 33 GiB output: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// 2^16 pairs of sources of `x` and `65535 − x` items (`x` uniform; every 61st pair is
/// `(0, 65535)`, so there are empty sources), then one source of `last`: `2^32 − 65536 + last`
/// items from 131 073 sources of at most `max(65535, last)`, so that S0's slots (`P1 · max_n`,
/// about 2^33) stay few.
fn many_sources(last: u32) -> Vec<u32> {
    let x = inputs::uniform_range(1 << 16, 17, 0, 65_536);
    let mut v: Vec<u32> = x
        .iter()
        .enumerate()
        .flat_map(|(i, &x)| {
            let x = if i % 61 == 0 { 0 } else { x };
            [x, 65_535 - x]
        })
        .collect();
    v.push(last);
    v
}

/// 17 sources of `total` items (S2 searches its sources linearly per item, so it gets few):
/// empty and tiny ones, one of 2^31 (S3's bucket 31), two that make up the rest, and an empty
/// last one, whose S2.5 prefix is the total itself.
fn few_sources(total: u64) -> Vec<u32> {
    let mut v = vec![0u32, 1, 0, 2, 3, 1 << 31, 0, 65_537, 5, 1 << 20, 0, 7, (1 << 30) + 3, 11];
    let rest = total - cpu::total(&v);
    v.extend([(rest / 2) as u32, (rest - rest / 2) as u32, 0]);
    v
}

/// One bit per destination index, for the strategies whose order is not canonical.
struct Marks(Vec<AtomicU64>);

impl Marks {
    fn new(bits: u64) -> Marks {
        Marks((0..bits.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }

    fn clear(&self) {
        self.0.par_iter().for_each(|w| w.store(0, Relaxed));
    }

    /// Marks each pair's destination index: an error for a pair that is not one of the
    /// expansion's, or whose index is marked already.
    fn mark(&self, counts: &[u32], prefix: &[u64], pairs: &[[u32; 2]]) -> Result<(), String> {
        pairs.par_chunks(1 << 16).try_for_each(|part| {
            // Neighbouring pairs mostly share a word: their bits are set together.
            let flush = |word: usize, bits: u64| match self.0[word].fetch_or(bits, Relaxed) & bits {
                0 => Ok(()),
                seen => Err(format!("destination {} written twice", word as u64 * 64 + seen.trailing_zeros() as u64)),
            };
            let (mut word, mut bits) = (0usize, 0u64);
            for &[src, local] in part {
                if local >= counts.get(src as usize).copied().unwrap_or(0) {
                    return Err(format!("pair {:?} is not one of the expansion's", [src, local]));
                }
                let at = prefix[src as usize] + local as u64;
                let (w, b) = ((at / 64) as usize, 1u64 << (at % 64));
                if w != word {
                    flush(word, bits)?;
                    (word, bits) = (w, 0);
                }
                if bits & b != 0 {
                    return Err(format!("destination {at} written twice"));
                }
                bits |= b;
            }
            flush(word, bits)
        })
    }

    /// Whether exactly the destination indices below `total` are marked.
    fn check_all(&self, total: u64) -> Result<(), String> {
        self.0.par_iter().enumerate().try_for_each(|(w, m)| {
            let lo = w as u64 * 64;
            let want = match total.saturating_sub(lo) {
                n if n >= 64 => u64::MAX,
                n => (1u64 << n) - 1,
            };
            match m.load(Relaxed) ^ want {
                0 => Ok(()),
                diff => Err(format!("destination {} not written", lo + diff.trailing_zeros() as u64)),
            }
        })
    }
}

/// Expands `counts` (2^32 − 1 items) with `s` at capacity `u32::MAX` into the poisoned `out`,
/// then checks every pair and that the guard past them is untouched.
#[allow(clippy::too_many_arguments)]
fn expand_and_check(
    gpu: &Gpu,
    out: &mut CudaSlice<[u32; 2]>,
    staging: &mut Staging,
    marks: &Marks,
    counts: &[u32],
    s: Strategy,
    dispatch: Dispatch,
    what: &str,
) {
    let started = Instant::now();
    gpu.fill_bytes(out, common::POISON).unwrap();
    let d = gpu.upload(counts).unwrap();
    {
        // Dropped before the check: AppendPerItem's 32 GiB of records go back at once.
        let mut e = gpu.expander(s, counts.len(), CAP).unwrap_or_else(|err| panic!("{what}: {err}"));
        let mut planned = e.pass1(gpu, &d).unwrap();
        planned.pass2(gpu, out, dispatch).unwrap();
        let count = planned.count(gpu).unwrap_or_else(|err| panic!("{what}: {err}"));
        assert_eq!(count, CAP, "{what}: count");
    }
    let ran = started.elapsed();
    let prefix = exclusive_prefix(counts);
    if !s.is_canonical() {
        marks.clear();
    }
    read_chunks(gpu, out, 0..LEN, staging, |first, chunk| {
        let (pairs, guard) = chunk.split_at(CAP.saturating_sub(first).min(chunk.len()));
        let checked = if s.is_canonical() {
            check_canonical(counts, &prefix, first as u64, pairs)
        } else {
            marks.mark(counts, &prefix, pairs)
        };
        checked.unwrap_or_else(|err| panic!("{what}: {err}"));
        if let Some(i) = first_written(guard) {
            panic!("{what}: guard pair {} past the total was written", first + pairs.len() + i);
        }
    });
    if !s.is_canonical() {
        marks.check_all(CAP as u64).unwrap_or_else(|err| panic!("{what}: {err}"));
    }
    eprintln!("{what}: expanded in {ran:.1?}, every pair checked in {:.1?}", started.elapsed() - ran);
}

#[test]
#[ignore = "needs a GPU with 66 GiB: run the GPU suite"]
fn every_strategy_writes_every_pair_of_a_total_of_2_pow_32_minus_1() {
    if small() {
        eprintln!("skipped: WARPWORK_SMALL (a 33 GiB output)");
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let gpu = gpu();
    let mut out = gpu.filled::<[u32; 2]>(LEN, common::POISON).expect("a 33 GiB output");
    let mut staging = Staging::new(&gpu);
    let marks = Marks::new(CAP as u64);
    let mut all_but_s2 = Strategy::UNBOUNDED.to_vec();
    all_but_s2.retain(|&s| s != Strategy::LinearSearch);
    all_but_s2.push(Strategy::MaxN { max_n: 65_535 });
    // S1's pass 1 writes one source's records with one warp: a source of 2^31 would take it
    // seconds, so it (like S0, whose slots would be P1 · 2^31) gets only the many small sources.
    let few_sized: Vec<Strategy> = Strategy::UNBOUNDED.into_iter().filter(|&s| s != Strategy::AppendPerItem).collect();
    let one_source =
        vec![Strategy::ScanBinarySearch, Strategy::PackedAtomicAdd, Strategy::Po2Buckets, Strategy::ScanFused];
    let cases = [
        ("131 073 sources", many_sources(65_535), Dispatch::Persistent, all_but_s2),
        ("17 sources", few_sources(CAP as u64), Dispatch::ReadBack, few_sized),
        ("one source of 2^32 - 1", vec![0, u32::MAX, 0], Dispatch::Persistent, one_source),
    ];
    for (set, counts, dispatch, strategies) in cases {
        assert_eq!(cpu::total(&counts), CAP as u64, "{set}");
        for s in strategies {
            let what = format!("{} {set} {dispatch:?}", s.name());
            expand_and_check(&gpu, &mut out, &mut staging, &marks, &counts, s, dispatch, &what);
        }
    }
}

/// `pairs` are the expansion of `counts` (sorted first unless `canonical`).
fn check_small(counts: &[u32], pairs: &[[u32; 2]], canonical: bool, what: &str) {
    let got = if canonical { pairs.to_vec() } else { cpu::sorted_pairs(pairs) };
    assert!(got == cpu::expand(counts), "{what}: a small expansion after the refusal is wrong");
}

#[test]
#[ignore = "needs a GPU with 33 GiB: run the GPU suite"]
fn every_strategy_refuses_a_total_of_2_pow_32() {
    if small() {
        eprintln!("skipped: WARPWORK_SMALL (a 33 GiB output)");
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let gpu = gpu();
    let mut strategies = Strategy::UNBOUNDED.to_vec();
    strategies.push(Strategy::MaxN { max_n: 65_536 });
    // Refused before anything is allocated: a capacity past the u32 indices (but by the two
    // scan strategies, whose 64-bit kernels take it: tests/expand_wide_gpu.rs), and an S3
    // layout whose last bucket would start past u32::MAX.
    for &s in &strategies {
        let r = gpu.expander(s, 10, CAP + 1);
        if matches!(s, Strategy::ScanBinarySearch | Strategy::ScanFused) {
            assert!(r.unwrap().is_wide(), "{} at capacity 2^32: 64-bit offsets", s.name());
        } else {
            assert!(matches!(r, Err(Error::CapacityExceeded { .. })), "{} at capacity 2^32: {r:?}", s.name());
        }
    }
    let r = gpu.expander(Strategy::Po2Buckets, (1 << 30) + 17, CAP);
    assert!(matches!(r, Err(Error::CapacityExceeded { .. })), "S3 layout past u32 record indices: {r:?}");

    let mut out = gpu.filled::<[u32; 2]>(LEN, common::POISON).expect("a 33 GiB output");
    let mut staging = Staging::new(&gpu);
    let (many, few) = (many_sources(65_536), few_sources(1 << 32));
    for s in strategies {
        let counts = if s == Strategy::LinearSearch { &few } else { &many };
        assert_eq!(cpu::total(counts), 1 << 32);
        let what = format!("{} at a total of 2^32", s.name());
        gpu.fill_bytes(&mut out, common::POISON).unwrap();
        let d = gpu.upload(counts).unwrap();
        let mut e = gpu.expander(s, counts.len(), CAP).unwrap();
        let mut planned = e.pass1(&gpu, &d).unwrap();
        planned.pass2(&gpu, &mut out, Dispatch::Persistent).unwrap();
        let r = planned.count(&gpu);
        assert!(
            matches!(r, Err(Error::CapacityExceeded { needed, capacity, .. }) if capacity == CAP as u64 && needed > capacity),
            "{what}: {r:?}"
        );
        // What each strategy guarantees on an overflow: S0 appends the pairs it keeps as it
        // finds them, at slots checked against the capacity, so it fills the output (2^32 − 1
        // of its 2^32 pairs) and nothing past it. Every other strategy's pass 1 raises the flag
        // and its pass 2 then sees a count of 0: the whole output stays poisoned.
        let untouched = if matches!(s, Strategy::MaxN { .. }) { CAP..LEN } else { 0..LEN };
        read_chunks(&gpu, &out, untouched, &mut staging, |first, chunk| {
            if let Some(i) = first_written(chunk) {
                panic!("{what}: pair {} was written", first + i);
            }
        });
        // The context and the expander are usable: a small expansion with this expander, and
        // one with a new expander.
        let small = inputs::uniform_range(counts.len().min(1000), 3, 0, 20);
        let ds = gpu.upload(&small).unwrap();
        let n = cpu::total(&small) as usize;
        let mut planned = e.pass1(&gpu, &ds).unwrap();
        planned.pass2(&gpu, &mut out, Dispatch::Persistent).unwrap();
        assert_eq!(planned.count(&gpu).unwrap(), n, "{what}: the small expansion's count");
        check_small(&small, &gpu.download_prefix(&out, n).unwrap(), s.is_canonical(), &what);
        let x = gpu.expand(&ds, s, n).unwrap();
        assert_eq!(x.count, n, "{what}: the small expansion's count (new expander)");
        check_small(&small, &gpu.download_prefix(&x.pairs, n).unwrap(), s.is_canonical(), &what);
    }
}

#[test]
fn the_input_sets_add_up_to_the_limits() {
    let many = many_sources(65_535);
    assert_eq!((many.len(), cpu::total(&many)), (131_073, u32::MAX as u64));
    assert_eq!(many.iter().max(), Some(&65_535));
    assert!(many.iter().filter(|&&c| c == 0).count() > 1000);
    assert_eq!(cpu::total(&many_sources(65_536)), 1 << 32);
    let few = few_sources(u32::MAX as u64);
    assert_eq!((few.len(), cpu::total(&few)), (17, u32::MAX as u64));
    assert_eq!(few.last(), Some(&0));
    assert_eq!(cpu::total(&few_sources(1 << 32)), 1 << 32);
}

#[test]
fn the_checks_find_a_wrong_a_missing_and_a_repeated_pair() {
    let counts = [2u32, 0, 3, 1];
    let prefix = exclusive_prefix(&counts);
    assert_eq!(prefix, [0, 2, 2, 5]);
    let good = [[0, 0], [0, 1], [2, 0], [2, 1], [2, 2], [3, 0]];
    assert_eq!(check_canonical(&counts, &prefix, 0, &good), Ok(()));
    assert_eq!(check_canonical(&counts, &prefix, 3, &good[3..]), Ok(()));
    let mut swapped = good;
    swapped.swap(1, 2);
    assert!(check_canonical(&counts, &prefix, 0, &swapped).is_err());
    assert!(check_canonical(&counts, &prefix, 1, &good[..5]).is_err());
    assert!(check_canonical(&counts, &prefix, 0, &[good.as_slice(), &[[3, 1]]].concat()).is_err());

    let marks = Marks::new(6);
    let mut reversed = good;
    reversed.reverse();
    marks.mark(&counts, &prefix, &reversed[..2]).unwrap();
    marks.mark(&counts, &prefix, &reversed[2..]).unwrap();
    assert_eq!(marks.check_all(6), Ok(()));
    marks.clear();
    marks.mark(&counts, &prefix, &good[..5]).unwrap();
    assert_eq!(marks.check_all(6), Err("destination 5 not written".into()));
    assert!(marks.mark(&counts, &prefix, &[[2, 1]]).is_err(), "repeated across calls");
    marks.clear();
    assert!(marks.mark(&counts, &prefix, &[[2, 1], [0, 0], [2, 1]]).is_err(), "repeated in one call");
    for bad in [[1, 0], [3, 1], [4, 0], POISON] {
        assert!(marks.mark(&counts, &prefix, &[bad]).is_err(), "{bad:?} is no pair");
    }
}
