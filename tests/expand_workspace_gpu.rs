//! GPU tests of expanders in the caller's buffer (`Gpu::expander_in`, sized by
//! `expand::workspace_len`):
//! * every strategy, built in a buffer full of garbage (every bit set), matches the CPU
//!   reference, with both dispatches and again after a second pass 1;
//! * the 64-bit kernels (a capacity past 2^32) count as the CPU from a garbage buffer;
//! * a buffer one element short is `BufferTooSmall`, one of another context `WrongContext`, and
//!   the context stays usable;
//! * `Expander::into_workspace` gives back the buffer, with the descriptor in it as
//!   `Planned::view` says, and a second expander of another strategy works in it;
//! * a buffer allocated on another stream of the context serves an expander.
//!
//! Outputs are poisoned (0xAB); the pairs past the count must stay poisoned. `WARPWORK_SMALL=1`
//! (compute-sanitizer runs) skips P1 = 2^20.

mod common;

use common::{check_pairs, gpu, is_poisoned, poisoned, small};
use warpwork::abi::kernels::EXPAND_FOR_EACH_HISTOGRAM;
use warpwork::cudarc::driver::{CudaContext, CudaSlice};
use warpwork::expand::{workspace_len, Dispatch, Expander, Strategy};
use warpwork::{Error, Gpu};
use warpwork_cpu_reference::{expand as cpu, inputs};

/// Pairs of output past each total, poisoned.
const SLACK: usize = 5;

/// A buffer of `len` `u64`s holding garbage: every bit set.
fn garbage(gpu: &Gpu, len: usize) -> CudaSlice<u64> {
    gpu.upload(&vec![u64::MAX; len]).expect("a garbage buffer")
}

/// Every strategy for `counts`: the unbounded ones (LinearSearch up to 10^5 sources, as
/// `tests/expand_gpu.rs`), `MaxN` bounded by the largest count where its slots stay few, and
/// `Auto`.
fn strategies(counts: &[u32]) -> Vec<Strategy> {
    let p1 = counts.len();
    let mut v: Vec<Strategy> =
        Strategy::UNBOUNDED.into_iter().filter(|&s| s != Strategy::LinearSearch || p1 <= 100_000).collect();
    let max_n = counts.iter().copied().max().unwrap_or(0).max(1);
    if (p1 as u64) * (max_n as u64) <= 1 << 30 {
        v.push(Strategy::MaxN { max_n });
    }
    v.push(Strategy::AUTO);
    v
}

/// Runs pass 1 and the materializing pass 2 of `e` on `counts` (uploaded: `d`) into a poisoned
/// output of `capacity` pairs, and checks the count, the pairs and the untouched tail.
fn run_and_check(gpu: &Gpu, e: &mut Expander, counts: &[u32], d: &CudaSlice<u32>, capacity: usize, what: &str) {
    let total = cpu::total(counts) as usize;
    let canonical = e.strategy().is_canonical();
    for dispatch in [Dispatch::Persistent, Dispatch::ReadBack] {
        let what = format!("{what} {dispatch:?}");
        let mut out = poisoned::<[u32; 2]>(gpu, capacity);
        let mut planned = e.pass1(gpu, d).unwrap_or_else(|err| panic!("{what}: pass 1: {err}"));
        planned.pass2(gpu, &mut out, dispatch).unwrap_or_else(|err| panic!("{what}: pass 2: {err}"));
        let count = planned.count(gpu).unwrap_or_else(|err| panic!("{what}: {err}"));
        assert_eq!(count, total, "{what}: count");
        let got = gpu.download(&out).unwrap();
        assert!(is_poisoned(&got[total..]), "{what}: wrote past the count");
        check_pairs(counts, &got[..total], canonical, &what);
    }
}

