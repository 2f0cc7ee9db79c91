//! Every Life kernel against the CPU reference, and the classic patterns. Needs a GPU.
//!
//! `WARPWORK_SMALL=1` shrinks boards and generation counts (for compute-sanitizer runs).

use warpwork::life::{pattern, BitGrid, Kernel, Layout, Life};
mod common;

use common::{gpu, small};
use warpwork_cpu_reference::life as cpu;

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
        let d = got.differences(want);
        panic!("{what}: {} cells differ, first {:?}", d.len(), &d[..d.len().min(8)]);
    }
}

fn check_random(kernel: Kernel, strip_rows: Option<u32>) {
    let gpu = gpu();
    let gens: u64 = if small() { 13 } else { 37 };
    for (w, h) in sizes(kernel) {
        for (i, density) in [0.1, 0.35, 0.5, 0.9].into_iter().enumerate() {
            let start = BitGrid::random(w, h, density, (w * 1000 + h * 10 + i) as u64);
            let mut life = Life::new(&gpu, kernel, &start).unwrap();
            life.set_strip_rows(strip_rows).unwrap();
            let mut want = start.clone();
            // Uneven chunks: temporally blocked kernels finish each chunk with shorter launches.
            for chunk in [1, gens / 2, gens - gens / 2 - 1] {
                if kernel != Kernel::Sparse {
                    life.poison_spare().unwrap();
                }
                life.step(chunk).unwrap();
                want = cpu::step(&want, chunk);
                let what = format!("{kernel} {w}x{h} density {density} generation {}", life.generation());
                assert_same(&life.grid().unwrap(), &want, &what);
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
    pattern::parse(pattern::builtin(name).unwrap()).unwrap().grid
}

/// `g` moved by `(dx, dy)` on its torus.
fn shifted(g: &BitGrid, dx: usize, dy: usize) -> BitGrid {
    let (w, h) = (g.width(), g.height());
    let mut out = BitGrid::new(w, h);
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
