//! Every Life kernel against the CPU reference, and the classic patterns. Needs a GPU.
//!
//! `WARPWORK_SMALL=1` shrinks boards and generation counts (for compute-sanitizer runs).

mod common;

use common::{gpu, small};
use warpwork::Error;
use warpwork_life::cpu;
use warpwork_life::{pattern, BitGrid, Kernel, Layout, Life, Limits};

/// Board sizes a kernel accepts, odd ones included (not multiples of the block or warp).
fn sizes(kernel: Kernel) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = match kernel.layout() {
        Layout::U32 | Layout::U8 => vec![(1, 1), (2, 3), (3, 1), (31, 33), (33, 31), (64, 64), (100, 77), (257, 129)],
        Layout::Bits32 => vec![(32, 1), (32, 33), (96, 17), (160, 65), (1024, 31)],
        // 31 words spill into a second warp chunk; 61 into a third.
        Layout::Bits64 => vec![(64, 1), (64, 3), (128, 31), (192, 77), (1984, 45), (3904, 20)],
    };
    if !small() {
        v.push(match kernel.layout() {
            Layout::U32 | Layout::U8 => (1000, 301),
            _ => (4096, 257),
        });
    }
    v
}

fn assert_same(got: &BitGrid, want: &BitGrid, what: &str) {
    if got != want {
        let d = got.differences(want, 8);
        panic!(
            "{what}: the boards differ ({}x{} and {}x{}), first at {d:?}",
            got.width(),
            got.height(),
            want.width(),
            want.height()
        );
    }
}

/// The CPU reference's board of the same cells (the same packed layout: no copy of the words'
/// meaning, one copy of the words).
fn to_cpu(g: &BitGrid) -> cpu::BitGrid {
    cpu::BitGrid::from_words(g.width(), g.height(), g.words().to_vec()).expect("same layout")
}

/// The library's board of a CPU reference board.
fn from_cpu(g: cpu::BitGrid) -> BitGrid {
    let (w, h) = (g.width(), g.height());
    BitGrid::from_words(w, h, g.into_words()).expect("same layout")
}

fn check_random(kernel: Kernel, strip_rows: Option<u32>) {
    let gpu = gpu();
    let gens: u64 = if small() { 13 } else { 37 };
    for (w, h) in sizes(kernel) {
        for (i, density) in [0.1, 0.35, 0.5, 0.9].into_iter().enumerate() {
            let start = BitGrid::random(w, h, density, (w * 1000 + h * 10 + i) as u64).unwrap();
            let mut life = Life::new(&gpu, kernel, &start).unwrap();
            life.set_strip_rows(strip_rows).unwrap();
            let mut want = to_cpu(&start);
            // Uneven chunks: temporally blocked kernels finish each chunk with shorter launches.
            for chunk in [1, gens / 2, gens - gens / 2 - 1] {
                if kernel != Kernel::Sparse {
                    life.poison_spare().unwrap();
                }
                life.step(chunk).unwrap();
                want = cpu::step(&want, chunk);
                let what = format!("{kernel} {w}x{h} density {density} generation {}", life.generation());
                assert_same(&life.grid().unwrap(), &from_cpu(want.clone()), &what);
            }
            assert_eq!(life.population().unwrap(), want.population());
        }
    }
}

macro_rules! random_tests {
    ($($name:ident: $kernel:expr, $strip:expr;)*) => {$(
        #[test]
        #[ignore = "needs a GPU: run the GPU suite"]
        fn $name() {
            check_random($kernel, $strip);
        }
    )*};
}

random_tests! {
    naive_1d_64_matches_cpu: Kernel::Naive1d64, None;
    naive_1d_256_matches_cpu: Kernel::Naive1d256, None;
    naive_2d_8x8_matches_cpu: Kernel::Naive2d8x8, None;
    naive_2d_16x16_matches_cpu: Kernel::Naive2d16x16, None;
    sparse_matches_cpu: Kernel::Sparse, None;
    multi_matches_cpu: Kernel::Multi, None;
    tiled_matches_cpu: Kernel::Tiled, None;
    byte_matches_cpu: Kernel::Byte, None;
    ballot_matches_cpu: Kernel::Ballot, None;
    bit32_matches_cpu: Kernel::Bit32, None;
    bit64_matches_cpu: Kernel::Bit64, None;
    bit64_t2_matches_cpu: Kernel::Bit64T2, None;
    bit64_t4_matches_cpu: Kernel::Bit64T4, None;
    bit64_t8_matches_cpu: Kernel::Bit64T8, None;
    bit64_t12_matches_cpu: Kernel::Bit64T12, None;
    bit64_t8_flat_matches_cpu: Kernel::Bit64T8Flat, None;
    bit64_t8_flat_short_strips_match_cpu: Kernel::Bit64T8Flat, Some(3);
    bit64_t8_short_strips_match_cpu: Kernel::Bit64T8, Some(5);
    bit64_t12_one_row_strips_match_cpu: Kernel::Bit64T12, Some(1);
    bit64_t4_tall_strips_match_cpu: Kernel::Bit64T4, Some(100);
}

fn builtin(name: &str) -> BitGrid {
    pattern::parse(pattern::builtin(name).unwrap(), &Limits::DEFAULT).unwrap().grid
}