fn distributions(p1: usize) -> Vec<(&'static str, Vec<u32>)> {
    let mut huge = vec![0u32; p1];
    if p1 > 0 {
        huge[p1 / 2] = 1 << 20;
    }
    vec![
        ("zero", vec![0u32; p1]),
        ("one", vec![1u32; p1]),
        ("uniform[0,64)", inputs::uniform_range(p1, 11, 0, 64)),
        ("power-law", inputs::power_law(p1, 12, 1.2, 1 << 16)),
        ("one huge 2^20", huge),
    ]
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn every_strategy_in_a_garbage_buffer_matches_cpu() {
    let gpu = gpu();
    let mut sizes = vec![0usize, 1, 33, 4097, 100_003];
    if !small() {
        sizes.push(1 << 20);
    }
    for p1 in sizes {
        for (dist, counts) in distributions(p1) {
            let d = gpu.upload(&counts).unwrap();
            let capacity = cpu::total(&counts) as usize + SLACK;
            for s in strategies(&counts) {
                let what = format!("{} P1={p1} N={dist} in garbage", s.name());
                let len = workspace_len(s, p1, capacity);
                let mut e = gpu.expander_in(s, p1, capacity, garbage(&gpu, len)).unwrap();
                assert_eq!(e.strategy(), s.resolve(p1, capacity), "{what}");
                // Twice: the second pass 1 finds what the first left in the workspace.
                run_and_check(&gpu, &mut e, &counts, &d, capacity, &what);
                run_and_check(&gpu, &mut e, &counts, &d, capacity, &format!("{what}, again"));
            }
        }
    }
}

/// Capacities past 2^32 (the 64-bit kernels) from a garbage buffer: pass 1's count for S2.5 and
/// S2.5f (a materializing pass 2 wants an output of the whole capacity), and S2.5's 64-bit
/// `for_each` in a user's pass 2.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn wide_expanders_in_a_garbage_buffer_count_as_the_cpu() {
    let gpu = gpu();
    let capacity = (1usize << 33) + 3;
    let f = gpu.function(EXPAND_FOR_EACH_HISTOGRAM).unwrap();
    for p1 in [1usize, 33, 8193, 100_003] {
        let counts = inputs::uniform_range(p1, 13, 0, 64);
        let total = cpu::total(&counts) as usize;
        let d = gpu.upload(&counts).unwrap();
        for s in [Strategy::ScanBinarySearch, Strategy::ScanFused] {
            let what = format!("{} P1={p1} capacity 2^33 + 3 in garbage", s.name());
            let mut e = gpu.expander_in(s, p1, capacity, garbage(&gpu, workspace_len(s, p1, capacity))).unwrap();
            assert!(e.is_wide(), "{what}");
            for round in 0..2 {
                assert_eq!(e.pass1(&gpu, &d).unwrap().count(&gpu).unwrap(), total, "{what}: pass 1 #{round}");
            }
            if s != Strategy::ScanBinarySearch {
                continue;
            }
            let mut hits = gpu.zeros::<u32>(p1).unwrap();
            let mut sums = gpu.zeros::<u64>(p1).unwrap();
            // SAFETY: `expand_for_each_histogram(view, hits, local_sums)` follows the contract.
            let n = unsafe {
                gpu.expand_with(&mut e, &d, f, |l| {
                    l.write(&mut hits).write(&mut sums);
                })
            }
            .unwrap();
            assert_eq!(n, total, "{what}: for_each count");
            let (h, m) = (gpu.download(&hits).unwrap(), gpu.download(&sums).unwrap());
            for (i, &c) in counts.iter().enumerate() {
                let c64 = c as u64;
                assert_eq!((h[i], m[i]), (c, c64 * c64.saturating_sub(1) / 2), "{what}: source {i} of for_each");
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn a_short_buffer_or_one_of_another_context_is_refused() {
    let gpu = gpu();
    let counts: Vec<u32> = (0..1000).map(|i| i % 13).collect();
    let d = gpu.upload(&counts).unwrap();
    let capacity = cpu::total(&counts) as usize + SLACK;
    for s in strategies(&counts) {
        let len = workspace_len(s, counts.len(), capacity);
        let r = gpu.expander_in(s, counts.len(), capacity, garbage(&gpu, len - 1)).map(|_| ());
        let (short, needed) = ((len - 1) as u64, len as u64);
        assert!(
            matches!(r, Err(Error::BufferTooSmall { len, needed: n, .. }) if len == short && n == needed),
            "{}: {r:?}",
            s.name()
        );
        // Nothing was issued: the context is usable, and the exact length works.
        let mut e = gpu.expander_in(s, counts.len(), capacity, garbage(&gpu, len)).unwrap();
        run_and_check(&gpu, &mut e, &counts, &d, capacity, &format!("{} after a short buffer", s.name()));
    }
    // A capacity the strategy cannot index is refused as by `Gpu::expander`, whatever the buffer.
    let r = gpu.expander_in(Strategy::AppendPerItem, 10, 1 << 33, garbage(&gpu, 1)).map(|_| ());
    assert!(matches!(r, Err(Error::CapacityExceeded { .. })), "{r:?}");

    // `CudaContext::new(0)` twice is the same primary context: a second, non-primary one.
    let other = match CudaContext::new_non_primary(0, 0) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("skipped the other context: this driver cannot create a second context on device 0 ({e})");
            return;
        }
    };
    let len = workspace_len(Strategy::ScanFused, counts.len(), capacity);
    let theirs = other.new_stream().unwrap().clone_htod(&vec![u64::MAX; len]).unwrap();
    let r = gpu.expander_in(Strategy::ScanFused, counts.len(), capacity, theirs).map(|_| ());
    assert!(matches!(r, Err(Error::WrongContext)), "{r:?}");
    let mut e = gpu.expander_in(Strategy::ScanFused, counts.len(), capacity, garbage(&gpu, len)).unwrap();
    run_and_check(&gpu, &mut e, &counts, &d, capacity, "ScanFused after another context's buffer");
}

/// One buffer through an expander of every strategy in turn, each given back by
/// `into_workspace` to the next (which finds the last one's state in it), and the descriptor
/// in the buffer as `Planned::view` reports it.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn into_workspace_gives_back_a_buffer_the_next_expander_uses() {
    let gpu = gpu();
    let counts = inputs::uniform_range(20_000, 14, 0, 64);
    let d = gpu.upload(&counts).unwrap();
    let (p1, capacity) = (counts.len(), cpu::total(&counts) as usize + SLACK);
    let list = strategies(&counts);
    // Longer than any of them needs: the front is used.
    let len = list.iter().map(|&s| workspace_len(s, p1, capacity)).max().unwrap() + 3;
    let mut buffer = garbage(&gpu, len);
    let base = gpu.device_address(&buffer).unwrap();
    for s in list.iter().chain(&list) {
        let what = format!("{} in the buffer given back", s.name());
        let mut e = gpu.expander_in(*s, p1, capacity, buffer).unwrap();
        run_and_check(&gpu, &mut e, &counts, &d, capacity, &what);
        let view = e.pass1(&gpu, &d).unwrap().view();
        buffer = e.into_workspace();
        assert_eq!((buffer.len(), gpu.device_address(&buffer).unwrap()), (len, base), "{what}: not the same buffer");
        // Every address of the view lies in the buffer, and the device holds the same view.
        assert_eq!((view.p1 as usize, view.counts), (p1, gpu.device_address(&d).unwrap()), "{what}");
        for addr in [view.ctrl, view.offsets, view.srcs, view.records, view.scan_status] {
            assert!(addr >= base && addr < base + 8 * len as u64 && addr % 16 == 0, "{what}: address {addr:#x}");
        }
        let words = gpu.download(&buffer).unwrap();
        let view_words: &[u64] = bytemuck::cast_slice(std::slice::from_ref(&view));
        assert!(
            words.windows(view_words.len()).step_by(2).any(|w| w == view_words),
            "{what}: no such view on the device"
        );
    }
    // What `Gpu::expander` allocated comes back too, and serves a smaller expander.
    let e = gpu.expander(Strategy::ScanFused, p1, capacity).unwrap();
    let buffer = e.into_workspace();
    assert_eq!(buffer.len(), workspace_len(Strategy::ScanFused, p1, capacity));
    let half = &counts[..p1 / 2];
    let mut e = gpu.expander_in(Strategy::ScanFused, half.len(), capacity, buffer).unwrap();
    run_and_check(&gpu, &mut e, half, &gpu.upload(half).unwrap(), capacity, "ScanFused, half, in an allocated buffer");
}

/// A buffer of another stream of the same context (its garbage written there): cudarc's stream
/// events order the expander's work on the handle's stream after it.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn a_buffer_of_another_stream_serves_an_expander() {
    let gpu = gpu();
    let theirs = gpu.context().new_stream().unwrap();
    let counts = inputs::power_law(50_000, 15, 1.2, 1 << 12);
    let d = gpu.upload(&counts).unwrap();
    let capacity = cpu::total(&counts) as usize + SLACK;
    for s in strategies(&counts) {
        let buffer = theirs.clone_htod(&vec![u64::MAX; workspace_len(s, counts.len(), capacity)]).unwrap();
        let mut e = gpu.expander_in(s, counts.len(), capacity, buffer).unwrap();
        run_and_check(&gpu, &mut e, &counts, &d, capacity, &format!("{} in another stream's buffer", s.name()));
    }
}
