//! GPU tests of `Expander::expand`, whose S2.5f form runs both passes as one launch up to
//! 2^18 sources: against the CPU reference at odd sizes on each side of the limit and of the
//! tiles (2048 sources each), on one expander mixed with the two-launch forms (the control
//! block, plan records and look-back words they share, and the one launch's tile sums, must stay
//! consistent), past the capacity, and with bad buffers. Outputs are poisoned; pairs past the count must stay so.
//! `WARPWORK_SMALL=1` (under compute-sanitizer) keeps the sizes below 2^17.

mod common;

use common::{check_pairs, gpu, is_poisoned, poisoned, small};
use warpwork::expand::{Dispatch, Strategy};
use warpwork::{Error, Gpu};
use warpwork_cpu_reference::{expand as cpu, inputs};

/// The one-launch limit (`FUSED_ONCE_MAX_P1`).
const ONCE_MAX: usize = 1 << 18;

fn sizes() -> Vec<usize> {
    let mut v = vec![1, 2, 31, 33, 2047, 2048, 2049, 8191, 8192, 8193, 3 * 8192 + 5, (1 << 16) - 1, 1 << 16];
    if !small() {
        v.extend([ONCE_MAX - 1, ONCE_MAX, ONCE_MAX + 1]);
    }
    v
}

fn distributions(p1: usize, seed: u64) -> Vec<(&'static str, Vec<u32>)> {
    let culled: Vec<u32> = inputs::flags(p1, seed ^ 1, 0.1)
        .iter()
        .zip(inputs::uniform_range(p1, seed, 1, 64))
        .map(|(&k, n)| if k != 0 { n } else { 0 })
        .collect();
    let mut huge = vec![0u32; p1];
    huge[p1 / 2] = if small() { 1 << 16 } else { 1 << 21 };
    let mut last = vec![0u32; p1];
    last[p1 - 1] = 4099;
    // 2^24 items from four sources: more units per block than the one launch shares out by
    // block index, so that blocks claim the last quarter.
    let mut four = vec![0u32; p1];
    if p1 >= 1 << 16 {
        for k in [1, 3, 5, 7] {
            four[k * p1 / 8] = 1 << 22;
        }
    }
    vec![
        ("four hold all", four),
        ("zero", vec![0; p1]),
        ("one", vec![1; p1]),
        ("uniform[0,64)", inputs::uniform_range(p1, seed, 0, 64)),
        ("power-law", inputs::power_law(p1, seed, 1.2, 1 << 16)),
        ("culled 90%", culled),
        ("one huge", huge),
        ("only the last", last),
    ]
}