/// `g` moved by `(dx, dy)` on its torus.
fn shifted(g: &BitGrid, dx: usize, dy: usize) -> BitGrid {
    let (w, h) = (g.width(), g.height());
    let mut out = BitGrid::new(w, h).unwrap();
    for y in 0..h {
        for x in 0..w {
            if g.get(x, y) {
                out.set((x + dx) % w, (y + dy) % h, true);
            }
        }
    }
    out
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn still_lifes_stay_and_oscillators_return() {
    let gpu = gpu();
    for kernel in Kernel::ALL {
        for (name, period) in [("block", 1), ("beehive", 1), ("blinker", 2), ("toad", 2), ("pulsar", 3)] {
            let start = pattern::centred(&builtin(name), 64, 64).unwrap();
            let mut life = Life::new(&gpu, kernel, &start).unwrap();
            for k in 1..=4 {
                life.step(period).unwrap();
                assert_same(&life.grid().unwrap(), &start, &format!("{kernel} {name} after {} periods", k));
            }
            if period > 1 {
                life.step(1).unwrap();
                assert_ne!(life.grid().unwrap(), start, "{kernel} {name} should change within its period");
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn glider_moves_diagonally_and_wraps() {
    let gpu = gpu();
    let glider = builtin("glider");
    for kernel in Kernel::ALL {
        // Start at the bottom-right corner so that it crosses both edges at once.
        let start = pattern::place(&glider, 64, 64, 61, 61).unwrap();
        let mut life = Life::new(&gpu, kernel, &start).unwrap();
        let mut want = start.clone();
        for k in 1..=5 {
            life.step(4).unwrap();
            want = shifted(&want, 1, 1);
            assert_same(&life.grid().unwrap(), &want, &format!("{kernel} glider after {} generations", 4 * k));
        }
        // 64 cells diagonally take 256 generations: back home.
        life.step(256 - 20).unwrap();
        assert_same(&life.grid().unwrap(), &start, &format!("{kernel} glider around the torus"));
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn rectangular_torus_and_sizes_a_kernel_cannot_take() {
    let gpu = gpu();
    // A glider on a 128x8 torus: wraps vertically 16 times while crossing horizontally once.
    let glider = builtin("glider");
    let start = pattern::place(&glider, 128, 8, 0, 0).unwrap();
    for kernel in [Kernel::Naive1d256, Kernel::Ballot, Kernel::Bit32, Kernel::Bit64, Kernel::Bit64T8] {
        let mut life = Life::new(&gpu, kernel, &start).unwrap();
        life.step(4 * 128).unwrap();
        assert_same(&life.grid().unwrap(), &start, &format!("{kernel} 128x8"));
    }
    assert!(Life::empty(&gpu, Kernel::Bit64, 100, 100).is_err());
    assert!(Life::empty(&gpu, Kernel::Bit32, 48, 100).is_err());
    assert!(Life::empty(&gpu, Kernel::Naive1d64, 0, 100).is_err());
    assert!(Life::random(&gpu, Kernel::Naive1d64, 10, 10, 1.5, 1).is_err());
}

/// Boards larger than one transfer chunk (2^20 cells or 32-bit words) in every layout: uploads
/// and read-backs convert a chunk at a time, with a short last chunk and, for rows wider than a
/// chunk, chunks that end inside a row.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn boards_cross_transfer_chunks_intact() {
    let gpu = gpu();
    // (kernel, width, height): u32 and u8 cells, bit32 rows ending in half a 64-bit word, and
    // bit32 / bit64 rows of whole words.
    for (kernel, w, h) in [
        (Kernel::Tiled, 1500, 1401),
        (Kernel::Byte, 1500, 1401),
        (Kernel::Sparse, 3, 700_001),
        (Kernel::Bit32, 32 * 33, 40_001),
        (Kernel::Bit32, 64 * 17, 20_001),
        (Kernel::Bit64, 64 * 17, 20_001),
        (Kernel::Naive1d256, (1 << 20) + 3, 3),
        (Kernel::Byte, (1 << 20) + 3, 3),
        (Kernel::Bit32, 32 * ((1 << 20) + 1), 3),
    ] {
        let start = BitGrid::random(w, h, 0.3, w as u64 ^ h as u64).unwrap();
        let mut life = Life::new(&gpu, kernel, &start).unwrap();
        assert_same(&life.grid().unwrap(), &start, &format!("{kernel} {w}x{h} read back"));
        assert_eq!(life.population().unwrap(), start.population());
        life.step(2).unwrap();
        let want = from_cpu(cpu::step(&to_cpu(&start), 2));
        assert_same(&life.grid().unwrap(), &want, &format!("{kernel} {w}x{h} after 2 generations"));
    }
}

/// The 2^31 rule: `tiled` indexes halo columns in u32 as `(x + width − 1) % width`, correct up
/// to a width of 2^31 − 1 and refused from 2^31 on. At the boundary it must match the CPU
/// reference across the seam (16 GiB of u32 cells on the device, 256 MiB of bits on the host).
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn tiled_at_the_2_pow_31_boundary_wraps_correctly() {
    if small() {
        return; // too large for the sanitizer runs
    }
    let gpu = gpu();
    let w = (1usize << 31) - 1;
    assert!(matches!(Life::empty(&gpu, Kernel::Tiled, w + 1, 1), Err(Error::CapacityExceeded { .. })));
    let mut start = BitGrid::random(w, 1, 0.4, 31).unwrap();
    // Live cells on both sides of the seam and in the last (partial) tile.
    for x in [0, 1, 2, w - 1, w - 2, w - 3, w - 17, w - 18] {
        start.set(x, 0, true);
    }
    let want = from_cpu(cpu::step(&to_cpu(&start), 3));
    for kernel in [Kernel::Tiled, Kernel::Naive1d256] {
        let mut life = Life::new(&gpu, kernel, &start).unwrap();
        life.poison_spare().unwrap();
        life.step(3).unwrap();
        assert_same(&life.grid().unwrap(), &want, &format!("{kernel} {w}x1"));
    }
}
