//! One board over several GPUs ([`BandedLife`]) against one GPU ([`Life`]): the same cells and
//! populations for every kernel, several rules, odd sizes, uneven bands, deeper halos and step
//! counts that are no multiple of the halo. Needs the feature `nccl`, a GPU and `libnccl.so` on
//! the loader path; the tests of two ranks or more skip (with a message) on a machine of one
//! GPU, every GPU test skips without NCCL. The plan's errors are checked on the CPU.
//!
//! `WARPWORK_SMALL=1` shrinks boards and generation counts.

mod common;

use common::bands::{assert_same, compare as compare_steps, gpus, ONE_AT_A_TIME};
use common::small;
use warpwork::multi::Gpus;
use warpwork::{Error, Gpu};
use warpwork_life::{BandedLife, Bands, BitGrid, Kernel, Layout, Rule};

/// Two ranks where the machine has two GPUs, else one (the same checks on one rank).
fn two_or_one() -> Option<Gpus> {
    if Gpu::device_count().expect("the GPU suite needs a CUDA driver") >= 2 {
        gpus(2)
    } else {
        eprintln!("one GPU: running on one rank");
        gpus(1)
    }
}

/// Odd board sizes each layout accepts, tall enough for two bands of the deepest halo (12).
fn sizes(kernel: Kernel) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = match kernel.layout() {
        Layout::U32 | Layout::U8 => vec![(1, 2), (3, 5), (33, 31), (100, 77)],
        Layout::Bits32 => vec![(32, 2), (96, 17), (160, 65)],
        Layout::Bits64 => vec![(64, 24), (128, 31), (192, 77), (1984, 45)],
    };
    if !small() {
        v.push(match kernel.layout() {
            Layout::U32 | Layout::U8 => (257, 300),
            _ => (3904, 301),
        });
    }
    v
}

/// `plan` on `gpus` against one GPU from `start` under `rule` ([`common::bands::compare`]):
/// after each of several steps whose lengths are no multiple of the halo (37 generations in
/// all; 13 when small).
fn compare(gpus: &Gpus, plan: &Bands, start: &BitGrid, rule: Rule, what: &str) {
    let chunks: &[u64] = if small() { &[1, 5, 7] } else { &[1, 5, 7, 24] };
    compare_steps(gpus, plan, start, rule, chunks, what);
}