/// `e.expand` on `counts` into a poisoned output `slack` pairs past the total, checked.
fn expand_and_check(gpu: &Gpu, e: &mut warpwork::expand::Expander, counts: &[u32], capacity: usize, what: &str) {
    let total = cpu::total(counts) as usize;
    let d = gpu.upload(counts).unwrap();
    let mut out = poisoned::<[u32; 2]>(gpu, capacity);
    let count = e.expand(gpu, &d, &mut out).unwrap().count(gpu).unwrap_or_else(|err| panic!("{what}: {err}"));
    assert_eq!(count, total, "{what}: count");
    let got = gpu.download(&out).unwrap();
    assert!(is_poisoned(&got[total..]), "{what}: wrote past the count");
    check_pairs(counts, &got[..total], true, what);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn one_launch_matches_cpu_at_odd_sizes() {
    let gpu = gpu();
    for p1 in sizes() {
        for (dist, counts) in distributions(p1, p1 as u64) {
            let total = cpu::total(&counts) as usize;
            let mut e = gpu.expander(Strategy::ScanFused, p1, total + 7).unwrap();
            assert_eq!(e.runs_once(p1), p1 <= ONCE_MAX, "P1 = {p1}");
            expand_and_check(&gpu, &mut e, &counts, total + 7, &format!("expand P1={p1} N={dist}"));
            // The same expander again: its state is left ready by the one launch.
            expand_and_check(&gpu, &mut e, &counts, total + 7, &format!("expand again P1={p1} N={dist}"));
        }
    }
}

/// One expander, many runs: the one launch, both passes apart (persistent and read back), and a
/// pass 1 whose count is read without any pass 2, in a seeded order and at sizes on either side
/// of the limit. Each shares the launch word, the look-back words, the claims and the planned
/// count with the others.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn one_launch_and_two_launches_share_one_expander() {
    let gpu = gpu();
    let max_p1 = if small() { 40_000 } else { ONCE_MAX + 9000 };
    let mut all = inputs::uniform_range(max_p1, 77, 0, 8);
    // 2^24 items from one source past the middle: the largest runs' one launch claims units from
    // the counter that the two launches' pass 2 claims from too.
    all[max_p1 / 2] = 1 << 24;
    let capacity = cpu::total(&all) as usize + 3;
    let mut e = gpu.expander(Strategy::ScanFused, max_p1, capacity).unwrap();
    let mut out = poisoned::<[u32; 2]>(&gpu, capacity);
    let picks = inputs::uniform_range(400, 78, 0, u32::MAX);
    let runs = if small() { 40 } else { 400 };
    for (run, &pick) in picks.iter().take(runs).enumerate() {
        let p1 = [1, 33, 8193, 20_000, max_p1 - 1, max_p1][(pick % 6) as usize];
        let counts = &all[..p1];
        let total = cpu::total(counts) as usize;
        let d = gpu.upload(counts).unwrap();
        gpu.fill_bytes(&mut out, common::POISON).unwrap();
        let how = (pick >> 8) % 4;
        let what = format!("run {run}: P1 = {p1}, form {how}");
        let count = match how {
            0 => e.expand(&gpu, &d, &mut out).unwrap().count(&gpu),
            1 | 2 => {
                let dispatch = if how == 1 { Dispatch::Persistent } else { Dispatch::ReadBack };
                let mut p = e.pass1(&gpu, &d).unwrap();
                p.pass2(&gpu, &mut out, dispatch).unwrap();
                p.count(&gpu)
            }
            _ => e.pass1(&gpu, &d).unwrap().count(&gpu),
        }
        .unwrap_or_else(|err| panic!("{what}: {err}"));
        assert_eq!(count, total, "{what}: count");
        let got = gpu.download_prefix(&out, (total + 64).min(capacity)).unwrap();
        if how == 3 {
            assert!(is_poisoned(&got), "{what}: pass 1 alone wrote pairs");
        } else {
            assert!(is_poisoned(&got[total..]), "{what}: wrote past the count");
            check_pairs(counts, &got[..total], true, &what);
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn one_launch_past_the_capacity_writes_nothing_and_the_next_run_works() {
    let gpu = gpu();
    let counts = inputs::uniform_range(50_000, 5, 0, 64);
    let total = cpu::total(&counts) as usize;
    let d = gpu.upload(&counts).unwrap();
    for capacity in [0, 1, total / 2, total - 1] {
        let mut e = gpu.expander(Strategy::ScanFused, counts.len(), capacity).unwrap();
        assert!(e.runs_once(counts.len()));
        let mut out = poisoned::<[u32; 2]>(&gpu, capacity + 4);
        let r = e.expand(&gpu, &d, &mut out).unwrap().count(&gpu);
        assert!(matches!(r, Err(Error::CapacityExceeded { .. })), "capacity {capacity}: {r:?}");
        assert!(is_poisoned(&gpu.download(&out).unwrap()), "capacity {capacity}: wrote pairs");
        // The same expander on counts that fit.
        let small_counts = &counts[..counts.len().min(capacity / 64)];
        expand_and_check(&gpu, &mut e, small_counts, capacity + 4, &format!("after capacity {capacity}"));
    }
}

/// One tile (at most 2048 sources: every block scans it itself): past the capacity, also with a
/// total past 2^32 (2048 counts of 2^22 + 1), nothing is written and the count says so; the
/// tile's two plan records and the count are right for a later pass 2 of the same plan.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn one_tile_past_the_capacity_and_past_32_bits() {
    let gpu = gpu();
    for (counts, capacity) in
        [(vec![(1u32 << 22) + 1; 2048], 1usize << 20), (vec![7u32; 2047], 7 * 2047 - 1), (vec![u32::MAX, 1], 16)]
    {
        let total = cpu::total(&counts);
        let d = gpu.upload(&counts).unwrap();
        let mut e = gpu.expander(Strategy::ScanFused, counts.len(), capacity).unwrap();
        assert!(e.runs_once(counts.len()));
        let mut out = poisoned::<[u32; 2]>(&gpu, capacity);
        let r = e.expand(&gpu, &d, &mut out).unwrap().count(&gpu);
        match r {
            Err(Error::CapacityExceeded { needed, .. }) => assert_eq!(needed, total, "P1 = {}", counts.len()),
            other => panic!("P1 = {}, total {total}: {other:?}", counts.len()),
        }
        assert!(is_poisoned(&gpu.download(&out).unwrap()), "P1 = {}: wrote pairs", counts.len());
    }
    // A one-tile plan read by a second pass 2 of the two-launch form gives the same pairs.
    let counts = inputs::uniform_range(1500, 11, 0, 40);
    let total = cpu::total(&counts) as usize;
    let d = gpu.upload(&counts).unwrap();
    let mut e = gpu.expander(Strategy::ScanFused, 1500, total).unwrap();
    let mut out = poisoned::<[u32; 2]>(&gpu, total);
    let mut planned = e.expand(&gpu, &d, &mut out).unwrap();
    let mut again = poisoned::<[u32; 2]>(&gpu, total);
    planned.pass2(&gpu, &mut again, Dispatch::Persistent).unwrap();
    assert_eq!(planned.count(&gpu).unwrap(), total);
    check_pairs(&counts, &gpu.download(&out).unwrap(), true, "one tile, one launch");
    check_pairs(&counts, &gpu.download(&again).unwrap(), true, "one tile, then pass 2 again");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn one_launch_refuses_bad_buffers_before_any_launch() {
    let gpu = gpu();
    let counts = gpu.upload(&[3u32; 64]).unwrap();
    let mut e = gpu.expander(Strategy::ScanFused, 64, 192).unwrap();
    let mut short = poisoned::<[u32; 2]>(&gpu, 191);
    let r = e.expand(&gpu, &counts, &mut short).map(drop);
    assert!(matches!(r, Err(Error::BufferTooSmall { len: 191, needed: 192, .. })), "{r:?}");
    let mut out = poisoned::<[u32; 2]>(&gpu, 200);
    let r = e.expand(&gpu, &counts.slice(1..), &mut out).map(drop);
    assert!(matches!(r, Err(Error::Misaligned { .. })), "odd counts view: {r:?}");
    let mut view = out.slice_mut(1..);
    let r = e.expand(&gpu, &counts, &mut view).map(drop);
    assert!(matches!(r, Err(Error::Misaligned { .. })), "odd output view: {r:?}");
    assert!(is_poisoned(&gpu.download(&out).unwrap()), "a refused call wrote pairs");
    // The context and the expander are fine.
    expand_and_check(&gpu, &mut e, &[3; 64], 192, "after the refusals");
}
