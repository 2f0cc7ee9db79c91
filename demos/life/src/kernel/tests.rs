//! Unit tests of `kernel` (no GPU needed).

use super::*;

fn capacity(r: Result<()>) -> (&'static str, u64, u64) {
    match r {
        Err(Error::CapacityExceeded { what, needed, capacity }) => (what, needed, capacity),
        other => panic!("expected CapacityExceeded, got {other:?}"),
    }
}

#[test]
fn names_round_trip() {
    for k in Kernel::ALL {
        assert_eq!(k.name().parse::<Kernel>().unwrap(), k);
    }
    assert!(matches!("nope".parse::<Kernel>(), Err(Error::InvalidInput(_))));
}

#[test]
fn sizes_are_checked_without_a_gpu() {
    assert!(Kernel::Bit64.check_size(100, 10).is_err());
    assert!(Kernel::Bit32.check_size(96, 10).is_ok());
    assert!(Kernel::Bit64.check_size(96, 10).is_err());
    assert!(Kernel::Naive1d64.check_size(1, 1).is_ok());
    assert!(Kernel::Naive1d64.check_size(0, 5).is_err());
    assert!(Kernel::Naive2d8x8.check_size(8, 65535 * 8).is_ok());
    assert!(Kernel::Naive2d8x8.check_size(8, 65535 * 8 + 1).is_err());
    assert!(Kernel::Tiled.check_size(16, 65535 * 16).is_ok());
    assert!(Kernel::Tiled.check_size(16, 65535 * 16 + 1).is_err());
}

#[test]
fn tiled_refuses_the_widths_its_u32_index_wraps_at() {
    assert!(Kernel::Tiled.check_size((1 << 31) - 1, 1).is_ok());
    assert_eq!(capacity(Kernel::Tiled.check_size(1 << 31, 1)).1, 1 << 31);
    // The worst halo column of the last block stays below 2^32 up to 2^31 − 1, not beyond:
    // (bx + 17 + width − 1) with bx = 16·⌊(width − 1) / 16⌋.
    let worst = |w: u64| 16 * ((w - 1) / 16) + 17 + w - 1;
    assert!(worst((1 << 31) - 1) <= u32::MAX as u64 && worst(1 << 31) > u32::MAX as u64);
    // Every other kernel takes any u32 width (its grid permitting).
    for k in Kernel::ALL.into_iter().filter(|&k| k != Kernel::Tiled) {
        let w = match k.layout() {
            Layout::Bits64 => (1usize << 32) - 64,
            Layout::Bits32 => (1 << 32) - 32,
            _ => u32::MAX as usize,
        };
        assert!(k.check_size(w, 1).is_ok(), "{k} at width {w}");
    }
}

#[test]
fn sides_past_u32_are_refused_by_every_kernel() {
    for k in Kernel::ALL {
        let (what, needed, _) = capacity(k.check_size(1 << 32, 1));
        assert!(what.contains("width") && needed == 1 << 32, "{k}");
        let (what, _, _) = capacity(k.check_size(64, (1 << 32) + 5));
        assert!(what.contains("height"), "{k}");
        assert!(k.check_size(usize::MAX, usize::MAX).is_err(), "{k}");
    }
}

#[test]
fn bit64_heights_leave_room_for_the_halo_steps() {
    for k in Kernel::ALL.into_iter().filter(|k| k.layout() == Layout::Bits64) {
        let max = k.max_height();
        assert_eq!(max + 3 * k.generations_per_launch() as u64, 1 << 32, "{k}");
        assert!(k.check_size(64, max as usize).is_ok(), "{k}");
        assert!(capacity(k.check_size(64, max as usize + 1)).0.contains("height"), "{k}");
    }
}

#[test]
fn one_dimensional_grids_stop_at_2_pow_31_minus_1_blocks() {
    // naive-1d-64: one thread per cell, 64 per block.
    let cells_max = MAX_GRID_X * 64;
    assert!(Kernel::Naive1d64.check_size(64, (cells_max / 64) as usize).is_ok());
    let (what, needed, cap) = capacity(Kernel::Naive1d64.check_size(64, (cells_max / 64 + 1) as usize));
    assert!(what.contains("grid") && needed == MAX_GRID_X + 1 && cap == MAX_GRID_X);
    // The same board is fine with 256 threads per block, and for ballot it is 32 threads
    // per 32 cells however the width rounds.
    assert!(Kernel::Naive1d256.check_size(64, (cells_max / 64 + 1) as usize).is_ok());
    assert!(Kernel::Ballot.check_size(u32::MAX as usize, u32::MAX as usize).is_err());
    // Launch shapes at a strip height the caller chose.
    let cfg = Kernel::Bit64.launch_config(64 * 31, 100, 10).unwrap();
    assert_eq!((cfg.grid_dim.0, cfg.block_dim.0), ((2 * 10 * 32u32).div_ceil(128), 128));
    assert!(Kernel::Bit64.launch_config(1 << 26, u32::MAX - 3, 1).is_err());
}
