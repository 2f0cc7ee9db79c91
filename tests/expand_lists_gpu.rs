//! GPU tests of S2.5f's lists: pass 1 lists the non-empty sources of a tile of 2048 sources
//! where each of its eight parts of 256 has at most 64 of them and 2^21 items, and pass 2 reads
//! the list instead of scanning the counts. Tiles on each side of both limits, and one expander
//! alternating sparse inputs (lists written) with dense ones (not listed) and the one launch
//! (which writes no lists), so that no pass 2 reads a list that an earlier run left; and runs
//! of listed tiles, which pass 2 reads up to four at a time. Outputs
//! are poisoned; pairs past the count must stay so.

mod common;

use common::{check_pairs, expand_and_check, gpu, is_poisoned, poisoned};
use warpwork::expand::{Dispatch, Strategy};
use warpwork_cpu_reference::{expand as cpu, inputs};

/// Sources per tile (`FUSED_TILE`), and per part (a pass-1 warp's).
const TILE: usize = 2048;
const PART: usize = 256;
/// The most items of a listed part.
const ITEMS: u32 = 1 << 21;

/// Tiles on each side of the limits: 0, a part of 64 sources of one item (listed); 1, a part
/// of 65 (not); 2, one source of 2^21 items, the tile's last (listed); 3, a part of 2^21 + 1
/// items (not); 4, a part of 2^21 items whose last source starts at item 2^21 - 1 (the largest
/// first item an entry holds) and another part of 64 sources (listed, with 2^21 items before
/// that part); 5, none; 6, a short last tile of 100 sources, 40 of one item
/// (listed).
fn edge_tiles() -> Vec<u32> {
    let mut c = vec![0u32; 6 * TILE + 100];
    let tile = |k: usize| k * TILE;
    for i in 0..64 {
        c[tile(0) + 4 * i] = 1;
    }
    for i in 0..65 {
        c[tile(1) + 3 * PART + 3 * i] = 1;
    }
    c[tile(2) + TILE - 1] = ITEMS;
    c[tile(3) + PART + 7] = ITEMS;
    c[tile(3) + PART + 200] = 1;
    c[tile(4) + 2 * PART] = ITEMS - 63;
    for i in 1..64 {
        c[tile(4) + 2 * PART + 3 * i] = 1;
    }
    for i in 0..64 {
        c[tile(4) + 5 * PART + 4 * i] = 3;
    }
    for i in 0..40 {
        c[tile(6) + 2 * i] = 1;
    }
    c
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn tiles_on_each_side_of_the_list_limits_match_cpu() {
    let gpu = gpu();
    let c = edge_tiles();
    for dispatch in [Dispatch::Persistent, Dispatch::ReadBack] {
        expand_and_check(&gpu, &c, Strategy::ScanFused, dispatch, &format!("edge tiles {dispatch:?}"));
    }
    // Every tile listed, one source in eight with a few items (a claim's units then span
    // several listed tiles).
    let every_8th: Vec<u32> = (0..40 * TILE + 3).map(|i| if i % 8 == 5 { 1 + (i / 8 % 5) as u32 } else { 0 }).collect();
    expand_and_check(&gpu, &every_8th, Strategy::ScanFused, Dispatch::Persistent, "every 8th source");
}

/// Pass 2 reads the lists of up to four consecutive listed tiles as one part where a claim
/// runs on into them: runs of listed tiles (one to seven, a few items each, so that a claim's
/// units span several) broken by a tile that is not listed (dense), by an empty tile and by the
/// input's end, both dispatches, at a tile count that is not a multiple of four.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn parts_over_several_listed_tiles_match_cpu() {
    let gpu = gpu();
    // Per tile: 's' sparse (one source in 16, 1 to 4 items: listed), 'd' dense (not listed),
    // 'e' empty.
    let layout = "ssdsesssssssdsssssesdssss";
    let mut c = vec![0u32; layout.len() * TILE - 5];
    for (k, kind) in layout.chars().enumerate() {
        for i in k * TILE..((k + 1) * TILE).min(c.len()) {
            c[i] = match kind {
                's' if i % 16 == k % 16 => 1 + (i / 16 % 4) as u32,
                'd' => (i % 7) as u32,
                _ => 0,
            };
        }
    }
    for dispatch in [Dispatch::Persistent, Dispatch::ReadBack] {
        expand_and_check(&gpu, &c, Strategy::ScanFused, dispatch, &format!("listed runs {dispatch:?}"));
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn one_expander_alternating_sparse_and_dense_inputs() {
    let gpu = gpu();
    let p1 = 9 * TILE + 17;
    let sparse: Vec<u32> = inputs::flags(p1, 3, 0.05)
        .iter()
        .zip(inputs::uniform_range(p1, 4, 1, 40))
        .map(|(&k, n)| if k != 0 { n } else { 0 })
        .collect();
    let dense = inputs::uniform_range(p1, 5, 0, 40);
    let capacity = cpu::total(&sparse).max(cpu::total(&dense)) as usize;
    let mut e = gpu.expander(Strategy::ScanFused, p1, capacity).unwrap();
    let mut out = poisoned::<[u32; 2]>(&gpu, capacity);
    let d = [gpu.upload(&sparse).unwrap(), gpu.upload(&dense).unwrap()];
    // (input, form): 0 both passes apart, 1 the one launch.
    for (run, (which, form)) in [(0, 0), (1, 0), (0, 0), (1, 1), (0, 1), (1, 0), (0, 0)].into_iter().enumerate() {
        let counts = if which == 0 { &sparse } else { &dense };
        let total = cpu::total(counts) as usize;
        let what = format!("run {run}: {} input, form {form}", ["sparse", "dense"][which]);
        gpu.fill_bytes(&mut out, common::POISON).unwrap();
        let count = if form == 0 {
            let mut planned = e.pass1(&gpu, &d[which]).unwrap();
            planned.pass2(&gpu, &mut out, Dispatch::Persistent).unwrap();
            planned.count(&gpu)
        } else {
            e.expand(&gpu, &d[which], &mut out).unwrap().count(&gpu)
        }
        .unwrap_or_else(|err| panic!("{what}: {err}"));
        assert_eq!(count, total, "{what}: count");
        let got = gpu.download(&out).unwrap();
        assert!(is_poisoned(&got[total..]), "{what}: wrote past the count");
        check_pairs(counts, &got[..total], true, &what);
    }
}
