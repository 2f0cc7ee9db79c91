//! Bands kept once and stepped through windows ([`Bands::with_window`]) against one GPU
//! ([`Life`]): the same cells and populations for several kernels, windows of the halo's depth
//! (the least allowed), windows that do not divide the band (a shorter last window), windows
//! as tall as the band or taller, deeper halos, other rules, several rounds and step counts
//! that are no multiple of the halo, on one rank and on two. Needs the feature `nccl`, a GPU
//! and `libnccl.so` on the loader path; the two-rank tests skip (with a message) on a machine
//! of one GPU, every GPU test skips without NCCL. The plan's checks are the library's unit
//! tests (no GPU).
//!
//! `WARPWORK_SMALL=1` shrinks boards and generation counts.

mod common;

use common::bands::{assert_same, compare as compare_steps, gpus, ONE_AT_A_TIME};
use common::small;
use warpwork::multi::Gpus;
use warpwork::{Error, Gpu};
use warpwork_life::{BandedLife, Bands, BitGrid, Kernel, Life, Rule};

/// `plan` on `gpus` against one GPU from `start` under `rule` ([`common::bands::compare`]):
/// after each of several steps, in all `1 + 5 + 7 + 24 + (3·halo + 2)` generations (some
/// rounds cut short); fewer when small.
fn compare(gpus: &Gpus, plan: &Bands, start: &BitGrid, rule: Rule, what: &str) {
    let rounds = 3 * plan.halo() as u64 + 2;
    let chunks: &[u64] = if small() { &[1, 5, rounds] } else { &[1, 5, 7, 24, rounds] };
    compare_steps(gpus, plan, start, rule, chunks, what);
}

/// The windows tried on bands of at least `shortest` rows with halo `d`: the least (`d`), one
/// more (dividing no band of the sizes below), a few times the halo, the shortest band's
/// height and more than any band (the last two only the first when small).
fn windows(d: usize, shortest: usize) -> Vec<usize> {
    let mut v = if small() { vec![d, d + 1, shortest] } else { vec![d, d + 1, 3 * d + 2, shortest, 1 << 20] };
    v.sort_unstable();
    v.dedup();
    v
}

/// The kernels and plans every window runs: a cell kernel of each layout, the bit kernels of 1,
/// 4, 8 and 12 generations per launch and the flat one, default and deeper halos, on boards
/// of odd heights (`w × h`).
fn plans() -> Vec<(Bands, usize, usize)> {
    let mut v = vec![
        (Bands::new(Kernel::Tiled), 33, 41),
        (Bands::new(Kernel::Tiled).with_halo(3), 100, 77),
        (Bands::new(Kernel::Byte).with_halo(2), 65, 45),
        (Bands::new(Kernel::Naive1d256), 31, 29),
        (Bands::new(Kernel::Ballot), 70, 33),
        (Bands::new(Kernel::Bit32), 96, 37),
        (Bands::new(Kernel::Bit64), 128, 31),
        (Bands::new(Kernel::Bit64T4).with_halo(8), 192, 53),
        (Bands::new(Kernel::Bit64T8), 192, 77),
        (Bands::new(Kernel::Bit64T12), 128, 61),
        (Bands::new(Kernel::Bit64T8Flat), 1984, 45),
        (Bands::new(Kernel::Bit64T8Flat).with_halo(16), 256, 99),
    ];
    if !small() {
        v.push((Bands::new(Kernel::Bit64T8Flat), 3904, 301));
        v.push((Bands::new(Kernel::Bit64T8), 4096, 1000));
    }
    v
}

