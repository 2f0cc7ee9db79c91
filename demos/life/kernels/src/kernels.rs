//! The exported kernels (`life_*`, named in [`crate::abi::kernels`]): thin launches of the
//! bodies in [`crate::cells`], [`crate::bits`] and [`crate::population`].
//!
//! Cell kernels take `(src, dst, width, height, rule)` with one `u32` (or `u8`) per cell, `rule`
//! the packed rule ([`crate::abi::pack_rule`]); the bit kernels take `(src, dst, words_per_row,
//! height, ...)` with one bit per cell and have the rule in their code. The host picks the launch
//! shape (`Kernel::launch_config` in the host crate's `src/kernel.rs`).
//!
//! Each bit kernel comes twice: `life_bit*` has the rule in the truth tables of five `lop3`s
//! ([`crate::bits::Lut`]), built with B3/S23's and rewritten by the host for a rule before it
//! loads them; `life_bit*_b3s23` is B3/S23 in its specialised form (one logic instruction per
//! word fewer), which the host launches for that rule.

use crate::abi::{BIT64_OUT_LANES, MULTI_CELLS};
use crate::bits::{bit32_word, bit64_strip, Conway, Link, Lut, SlicedRule, Stages};
use crate::cells::{ballot_cells, multi_cells, naive_cell, sparse_cell, tiled_cells};
use warpwork_kernels::arch::{
    block_dim_x, block_dim_y, block_idx_x, block_idx_y, global_thread_idx, thread_idx_x, thread_idx_y,
};
use warpwork_kernels::static_shared;

/// Brute force, one thread per cell, 1D launch (any block size): thread `i` takes cell `i`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn life_naive_1d(src: *const u32, dst: *mut u32, width: u32, height: u32, rule: u32) {
    let i = global_thread_idx();
    if i < width as u64 * height as u64 {
        naive_cell(src, dst, width, height, (i % width as u64) as u32, (i / width as u64) as u32, rule);
    }
}

/// Brute force, one thread per cell, 2D launch (any block shape).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn life_naive_2d(src: *const u32, dst: *mut u32, width: u32, height: u32, rule: u32) {
    let x = block_idx_x() * block_dim_x() + thread_idx_x();
    let y = block_idx_y() * block_dim_y() + thread_idx_y();
    if x < width && y < height {
        naive_cell(src, dst, width, height, x, y, rule);
    }
}

/// One byte per cell, otherwise [`life_naive_1d`].
#[no_mangle]
pub unsafe extern "ptx-kernel" fn life_byte(src: *const u8, dst: *mut u8, width: u32, height: u32, rule: u32) {
    let i = global_thread_idx();
    if i < width as u64 * height as u64 {
        naive_cell(src, dst, width, height, (i % width as u64) as u32, (i / width as u64) as u32, rule);
    }
}

/// Sparse write-skip, one thread per cell, 1D launch.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn life_sparse(src: *const u32, dst: *mut u32, width: u32, height: u32, rule: u32) {
    let i = global_thread_idx();
    if i < width as u64 * height as u64 {
        sparse_cell(src, dst, width, height, (i % width as u64) as u32, (i / width as u64) as u32, rule);
    }
}

/// [`MULTI_CELLS`] cells of a row per thread, 1D launch over `ceil(width / MULTI_CELLS) · height`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn life_multi(src: *const u32, dst: *mut u32, width: u32, height: u32, rule: u32) {
    let per_row = width.div_ceil(MULTI_CELLS as u32) as u64;
    let i = global_thread_idx();
    if i < per_row * height as u64 {
        let (cx, y) = ((i % per_row) as u32, (i / per_row) as u32);
        multi_cells(src, dst, width, height, cx * MULTI_CELLS as u32, y, rule);
    }
}

/// Shared tile with halo: `TILE × TILE` blocks over a 2D grid.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn life_tiled(src: *const u32, dst: *mut u32, width: u32, height: u32, rule: u32) {
    let tile = static_shared!(LIFE_TILE: [u32; crate::cells::TILE_SHARED]);
    tiled_cells(src, dst, width, height, tile, rule);
}

/// Ballot counting: one warp per 32 cells of a row, 1D launch of whole warps over
/// `ceil(width / 32) · height` warps.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn life_ballot(src: *const u32, dst: *mut u32, width: u32, height: u32, rule: u32) {
    let per_row = width.div_ceil(32) as u64;
    let warp = global_thread_idx() / 32;
    if warp < per_row * height as u64 {
        let (cx, y) = ((warp % per_row) as u32, (warp / per_row) as u32);
        ballot_cells(src, dst, width, height, cx * 32, y, rule);
    }
}

