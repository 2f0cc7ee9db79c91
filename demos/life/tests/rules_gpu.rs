//! Life-like rules other than B3/S23 on every kernel, against the CPU reference, on odd-sized
//! tori; B0 rules (a dead region turns alive) included. Needs a GPU.
//!
//! `WARPWORK_SMALL=1` shrinks boards and generation counts (for compute-sanitizer runs).

mod common;

use common::{gpu, small};
use warpwork_life::cpu;
use warpwork_life::{BitGrid, Kernel, Layout, Life, Rule};

/// The named rules, then B0 rules (with and without S8: the board alternates or fills up).
const RULES: [&str; 9] = [
    "B36/S23",       // HighLife
    "B3678/S34678",  // Day & Night
    "B2/S",          // Seeds
    "B368/S245",     // Morley
    "B36/S125",      // 2x2
    "B3/S012345678", // Life without death
    "B0/S8",         // B0 with S8: a dead board fills at once and stays full
    "B013/S0123",    // B0 without S8: complemented generations alternate
    "B3/S23",        // Conway's Life through the same test (the specialised path)
];

/// Odd sizes each layout accepts (cell kernels any width; bit kernels whole words, odd heights).
fn sizes(kernel: Kernel) -> Vec<(usize, usize)> {
    let mut v = match kernel.layout() {
        Layout::U32 | Layout::U8 => vec![(1, 1), (3, 5), (31, 33), (33, 31)],
        Layout::Bits32 => vec![(32, 1), (32, 33), (96, 17)],
        Layout::Bits64 => vec![(64, 1), (64, 3), (128, 31), (1984, 45)],
    };
    if !small() {
        v.push(match kernel.layout() {
            Layout::U32 | Layout::U8 => (257, 129),
            _ => (3904, 77),
        });
    }
    v
}

fn to_cpu(g: &BitGrid) -> cpu::BitGrid {
    cpu::BitGrid::from_words(g.width(), g.height(), g.words().to_vec()).expect("same layout")
}

fn from_cpu(g: cpu::BitGrid) -> BitGrid {
    let (w, h) = (g.width(), g.height());
    BitGrid::from_words(w, h, g.into_words()).expect("same layout")
}

fn check(kernel: Kernel) {
    let gpu = gpu();
    let gens: u64 = if small() { 9 } else { 21 };
    for (r, text) in RULES.iter().enumerate() {
        let rule: Rule = text.parse().unwrap();
        for (w, h) in sizes(kernel) {
            for (i, density) in [0.0, 0.2, 0.5].into_iter().enumerate() {
                let start = BitGrid::random(w, h, density, (r * 100 + w + h + i) as u64).unwrap();
                let mut life = Life::new(&gpu, kernel, &start).unwrap();
                life.set_rule(rule).unwrap();
                let mut want = to_cpu(&start);
                // Uneven chunks: temporally blocked kernels finish each with shorter launches.
                for chunk in [1, gens / 2, gens - gens / 2 - 1] {
                    if kernel != Kernel::Sparse {
                        life.poison_spare().unwrap();
                    }
                    life.step(chunk).unwrap();
                    want = cpu::step_with(&want, rule, chunk);
                    let got = life.grid().unwrap();
                    let want = from_cpu(want.clone());
                    let what = format!("{kernel} {rule} {w}x{h} density {density} generation {}", life.generation());
                    assert!(got == want, "{what}: boards differ, first at {:?}", got.differences(&want, 8));
                }
                assert_eq!(life.population().unwrap(), want.population(), "{kernel} {rule} {w}x{h} population");
            }
        }
    }
}

macro_rules! rule_tests {
    ($($name:ident: $kernel:expr;)*) => {$(
        #[test]
        #[ignore = "needs a GPU: run the GPU suite"]
        fn $name() {
            check($kernel);
        }
    )*};
}

rule_tests! {
    naive_1d_64_runs_every_rule: Kernel::Naive1d64;
    naive_1d_256_runs_every_rule: Kernel::Naive1d256;
    naive_2d_8x8_runs_every_rule: Kernel::Naive2d8x8;
    naive_2d_16x16_runs_every_rule: Kernel::Naive2d16x16;
    sparse_runs_every_rule: Kernel::Sparse;
    multi_runs_every_rule: Kernel::Multi;
    tiled_runs_every_rule: Kernel::Tiled;
    byte_runs_every_rule: Kernel::Byte;
    ballot_runs_every_rule: Kernel::Ballot;
    bit32_runs_every_rule: Kernel::Bit32;
    bit64_runs_every_rule: Kernel::Bit64;
    bit64_t2_runs_every_rule: Kernel::Bit64T2;
    bit64_t4_runs_every_rule: Kernel::Bit64T4;
    bit64_t8_runs_every_rule: Kernel::Bit64T8;
    bit64_t12_runs_every_rule: Kernel::Bit64T12;
    bit64_t8_flat_runs_every_rule: Kernel::Bit64T8Flat;
}