/// Every kernel on every size, B3/S23, even and uneven bands over `ranks` GPUs.
fn every_kernel(ranks: usize) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(gpus) = gpus(ranks) else { return };
    for kernel in Kernel::ALL {
        let d = Bands::new(kernel).halo();
        for (w, h) in sizes(kernel) {
            let start = BitGrid::random(w, h, 0.35, (w * 1000 + h) as u64).unwrap();
            let mut plans = vec![Bands::new(kernel)];
            if ranks > 1 {
                // The thinnest band first, then last: the halo reaches the band beyond it.
                let mut thin = vec![(h - d) / (ranks - 1); ranks];
                thin[0] = d;
                let rest: usize = thin[1..].iter().sum();
                thin[ranks - 1] += h - d - rest;
                plans.push(Bands::new(kernel).with_heights(thin.clone()));
                thin.reverse();
                plans.push(Bands::new(kernel).with_heights(thin));
            }
            for plan in plans {
                if h < d * ranks {
                    let err = plan.split(w, h, ranks).unwrap_err();
                    assert!(matches!(err, Error::InvalidInput(_)), "{kernel} {w}x{h}: {err}");
                    continue;
                }
                let what = format!("{kernel} {w}x{h} over {ranks} ({plan:?})");
                compare(&gpus, &plan, &start, Rule::CONWAY, &what);
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn one_rank_matches_one_gpu_on_every_kernel() {
    every_kernel(1);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn two_ranks_match_one_gpu_on_every_kernel() {
    every_kernel(2);
}

/// Every GPU of the machine (3 to 8), when it has more than two.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn every_gpu_matches_one_gpu() {
    let count = Gpu::device_count().expect("the GPU suite needs a CUDA driver").min(8);
    if count < 3 {
        eprintln!("skipped: {count} GPUs (two ranks are tested on their own)");
        return;
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(gpus) = gpus(count) else { return };
    for kernel in [Kernel::Naive1d256, Kernel::Tiled, Kernel::Bit32, Kernel::Bit64, Kernel::Bit64T8Flat] {
        let start = BitGrid::random(192, 24 * count + 5, 0.4, count as u64).unwrap();
        compare(&gpus, &Bands::new(kernel), &start, Rule::CONWAY, &format!("{kernel} over {count}"));
    }
}

/// Life-like rules, a B0 rule among them (the whole torus is born at once, halos included),
/// on two ranks (one when the machine has one GPU).
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn other_rules_match_one_gpu() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(gpus) = two_or_one() else { return };
    let rules = ["B36/S23", "B3678/S34678", "B2/S", "B0/S8", "B0123478/S01234678", "B1357/S1357"];
    let kernels = [
        Kernel::Naive1d64,
        Kernel::Sparse,
        Kernel::Tiled,
        Kernel::Byte,
        Kernel::Ballot,
        Kernel::Bit32,
        Kernel::Bit64,
        Kernel::Bit64T4,
        Kernel::Bit64T8,
        Kernel::Bit64T12,
        Kernel::Bit64T8Flat,
    ];
    for rule in rules {
        let rule: Rule = rule.parse().unwrap();
        for kernel in kernels {
            let (w, h) = match kernel.layout() {
                Layout::U32 | Layout::U8 => (77, 53),
                _ => (192, 53),
            };
            let start = BitGrid::random(w, h, 0.3, 11).unwrap();
            compare(&gpus, &Bands::new(kernel), &start, rule, &format!("{kernel} {rule} {w}x{h}"));
        }
    }
}

/// Halos deeper than a launch: fewer exchanges, the same cells.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn deeper_halos_match_one_gpu() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(gpus) = two_or_one() else { return };
    let plans = [
        (Bands::new(Kernel::Tiled).with_halo(3), (101, 60)),
        (Bands::new(Kernel::Byte).with_halo(7), (33, 29)),
        (Bands::new(Kernel::Bit32).with_halo(2), (96, 40)),
        (Bands::new(Kernel::Bit64).with_halo(5), (128, 40)),
        (Bands::new(Kernel::Bit64T4).with_halo(8), (192, 50)),
        (Bands::new(Kernel::Bit64T8).with_halo(24), (256, 100)),
        (Bands::new(Kernel::Bit64T8Flat).with_halo(16).with_heights(vec![16, 49]), (64, 65)),
    ];
    for (plan, (w, h)) in plans {
        let heights = match gpus.len() {
            1 => Bands::new(plan.kernel()).with_halo(plan.halo()),
            _ => plan.clone(),
        };
        let start = BitGrid::random(w, h, 0.4, 3).unwrap();
        compare(&gpus, &heights, &start, Rule::CONWAY, &format!("{w}x{h} {plan:?}"));
    }
}

/// `random` makes the cells of [`BitGrid::random`], band by band (padding bits too: odd widths).
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn random_bands_are_the_random_board() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(gpus) = two_or_one() else { return };
    for (kernel, w, h, density) in [
        (Kernel::Byte, 999, 777, 0.3),
        (Kernel::Tiled, 70, 9, 1.0),
        (Kernel::Bit32, 96, 33, 0.5),
        (Kernel::Bit64T8, 4096, 1000, 0.5),
        (Kernel::Bit64T12, 192, 24, 0.1),
    ] {
        let life = BandedLife::random(&gpus, kernel, w, h, density, 9).unwrap();
        let want = BitGrid::random(w, h, density, 9).unwrap();
        assert_same(&life.grid().unwrap(), &want, &format!("{kernel} {w}x{h} random"));
        assert_eq!(life.population().unwrap(), want.population(), "{kernel} {w}x{h} random population");
    }
    let refused = BandedLife::random(&gpus, Kernel::Tiled, 10, 10, 1.5, 1);
    assert!(matches!(refused, Err(Error::InvalidInput(_))), "density 1.5: {refused:?}");
    let refused = BandedLife::random(&gpus, Kernel::Tiled, 1 << 20, 1 << 20, 0.5, 1);
    assert!(matches!(refused, Err(Error::LimitExceeded { .. })), "2^40 cells: {refused:?}");
}

/// A glider crosses the border between two bands (and the torus' own seam) many times.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn a_glider_crosses_the_bands() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(gpus) = two_or_one() else { return };
    let glider = warpwork_life::pattern::parse(
        warpwork_life::pattern::builtin("glider").unwrap(),
        &warpwork_life::Limits::DEFAULT,
    )
    .unwrap()
    .grid;
    for kernel in [Kernel::Tiled, Kernel::Bit64T8] {
        let board = warpwork_life::pattern::centred(&glider, 64, 64).unwrap();
        let mut life = BandedLife::new(&gpus, kernel, &board).unwrap();
        life.step(4 * 64).unwrap(); // once round the torus
        assert_same(&life.grid().unwrap(), &board, &format!("{kernel} glider"));
        assert_eq!(life.population().unwrap(), 5);
    }
}

/// A plan no GPU can run is refused before anything is allocated (no GPU needed).
#[test]
fn plans_are_checked_before_any_allocation() {
    let err = |b: Bands, w, h, ranks| match b.split(w, h, ranks) {
        Err(Error::InvalidInput(m)) => m,
        other => panic!("expected InvalidInput, got {other:?}"),
    };
    assert!(err(Bands::new(Kernel::Bit64T8), 64, 15, 2).contains("shorter than the 8-row halo"));
    assert!(err(Bands::new(Kernel::Bit64T8).with_halo(12), 64, 64, 2).contains("multiple of its 8"));
    assert!(err(Bands::new(Kernel::Sparse).with_halo(2), 64, 64, 2).contains("sparse"));
    assert!(err(Bands::new(Kernel::Tiled).with_heights(vec![3, 3]), 8, 7, 2).contains("do not sum"));
    assert!(err(Bands::new(Kernel::Bit64), 65, 64, 2).contains("multiple of 64"));
    assert!(err(Bands::new(Kernel::Tiled), 8, 8, 0).contains("at least one rank"));
    assert_eq!(Bands::new(Kernel::Bit64T12).split(64, 24, 2).unwrap(), [0..12, 12..24]);
}