/// Every plan of [`plans`] with every window of [`windows`] over `ranks` GPUs, B3/S23.
fn every_window(ranks: usize) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(gpus) = gpus(ranks) else { return };
    for (plan, w, h) in plans() {
        let d = plan.halo();
        let start = BitGrid::random(w, h, 0.35, (w * 1000 + h) as u64).unwrap();
        let shortest = h / ranks;
        for r in windows(d, shortest) {
            let windowed = plan.clone().with_window(r);
            let what = format!("{} {w}x{h} over {ranks}, halo {d}, window {r}", plan.kernel());
            compare(&gpus, &windowed, &start, Rule::CONWAY, &what);
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn one_rank_windows_match_one_gpu() {
    every_window(1);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn two_rank_windows_match_one_gpu() {
    every_window(2);
}

/// Uneven bands (the thinnest of one halo), other rules (a B0 rule among them: the whole torus
/// is born at once, halos and windows included), and the strip height of the bit kernels set,
/// on two ranks (one when the machine has one GPU).
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn uneven_bands_and_other_rules_match_one_gpu() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let two = Gpu::device_count().expect("the GPU suite needs a CUDA driver") >= 2;
    let Some(gpus) = gpus(if two { 2 } else { 1 }) else { return };
    let heights = |d: usize, h: usize| if two { vec![d, h - d] } else { vec![h] };
    for rule in ["B3/S23", "B36/S23", "B0/S8", "B2/S"] {
        let rule: Rule = rule.parse().unwrap();
        for (kernel, w, h, r) in [
            (Kernel::Tiled, 77, 53, 4),
            (Kernel::Byte, 40, 30, 1),
            (Kernel::Bit32, 64, 40, 3),
            (Kernel::Bit64T8, 192, 70, 8),
            (Kernel::Bit64T8Flat, 128, 64, 20),
        ] {
            let d = Bands::new(kernel).halo();
            let plan = Bands::new(kernel).with_heights(heights(d, h)).with_window(r.max(d));
            let start = BitGrid::random(w, h, 0.3, 11).unwrap();
            compare(&gpus, &plan, &start, rule, &format!("{kernel} {rule} {w}x{h} window {}", r.max(d)));
        }
    }
    // Strips shorter than a window, and taller.
    for strip in [3, 64] {
        let plan = Bands::new(Kernel::Bit64T8).with_window(9);
        let start = BitGrid::random(256, 90, 0.4, 2).unwrap();
        let mut banded = BandedLife::new(&gpus, plan, &start).unwrap();
        let mut single = Life::new(gpus.gpu(0), Kernel::Bit64T8, &start).unwrap();
        banded.set_strip_rows(Some(strip)).unwrap();
        banded.step(29).unwrap();
        single.step(29).unwrap();
        assert_same(&banded.grid().unwrap(), &single.grid().unwrap(), &format!("strips of {strip} rows"));
    }
}

/// `random` with windows makes the cells of [`BitGrid::random`]; a glider crosses the windows'
/// and the bands' borders many times; an exchange alone changes nothing.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn random_boards_gliders_and_exchanges() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let two = Gpu::device_count().expect("the GPU suite needs a CUDA driver") >= 2;
    let Some(gpus) = gpus(if two { 2 } else { 1 }) else { return };
    for (kernel, w, h, r) in [(Kernel::Byte, 999, 777, 100), (Kernel::Bit64T8, 4096, 1000, 77)] {
        let plan = Bands::new(kernel).with_window(r);
        let mut life = BandedLife::random(&gpus, plan, w, h, 0.3, 9).unwrap();
        let want = BitGrid::random(w, h, 0.3, 9).unwrap();
        assert_same(&life.grid().unwrap(), &want, &format!("{kernel} {w}x{h} random"));
        assert_eq!(life.population().unwrap(), want.population(), "{kernel} {w}x{h} random population");
        life.step(20).unwrap();
        let before = life.grid().unwrap();
        life.exchange().unwrap();
        life.exchange().unwrap();
        assert_same(&life.grid().unwrap(), &before, &format!("{kernel} exchanges alone"));
    }
    let glider = warpwork_life::pattern::parse(
        warpwork_life::pattern::builtin("glider").unwrap(),
        &warpwork_life::Limits::DEFAULT,
    )
    .unwrap()
    .grid;
    for (kernel, r) in [(Kernel::Tiled, 3), (Kernel::Bit64T8, 8)] {
        let board = warpwork_life::pattern::centred(&glider, 64, 64).unwrap();
        let mut life = BandedLife::new(&gpus, Bands::new(kernel).with_window(r), &board).unwrap();
        life.step(4 * 64).unwrap(); // once round the torus
        assert_same(&life.grid().unwrap(), &board, &format!("{kernel} glider through windows of {r}"));
        assert_eq!(life.population().unwrap(), 5);
    }
    let refused = BandedLife::new(&gpus, Bands::new(Kernel::Sparse).with_window(4), &BitGrid::new(8, 64).unwrap());
    assert!(matches!(refused, Err(Error::InvalidInput(_))), "sparse through windows: {refused:?}");
}