/// One bit per cell, one 32-bit word per thread, 1D launch over `words_per_row · height`: the
/// rule in the `lop3` tables ([`Lut`]).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn life_bit32(src: *const u32, dst: *mut u32, words_per_row: u32, height: u32) {
    bit32_launch(src, dst, words_per_row, height, Lut);
}

/// [`life_bit32`] for B3/S23 only, in its specialised form (the host launches it for that rule).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn life_bit32_b3s23(src: *const u32, dst: *mut u32, words_per_row: u32, height: u32) {
    bit32_launch(src, dst, words_per_row, height, Conway);
}

#[inline(always)]
unsafe fn bit32_launch<R: SlicedRule>(src: *const u32, dst: *mut u32, words_per_row: u32, height: u32, rule: R) {
    let i = global_thread_idx();
    if i < words_per_row as u64 * height as u64 {
        let (wx, y) = ((i % words_per_row as u64) as u32, (i / words_per_row as u64) as u32);
        bit32_word(src, dst, words_per_row, height, wx, y, rule);
    }
}

/// One bit per cell, 64 per lane, `P::LEN` generations per launch: 1D launch of whole warps, warp
/// `w` takes column chunk `w % chunks` (of [`BIT64_OUT_LANES`] words) of row strip `w / chunks`
/// (of `strip_rows` rows) of the output rows `out_row0 .. out_row0 + out_rows` of the torus of
/// `height` rows, which go to `dst`'s rows `0 .. out_rows` (the whole board: `0` and `height`;
/// a window of a band kept once: its middle rows, straight into the band).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn bit64_launch<P: Stages, const SKEW: bool, R: SlicedRule>(
    src: *const u64,
    dst: *mut u64,
    words_per_row: u32,
    height: u32,
    strip_rows: u32,
    out_row0: u32,
    out_rows: u32,
    rule: R,
) {
    let chunks = words_per_row.div_ceil(BIT64_OUT_LANES) as u64;
    let strips = out_rows.div_ceil(strip_rows) as u64;
    let warp = global_thread_idx() / 32;
    if warp < chunks * strips {
        let (chunk, strip) = ((warp % chunks) as u32, (warp / chunks) as u32);
        let first = strip * strip_rows;
        let rows = strip_rows.min(out_rows - first);
        let out = dst.add(first as usize * words_per_row as usize);
        let first_word = chunk * BIT64_OUT_LANES;
        bit64_strip::<P, SKEW, R>(src, out, words_per_row, height, first_word, out_row0 + first, rows, rule);
    }
}

/// Each `bit64` kernel twice: `$name` with the rule in the `lop3` tables ([`Lut`]), `$conway`
/// only B3/S23 in its specialised form.
macro_rules! bit64_kernel {
    ($($name:ident, $conway:ident = $gens:ty, $skew:literal;)*) => {$(
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            src: *const u64,
            dst: *mut u64,
            words_per_row: u32,
            height: u32,
            strip_rows: u32,
            out_row0: u32,
            out_rows: u32,
        ) {
            bit64_launch::<$gens, $skew, _>(src, dst, words_per_row, height, strip_rows, out_row0, out_rows, Lut);
        }

        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $conway(
            src: *const u64,
            dst: *mut u64,
            words_per_row: u32,
            height: u32,
            strip_rows: u32,
            out_row0: u32,
            out_rows: u32,
        ) {
            bit64_launch::<$gens, $skew, _>(src, dst, words_per_row, height, strip_rows, out_row0, out_rows, Conway);
        }
    )*};
}

type S1 = Link<()>;
type S2 = Link<S1>;
type S4 = Link<Link<S2>>;
type S8 = Link<Link<Link<Link<S4>>>>;
type S12 = Link<Link<Link<Link<S8>>>>;

bit64_kernel! {
    life_bit64_t1, life_bit64_t1_b3s23 = S1, true;
    life_bit64_t2, life_bit64_t2_b3s23 = S2, true;
    life_bit64_t4, life_bit64_t4_b3s23 = S4, true;
    life_bit64_t8, life_bit64_t8_b3s23 = S8, true;
    life_bit64_t12, life_bit64_t12_b3s23 = S12, true;
    life_bit64_t8_flat, life_bit64_t8_flat_b3s23 = S8, false;
}

/// Live cells of a board: `(data, n_bytes, mask, total)`, any grid of whole warps (see
/// [`crate::population::count_live`]).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn life_population(data: *const u8, n_bytes: u64, mask: u32, total: *mut u64) {
    crate::population::count_live(data, n_bytes, mask, total);
}
