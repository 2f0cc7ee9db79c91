//! Pass 2 of S2.5f, the *walk*: each walking warp produces its share of a part's items, giving
//! each item its source by counting the bits of the part's bitmap up to it ([`super::tile`]):
//! no search per item, and no work per empty source.

use super::tile::{bitmap_base, load_entry, Span};
use super::{FusedShared, PAIRS, STEP, WARPS};
use crate::arch::{lane_id, load_shared, load_shared_v2, popc, warp_id, WARP_SIZE};
use crate::device::expand::Offset;
use crate::warp::warp_last_holding;
use core::ptr::addr_of_mut;

/// Produces the items `begin..stop` (`begin < stop`) of a part whose tile's entries and bitmap
/// are in shared memory: each warp takes a contiguous share in steps of [`STEP`] items (see the
/// module docs of [`super`]).
///
/// Written once, instantiated per width by [`walk_in`] as a plain (non-generic) function: with
/// the width a type parameter, the arithmetic became trait calls that LLVM inlined later, and
/// the 32-bit instance came out with branches where it had selects. [`walk`] picks the instance.
#[inline(always)]
pub(super) unsafe fn walk<O: Offset>(
    smem: *mut FusedShared<O>,
    span: Span<O>,
    f: &mut impl FnMut(O, [u32; 2], [u32; 2], u32),
) {
    let entries = addr_of_mut!((*smem).entries) as *const [u32; 2];
    let bitmap = addr_of_mut!((*smem).bitmap) as *const u32;
    let Span { first_src, entries: n, begin, stop } = span;
    if O::WIDE {
        let span = Span { first_src, entries: n, begin: begin.to_u64(), stop: stop.to_u64() };
        walk_u64(entries as *const [u64; 2], bitmap, span, &mut |d, s, l, k| f(O::from_u64(d), s, l, k));
    } else {
        let span = Span { first_src, entries: n, begin: begin.to_u64() as u32, stop: stop.to_u64() as u32 };
        walk_u32(entries, bitmap, span, &mut |d, s, l, k| f(O::from_u32(d), s, l, k));
    }
}

/// Defines `$name`, the walk of [`walk`] for destination indices of type `$O`.
macro_rules! walk_in {
    ($name:ident, $O:ty) => {
        #[inline(always)]
        pub(super) unsafe fn $name(
            entries: *const [$O; 2],
            bitmap: *const u32,
            span: Span<$O>,
            f: &mut impl FnMut($O, [u32; 2], [u32; 2], u32),
        ) {
            type O = $O;
            let Span { first_src, entries: n, begin, stop } = span;
            let (one, step) = (O::from_u32(1), O::from_u32(STEP));
            let (mut s, s_end) = warp_steps(begin, stop, warp_id());
            if s >= s_end {
                return;
            }
            let lane = lane_id();
            let base0 = bitmap_base(begin);
            // Entries that start before the warp's first step: where the step's items count
            // bits from.
            let mut before = entries_before(entries, n, s * step);
            while s < s_end {
                // Every step holds an item of the part, so `base < stop`; offsets from `base`
                // cannot wrap (and are below 2^32: a part spans a few units).
                let base = s * step;
                let (lo, hi) = (begin.saturating_local_from(base), stop.local_from(base));
                // Lane `l` holds items `2l, 2l + 1` of each 64: bits `2l mod 32` and the next of
                // the step's word `2·pair + l / 16` (the step's words start 32-byte aligned: steps
                // start at multiples of 256 bits from the bitmap's base). An item's entry is the
                // one of the last bit at or before it, counted from `before`: the bits of every
                // earlier word, then of the item's word up to it.
                let words = bitmap.add((base.local_from(base0) / 32) as usize);
                let upper = lane >= WARP_SIZE / 2;
                let bit = (2 * lane) % WARP_SIZE;
                let mut sum = before;
                for pair in 0..STEP / PAIRS {
                    let at = pair * PAIRS + 2 * lane;
                    let [even, odd] = load_shared_v2(words.add(2 * pair as usize) as *const [u32; 2]);
                    let (bits, from) = if upper { (odd, sum + popc(even)) } else { (even, sum) };
                    sum += popc(even) + popc(odd);
                    // Bits up to the item (`2 << 30` is the last mask's end: no shift wraps).
                    let r0 = from + popc(bits & ((2u32 << bit) - 1));
                    let r1 = r0 + ((bits >> (bit + 1)) & 1);
                    // Items before the part (the first step's) may see no entry: clamped, and
                    // not emitted.
                    let (start0, src0) = load_entry(entries, r0.max(1) - 1);
                    let (start1, src1) = load_entry(entries, r1.max(1) - 1);
                    let local0 = base.add_u32(at).local_from(start0);
                    let local1 = base.add_u32(at + 1).local_from(start1);
                    emit(f, base, at, lo..hi, [first_src + src0, first_src + src1], [local0, local1]);
                }
                before = sum;
                s += one;
            }
        }
    };
}

walk_in!(walk_u32, u32);
walk_in!(walk_u64, u64);

/// The steps `s..s_end` of the items `begin..stop` (`begin < stop`) that walking warp `w` walks:
/// its contiguous share of the [`STEP`]-item steps. Steps are aligned to multiples of `STEP` in
/// the *global* index space, so every pair starts at an even index; a step shared with a
/// neighbouring part produces only its items. (A part spans a few units: its step count is
/// small, its step indices are `O`s.) None when `s >= s_end`.
#[inline(always)]
pub(super) fn warp_steps<O: Offset>(begin: O, stop: O, w: u32) -> (O, O) {
    let (one, step) = (O::from_u32(1), O::from_u32(STEP));
    let first_step = begin / step;
    let steps = (stop - one) / step + one - first_step;
    let per_warp = steps.div_ceil_u32(WARPS);
    let s = first_step + O::from_u32(w) * per_warp;
    (s, (first_step + O::from_u32(w + 1) * per_warp).min(first_step + steps))
}

/// Calls `f` for the items `base + at` and `base + at + 1` that lie in the part (offsets
/// `valid` from `base`), as [`super::for_each_fused`] promises: one call for a pair, else one per item.
#[inline(always)]
pub(super) fn emit<O: Offset>(
    f: &mut impl FnMut(O, [u32; 2], [u32; 2], u32),
    base: O,
    at: u32,
    valid: core::ops::Range<u32>,
    src: [u32; 2],
    local: [u32; 2],
) {
    match (valid.contains(&at), valid.contains(&(at + 1))) {
        (true, both) => f(base.add_u32(at), src, local, if both { 2 } else { 1 }),
        (false, true) => f(base.add_u32(at) + O::from_u32(1), [src[1], 0], [local[1], 0], 1),
        (false, false) => {}
    }
}

/// How many of the `n` entries start before item `x`, by a 32-way warp search
/// ([`warp_last_holding`]: three rounds for a full tile; every lane calls this).
#[inline(always)]
unsafe fn entries_before<O: Offset>(entries: *const [O; 2], n: u32, x: O) -> u32 {
    warp_last_holding(n + 1, |k| k == 0 || load_shared(entries.add(k as usize - 1) as *const O) < x)
}