/// B0 on a torus, exactly: an empty board under B0/S8 is full after one generation and stays
/// full; under B0/S (no survival) it alternates between full and empty. Every kernel, odd sizes:
/// no kernel may treat cells past the board (padding bits, halos) as dead neighbours.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn b0_fills_an_empty_torus_on_every_kernel() {
    let gpu = gpu();
    for kernel in Kernel::ALL {
        for (w, h) in sizes(kernel) {
            let cells = (w * h) as u64;
            let mut life = Life::empty(&gpu, kernel, w, h).unwrap();
            life.set_rule("B0/S8".parse().unwrap()).unwrap();
            for g in 1..=3 {
                life.step(1).unwrap();
                assert_eq!(life.population().unwrap(), cells, "{kernel} B0/S8 {w}x{h} generation {g}");
            }
            life.set_rule("B0/S".parse().unwrap()).unwrap();
            for g in 4..=7u64 {
                life.step(1).unwrap();
                let want = if g % 2 == 0 { 0 } else { cells };
                assert_eq!(life.population().unwrap(), want, "{kernel} B0/S {w}x{h} generation {g}");
            }
        }
    }
}

/// The LifeWiki facts the CLI tests check on the CPU reference, on every kernel: HighLife's
/// replicator is two copies of itself (2 cells up-left and down-right) after 12 generations, Day
/// & Night's skewed tetromino has period 2, a Seeds domino has 2, 4, 6, 8, 14 cells in
/// generations 0 to 4.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn lifewiki_facts_hold_on_every_kernel() {
    use warpwork_life::{pattern, Limits};
    let gpu = gpu();
    let read = |rle: &str| pattern::parse(rle, &Limits::DEFAULT).unwrap();
    let replicator = read("x = 5, y = 5, rule = B36/S23\n2b3o$bo2bo$o3bo$o2bo$3o!");
    let tetromino = read("x = 3, y = 2, rule = B3678/S34678\n2o$b2o!");
    let domino = read("x = 2, y = 1, rule = B2/S\n2o!");
    // The replicator centred on a 64x64 board sits at (29, 29); its copies at (27, 27) and (31, 31).
    let mut copies = pattern::place(&replicator.grid, 64, 64, 27, 27).unwrap();
    let other = pattern::place(&replicator.grid, 64, 64, 31, 31).unwrap();
    for y in 0..64 {
        for x in 0..64 {
            if other.get(x, y) {
                copies.set(x, y, true);
            }
        }
    }
    for kernel in Kernel::ALL {
        let run = |p: &pattern::Pattern, gens: u64| {
            let mut life = Life::with_pattern(&gpu, kernel, 64, 64, &p.grid).unwrap();
            life.set_rule(p.rule.unwrap().rule).unwrap();
            life.step(gens).unwrap();
            life
        };
        assert!(run(&replicator, 12).grid().unwrap() == copies, "{kernel}: HighLife replicator after 12 generations");
        let start = pattern::centred(&tetromino.grid, 64, 64).unwrap();
        assert!(run(&tetromino, 1).grid().unwrap() != start, "{kernel}: Day & Night tetromino after 1 generation");
        assert!(run(&tetromino, 2).grid().unwrap() == start, "{kernel}: Day & Night tetromino after 2 generations");
        let pops: Vec<u64> = (0..5).map(|g| run(&domino, g).population().unwrap()).collect();
        assert_eq!(pops, [2, 4, 6, 8, 14], "{kernel}: Seeds domino");
    }
}

/// The rule changed between steps on one board: the bit kernels move between rule modules (each
/// loaded once per context and rule) and B3/S23's twins, and every chunk matches the CPU
/// reference.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn the_rule_changes_between_steps() {
    let gpu = gpu();
    let rules: Vec<Rule> =
        ["B36/S23", "B3/S23", "B2/S", "B36/S23", "B3/S23", "B0/S8"].iter().map(|r| r.parse().unwrap()).collect();
    for kernel in [Kernel::Naive1d64, Kernel::Bit32, Kernel::Bit64, Kernel::Bit64T12, Kernel::Bit64T8Flat] {
        let start = BitGrid::random(1984, 45, 0.35, 9).unwrap();
        let mut life = Life::new(&gpu, kernel, &start).unwrap();
        let mut want = to_cpu(&start);
        for &rule in &rules {
            life.set_rule(rule).unwrap();
            life.step(13).unwrap();
            want = cpu::step_with(&want, rule, 13);
            let want = from_cpu(want.clone());
            assert!(life.grid().unwrap() == want, "{kernel} after {rule}, generation {}", life.generation());
        }
    }
}
