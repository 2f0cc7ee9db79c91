//! GPU tests of the expansion strategies that go past 2^32 destination items, S2.5
//! (`ScanBinarySearch`) and S2.5f (`ScanFused`), with the 64-bit kernels the host picks for a
//! capacity past `u32::MAX`:
//! * a total of exactly 2^32 + 7 items, **every** pair checked against the canonical expansion
//!   (computed on the fly from the counts' prefix, chunk by chunk), from millions of small
//!   sources and from a few sources whose largest fills one S2.5f tile with more than 2^32 items
//!   and one of which straddles index 2^32;
//! * the same counts at a capacity one below the total: `Error::CapacityExceeded`, nothing
//!   written;
//! * small totals through the 64-bit kernels (odd sizes, both dispatches, and S2.5's 64-bit
//!   `for_each` in a user's pass 2), against the CPU reference, so that the wide kernels are
//!   covered without the large checks.
//!
//! GPU memory: one output of 2^32 + 7 + 2^27 pairs (34.4 GB, the last 2^27 a poisoned guard),
//! reused by every case, and each case's counts and workspace (at most 9·2^20 sources: 38 MB of
//! counts, 8 bytes of prefix per source for S2.5), freed between cases: about 35 GB; the tests
//! take turns. Host: a 1 GiB staging chunk. `WARPWORK_SMALL=1` (compute-sanitizer runs) skips
//! them (each needs the 34 GB output: a materializing pass 2 wants the whole capacity).

#[path = "common/chunks.rs"]
mod chunks;
mod common;

use chunks::{check_canonical, exclusive_prefix, first_written, read_chunks, Staging, CHUNK};
use common::{gpu, small};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;
use warpwork::abi::kernels::EXPAND_FOR_EACH_HISTOGRAM;
use warpwork::cudarc::driver::CudaSlice;
use warpwork::expand::{Dispatch, Strategy};
use warpwork::{Error, Gpu};
use warpwork_cpu_reference::{expand as cpu, inputs};

/// The total of the large cases: past every `u32` destination index.
const TOTAL: usize = (1 << 32) + 7;
/// The output: the total, then one chunk of guard.
const LEN: usize = TOTAL + CHUNK;
const WIDE: [Strategy; 2] = [Strategy::ScanBinarySearch, Strategy::ScanFused];

/// The GPU tests here each hold a 34 GB output: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// What each test here holds: the poisoned output, the GPU and its turn (fields drop in this
/// order: the 34 GB are freed before the next test may allocate them).
struct Large {
    out: CudaSlice<[u32; 2]>,
    gpu: Gpu,
    _turn: MutexGuard<'static, ()>,
}

/// Waits for this test's turn and allocates the output poisoned; `None` under `WARPWORK_SMALL`.
fn large() -> Option<Large> {
    if small() {
        eprintln!("skipped: WARPWORK_SMALL (a 34 GB output)");
        return None;
    }
    let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let gpu = gpu();
    let out = gpu.filled::<[u32; 2]>(LEN, 0xAB).expect("a 34 GB output");
    Some(Large { out, gpu, _turn: turn })
}

/// About 8.4 million sources of 0 to 1023 items, the last two topping the total up to exactly
/// [`TOTAL`] (the very last empty).
fn many_sources() -> Vec<u32> {
    let mut v = Vec::new();
    let mut sum = 0u64;
    for c in inputs::uniform_range(9 << 20, 29, 0, 1024) {
        if sum + c as u64 > TOTAL as u64 {
            break;
        }
        sum += c as u64;
        v.push(c);
    }
    v.push((TOTAL as u64 - sum) as u32);
    v.push(0);
    v
}

/// Ten sources: one of `u32::MAX − 10` items (S2.5f's first tile then holds more than 2^32),
/// followed by one of 11 that straddles index 2^32, a few tiny ones and empty ones.
fn few_sources() -> Vec<u32> {
    vec![0, 3, u32::MAX - 10, 0, 11, 1, 2, 0, 1, 0]
}

/// Expands `counts` with `s` at capacity `capacity` (past `u32::MAX`: the 64-bit kernels) into
/// the poisoned `out`; returns the count or the error.
fn expand(
    gpu: &Gpu,
    out: &mut CudaSlice<[u32; 2]>,
    counts: &[u32],
    s: Strategy,
    capacity: usize,
    d: Dispatch,
) -> Result<usize, Error> {
    gpu.fill_bytes(out, 0xAB).unwrap();
    let counts = gpu.upload(counts).unwrap();
    let mut e = gpu.expander(s, counts.len(), capacity)?;
    assert!(e.is_wide(), "{}: capacity {capacity} runs the 64-bit kernels", s.name());
    let mut planned = e.pass1(gpu, &counts)?;
    planned.pass2(gpu, out, d)?;
    planned.count(gpu)
}

#[test]
#[ignore = "needs a GPU with 36 GB: run the GPU suite"]
fn scan_strategies_write_every_pair_of_a_total_of_2_pow_32_plus_7() {
    let Some(mut large) = large() else { return };
    let (gpu, out) = (&large.gpu, &mut large.out);
    let mut staging = Staging::new(gpu);
    for (set, counts, dispatch) in
        [("8.4M sources", many_sources(), Dispatch::Persistent), ("10 sources", few_sources(), Dispatch::ReadBack)]
    {
        assert_eq!(cpu::total(&counts), TOTAL as u64, "{set}");
        let prefix = exclusive_prefix(&counts);
        for s in WIDE {
            let what = format!("{} {set} {dispatch:?}", s.name());
            let started = Instant::now();
            let count = expand(gpu, out, &counts, s, TOTAL, dispatch).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(count, TOTAL, "{what}: count");
            let ran = started.elapsed();
            read_chunks(gpu, out, 0..LEN, &mut staging, |first, chunk| {
                let (pairs, guard) = chunk.split_at(TOTAL.saturating_sub(first).min(chunk.len()));
                check_canonical(&counts, &prefix, first as u64, pairs).unwrap_or_else(|e| panic!("{what}: {e}"));
                if let Some(i) = first_written(guard) {
                    panic!("{what}: guard pair {} past the total was written", first + pairs.len() + i);
                }
            });
            eprintln!("{what}: expanded in {ran:.1?}, every pair checked in {:.1?}", started.elapsed() - ran);
        }
    }
}

#[test]
#[ignore = "needs a GPU with 36 GB: run the GPU suite"]
fn scan_strategies_refuse_a_total_past_a_capacity_past_2_pow_32() {
    let Some(mut large) = large() else { return };
    let (gpu, out) = (&large.gpu, &mut large.out);
    let mut staging = Staging::new(gpu);
    let counts = few_sources();
    for s in WIDE {
        let what = format!("{} at capacity 2^32 + 6", s.name());
        let r = expand(gpu, out, &counts, s, TOTAL - 1, Dispatch::Persistent);
        assert!(
            matches!(r, Err(Error::CapacityExceeded { needed, capacity, .. }) if capacity == TOTAL as u64 - 1 && needed > capacity),
            "{what}: {r:?}"
        );
        read_chunks(gpu, out, 0..LEN, &mut staging, |first, chunk| {
            if let Some(i) = first_written(chunk) {
                panic!("{what}: pair {} was written", first + i);
            }
        });
    }
}

/// Small expansions through the 64-bit kernels (an expander of capacity [`TOTAL`]): sizes 0, 1,
/// 33, 2^16 + 1, 2^20 and a sparse 2^20 + 9, both dispatches, every pair and the guard after them checked; and
/// S2.5's 64-bit `for_each` in a user's pass 2.
#[test]
#[ignore = "needs a GPU with 36 GB: run the GPU suite"]
fn the_64_bit_kernels_expand_small_totals_as_the_cpu() {
    // The materializing pass 2 wants an output as long as the capacity, past 2^32 pairs.
    let Some(mut large) = large() else { return };
    let (gpu, out) = (&large.gpu, &mut large.out);
    let guard = 1 << 20;
    // The last input is sparse (one source in 16 not empty): S2.5f's pass 1 lists its tiles and
    // pass 2 reads several of them as one part.
    for (p1, seed) in [(0usize, 1u64), (1, 2), (33, 3), ((1 << 16) + 1, 4), (1 << 20, 5), ((1 << 20) + 9, 7)] {
        let mut counts = inputs::uniform_range(p1, seed, 0, 64);
        // Empty sources, and one large source for the walk inside a source.
        for c in counts.iter_mut().step_by(7) {
            *c = 0;
        }
        if seed == 7 {
            counts.iter_mut().enumerate().filter(|(i, _)| i % 16 != 3).for_each(|(_, c)| *c = 0);
        }
        if p1 > 40 {
            counts[40] = 100_000;
        }
        let n = cpu::total(&counts) as usize;
        let want = cpu::expand(&counts);
        for s in WIDE {
            for d in [Dispatch::Persistent, Dispatch::ReadBack] {
                let what = format!("{} p1 = {p1} {d:?} (64-bit)", s.name());
                let count = expand(gpu, out, &counts, s, TOTAL, d).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(count, n, "{what}: count");
                let got = gpu.download_prefix(out, n + guard).unwrap();
                assert!(got[..n] == want[..], "{what}: pairs differ from the CPU's");
                assert_eq!(first_written(&got[n..]), None, "{what}: a pair past the total was written");
            }
        }
    }

    // A user's pass 2 (`locate::for_each`) over a 64-bit S2.5 view: every item once.
    let counts = inputs::uniform_range(1 << 20, 6, 0, 64);
    let d = gpu.upload(&counts).unwrap();
    let f = gpu.function(EXPAND_FOR_EACH_HISTOGRAM).unwrap();
    let mut hits = gpu.zeros::<u32>(counts.len()).unwrap();
    let mut sums = gpu.zeros::<u64>(counts.len()).unwrap();
    let mut e = gpu.expander(Strategy::ScanBinarySearch, counts.len(), TOTAL).unwrap();
    assert!(e.is_wide());
    let count = unsafe {
        gpu.expand_with(&mut e, &d, f, |l| {
            l.write(&mut hits).write(&mut sums);
        })
    }
    .unwrap();
    assert_eq!(count as u64, cpu::total(&counts));
    let (h, m) = (gpu.download(&hits).unwrap(), gpu.download(&sums).unwrap());
    for (i, &c) in counts.iter().enumerate() {
        let c64 = c as u64;
        assert_eq!((h[i], m[i]), (c, c64 * c64.saturating_sub(1) / 2), "source {i} of the 64-bit for_each");
    }
}

#[test]
fn the_input_sets_add_up_to_2_pow_32_plus_7() {
    let many = many_sources();
    assert_eq!(cpu::total(&many), TOTAL as u64);
    assert!(many.len() > 8_000_000 && many.len() < 9 << 20, "{} sources", many.len());
    assert!(many.iter().all(|&c| c < 1024));
    let few = few_sources();
    assert_eq!(cpu::total(&few), TOTAL as u64);
    // The source of 11 items straddles index 2^32.
    let prefix = exclusive_prefix(&few);
    assert!(prefix[4] < 1 << 32 && prefix[4] + 11 > 1 << 32);
}
