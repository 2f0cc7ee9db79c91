//! Select (keep the items that pass a test), unordered, over one tile of `ITEMS × blockDim.x` items.
//!
//! Items are read group-wise as 16-byte vectors: vector `v` of thread `t` starts at item
//! `tile_base + (v·blockDim.x + t)·(16 / size_of::<T>())`, so each warp load is 512 coalesced
//! bytes. `T` is one of the [`SelectValue`] types (1, 2, 4, 8 or 16 bytes). The kept items are
//! written through one of three ways of reserving output slots, which is all that differs
//! between the variants:
//!
//! * [`Reserve::Lane`]: one global atomic per kept item (the naive baseline);
//! * [`Reserve::Warp`]: ballot + popc, one global atomic per warp per tile;
//! * [`Reserve::Block`]: ballot + popc per warp, one shared atomic per warp, one global atomic
//!   per block per tile.
//!
//! Output order is not the input order: warps and blocks claim their runs in whatever order
//! their atomics land. [`select_ordered_tile`] is the order-preserving single-pass variant: it
//! replaces the atomics with a decoupled look-back over tiles. [`select_bytes_tile`] and
//! [`select_bytes_ordered_tile`] are the generic path for items of any size (kept by flag),
//! copied word by word.
//!
//! Sizes are 64-bit throughout: `n`, the output capacity and the counter (`u64`) may exceed
//! 2^32; only a tile's own counts are 32-bit.

mod bytes;
mod compact;
mod lookback;
mod ordered;
mod partition;
mod runs;
mod unique;

pub use bytes::*;
pub use lookback::prepare_ordered_state;
pub use ordered::*;
pub use runs::RunOutputs;

use crate::arch::{
    atomic_add_u64, ballot, block_dim_x, block_idx_x, lane_id, lanemask_lt, load_nc_v4_u32, load_shared_v4, popc,
    shfl_idx_any, store_shared_v4, thread_idx_x,
};
use crate::block::block_append;

pub use warpwork_abi::select::op;

/// The item types the select bodies are instantiated for: the primitive numbers of 1 to 8 bytes
/// (tested with Rust's `PartialOrd`), and `[u32; 4]`, which stands for any 16-byte item and is
/// only ever kept by flag.
pub trait SelectValue: PartialOrd + Default + Copy {
    /// A value test prepared once per launch (from its code and operands) and evaluated per
    /// item: a [`KeyRange`] for the integers (one range check, no branch on the code per item),
    /// the code and operands themselves for floats.
    type Test: Copy;
    /// Prepares test `op` with operands `a`, `b` (not [`op::FLAGGED`]).
    fn prepare(op: u32, a: Self, b: Self) -> Self::Test;
    /// Whether `self` passes `t`: what [`test`] decides.
    fn passes(self, t: Self::Test) -> bool;
    /// Stores an item into the ordered variant's staging buffer (`st.shared`: a plain store
    /// through the generic pointer would be a generic `ST`, and a 16-byte array would go
    /// through the stack).
    ///
    /// # Safety
    /// `p` points to an aligned `Self` in shared memory.
    unsafe fn store_staged(p: *mut Self, v: Self);
    /// Loads an item staged in shared memory (`ld.shared`).
    ///
    /// # Safety
    /// `p` points to an aligned `Self` in shared memory.
    unsafe fn load_staged(p: *const Self) -> Self;
}

/// An integer's value test: its [`KeyRange`].
macro_rules! key_range {
    ($t:ty) => {
        type Test = KeyRange<<$t as RangeTest>::Key>;
        #[inline(always)]
        fn prepare(op: u32, a: Self, b: Self) -> Self::Test {
            <$t as RangeTest>::range(op, a, b)
        }
        #[inline(always)]
        fn passes(self, t: Self::Test) -> bool {
            RangeTest::passes(self, t)
        }
    };
}

/// A float's value test: Rust's comparisons ([`test`]; NaN has no range).
macro_rules! compare {
    ($t:ty) => {
        type Test = (u32, $t, $t);
        #[inline(always)]
        fn prepare(op: u32, a: Self, b: Self) -> Self::Test {
            (op, a, b)
        }
        #[inline(always)]
        fn passes(self, (op, a, b): Self::Test) -> bool {
            test(op, self, a, b)
        }
    };
}

/// `$t` staged as `$bits` (`$width` bits, a `$reg` register; 8- and 16-bit items move through
/// a 32-bit register, which `ld`/`st` of a narrower width accept), converted by `$to`/`$from`.
macro_rules! staged {
    ($($t:ty => $bits:ty, $reg:ident, $width:literal, $to:expr, $from:expr, $test:ident;)*) => {$(
        impl SelectValue for $t {
            $test!($t);
            #[inline(always)]
            unsafe fn store_staged(p: *mut Self, v: Self) {
                let bits: $bits = ($to)(v);
                core::arch::asm!(
                    concat!("{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; st.shared.", $width, " [%s], {v}; }}"),
                    p = in(reg64) p, v = in($reg) bits, options(nostack));
            }
            #[inline(always)]
            unsafe fn load_staged(p: *const Self) -> Self {
                let bits: $bits;
                core::arch::asm!(
                    concat!("{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; ld.shared.", $width, " {v}, [%s]; }}"),
                    p = in(reg64) p, v = out($reg) bits, options(nostack, readonly));
                ($from)(bits)
            }
        }
    )*};
}
staged! {
    u8 => u32, reg32, "b8", |v: u8| v as u32, |b: u32| b as u8, key_range;
    i8 => u32, reg32, "b8", |v: i8| v as u8 as u32, |b: u32| b as u8 as i8, key_range;
    u16 => u32, reg32, "b16", |v: u16| v as u32, |b: u32| b as u16, key_range;
    i16 => u32, reg32, "b16", |v: i16| v as u16 as u32, |b: u32| b as u16 as i16, key_range;
    u32 => u32, reg32, "b32", |v: u32| v, |b: u32| b, key_range;
    i32 => u32, reg32, "b32", |v: i32| v as u32, |b: u32| b as i32, key_range;
    f32 => u32, reg32, "b32", f32::to_bits, f32::from_bits, compare;
    u64 => u64, reg64, "b64", |v: u64| v, |b: u64| b, key_range;
    i64 => u64, reg64, "b64", |v: i64| v as u64, |b: u64| b as i64, key_range;
    f64 => u64, reg64, "b64", f64::to_bits, f64::from_bits, compare;
}

impl SelectValue for [u32; 4] {
    // 16-byte items are only ever kept by flag.
    type Test = ();
    fn prepare(_: u32, _: Self, _: Self) {}
    fn passes(self, _: ()) -> bool {
        false
    }
    #[inline(always)]
    unsafe fn store_staged(p: *mut Self, v: Self) {
        // Staging slots of 16-byte items are 16-byte aligned (the staging buffer is).
        store_shared_v4(p, v)
    }
    #[inline(always)]
    unsafe fn load_staged(p: *const Self) -> Self {
        load_shared_v4(p)
    }
}

/// How a tile reserves its output slots.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reserve {
    /// One global atomic per kept item.
    Lane,
    /// One global atomic per warp.
    Warp,
    /// One shared atomic per warp, one global atomic per block.
    Block,
}

pub use warpwork_abi::select::{test, KeyRange, RangeTest};

/// Global index of item `k` of thread `t`: the tile is read as 16-byte vectors of `vec` items,
/// vector `k / vec` of every thread before vector `k / vec + 1` of any (group-wise, coalesced).
#[inline(always)]
fn item_index(tile_base: usize, t: usize, threads: usize, vec: usize, k: usize) -> usize {
    tile_base + ((k / vec) * threads + t) * vec + k % vec
}

/// Whether the 16-byte vector loads of a full tile are allowed: `items` 16-byte aligned, and
/// for [`op::FLAGGED`] `flags` aligned to the `flag_bytes` read at once. A misaligned view
/// (a raw pointer or a sub-slice) takes the checked scalar path instead of faulting.
#[inline(always)]
fn vectors_aligned<T>(items: *const T, flags: *const u8, op: u32, flag_bytes: usize) -> bool {
    (items as usize).is_multiple_of(16) && (op != op::FLAGGED || (flags as usize).is_multiple_of(flag_bytes))
}

/// Reads a thread's `ITEMS` items of a full tile as `ITEMS / vec` non-coherent 16-byte loads.
#[inline(always)]
unsafe fn load_full_tile<T: Copy, const ITEMS: usize>(
    items: *const T,
    tile_base: usize,
    t: usize,
    threads: usize,
    vals: &mut [T; ITEMS],
) {
    let vec = 16 / core::mem::size_of::<T>();
    let mut words = [[0u32; 4]; ITEMS];
    for v in 0..ITEMS / vec {
        let p = items.add(item_index(tile_base, t, threads, vec, v * vec));
        words[v] = load_nc_v4_u32(p as *const [u32; 4]);
    }
    for k in 0..ITEMS {
        vals[k] = (words[k / vec].as_ptr() as *const T).add(k % vec).read();
    }
}

/// Reads `vec` consecutive flag bytes (1, 2, 4, 8 or 16) at a `vec`-aligned address, as words.
#[inline(always)]
unsafe fn load_flag_run(p: *const u8, vec: usize) -> [u32; 4] {
    match vec {
        16 => load_nc_v4_u32(p as *const [u32; 4]),
        8 => {
            let w = (p as *const u64).read();
            [w as u32, (w >> 32) as u32, 0, 0]
        }
        4 => [(p as *const u32).read(), 0, 0, 0],
        2 => [(p as *const u16).read() as u32, 0, 0, 0],
        _ => [p.read() as u32, 0, 0, 0],
    }
}

/// Reads the flag bytes of a full tile's items: `vec` consecutive bytes per item vector.
#[inline(always)]
unsafe fn load_full_flags<const ITEMS: usize>(
    flags: *const u8,
    tile_base: usize,
    t: usize,
    threads: usize,
    vec: usize,
    flag: &mut [bool; ITEMS],
) {
    for v in 0..ITEMS / vec {
        let words = load_flag_run(flags.add(item_index(tile_base, t, threads, vec, v * vec)), vec);
        for j in 0..vec {
            flag[v * vec + j] = (words[j / 4] >> (8 * (j % 4))) & 0xff != 0;
        }
    }
}

/// The checked load of a tile's last, partial run: item `k` is `items[index(k)]` where that is
/// below `n` (with its flag for [`op::FLAGGED`]). Returns which of the `ITEMS` are in range.
#[inline(always)]
unsafe fn load_checked<T: Copy, const ITEMS: usize>(
    items: *const T,
    flags: *const u8,
    op: u32,
    n: usize,
    index: impl Fn(usize) -> usize,
    vals: &mut [T; ITEMS],
    flag: &mut [bool; ITEMS],
) -> [bool; ITEMS] {
    let mut in_range = [false; ITEMS];
    for k in 0..ITEMS {
        let i = index(k);
        in_range[k] = i < n;
        if in_range[k] {
            vals[k] = *items.add(i);
            if op == op::FLAGGED {
                flag[k] = *flags.add(i) != 0;
            }
        }
    }
    in_range
}

/// Which of a thread's items are kept: in range, and flagged or passing the test `op`.
#[inline(always)]
fn keep_mask<T: SelectValue, const ITEMS: usize>(
    op: u32,
    a: T,
    b: T,
    vals: &[T; ITEMS],
    flag: &[bool; ITEMS],
    in_range: &[bool; ITEMS],
) -> [bool; ITEMS] {
    let t = T::prepare(op, a, b);
    let mut keep = [false; ITEMS];
    for k in 0..ITEMS {
        keep[k] = in_range[k] && if op == op::FLAGGED { flag[k] } else { vals[k].passes(t) };
    }
    keep
}

/// Output slots left at or after `first` below `capacity`, as a 32-bit bound (saturated): a
/// warp's or tile's run is far shorter than 2^32, so its slots are checked as 32-bit offsets
/// from its first.
#[inline(always)]
pub fn room_after(first: u64, capacity: u64) -> u32 {
    capacity.saturating_sub(first).min(u32::MAX as u64) as u32
}

/// Reserves output slots for a thread's kept items (`keep`, the same `ITEMS` steps on every
/// thread) the [`Reserve`] way, and calls `place(k, first, offset)` for each kept item `k`
/// whose slot `first + offset` is below `capacity` (`first` is the same for all of a thread's
/// calls except with [`Reserve::Lane`], so that the address of slot `first` is computed once).
/// Slots at or past `capacity` are counted on `counter` but not placed.
///
/// # Safety
/// `counter` is a global `u64`; `scratch` is [`crate::block::BLOCK_APPEND_SCRATCH_WORDS_U64`]
/// shared words (read only by [`Reserve::Block`]). Every thread of the block calls this.
#[inline(always)]
pub unsafe fn place_kept<const ITEMS: usize>(
    reserve: Reserve,
    keep: &[bool; ITEMS],
    capacity: u64,
    counter: *mut u64,
    scratch: *mut u32,
    mut place: impl FnMut(usize, u64, u32),
) {
    if reserve == Reserve::Lane {
        for k in 0..ITEMS {
            if keep[k] {
                let slot = atomic_add_u64(counter, 1);
                if slot < capacity {
                    place(k, slot, 0);
                }
            }
        }
        return;
    }

    let mut masks = [0u32; ITEMS];
    let mut warp_count = 0;
    for k in 0..ITEMS {
        masks[k] = ballot(keep[k]);
        warp_count += popc(masks[k]);
    }
    let first = warp_first_slot(reserve, scratch, counter, warp_count);
    let room = room_after(first, capacity);
    let below = lanemask_lt();
    let mut run = 0;
    for k in 0..ITEMS {
        let at = run + popc(masks[k] & below);
        if keep[k] && at < room {
            place(k, first, at);
        }
        run += popc(masks[k]);
    }
}

/// The first output slot of this warp's `warp_count` kept items, the same in every lane: one
/// global atomic per warp ([`Reserve::Warp`]), or one per block through `scratch`
/// ([`Reserve::Block`]). Every lane of the block calls this (`block_append` has barriers).
#[inline(always)]
pub(crate) unsafe fn warp_first_slot(reserve: Reserve, scratch: *mut u32, counter: *mut u64, warp_count: u32) -> u64 {
    if reserve == Reserve::Warp {
        let mut base = 0;
        if lane_id() == 0 && warp_count != 0 {
            base = atomic_add_u64(counter, warp_count as u64);
        }
        shfl_idx_any(base, 0)
    } else {
        block_append(scratch, counter, warp_count)
    }
}

/// Selects from one tile: keeps item `i` where `flags[i] != 0` (op [`op::FLAGGED`]) or where
/// [`test`] holds, appending kept items to `out` at slots reserved on `counter`. Slots at or
/// past `capacity` are counted but not written, so the caller can detect the overflow.
/// `ITEMS` is a multiple of `16 / size_of::<T>()`.
///
/// # Safety
/// `items` (and `flags` for [`op::FLAGGED`]) hold `n` elements, `T`-aligned; `out` holds
/// `capacity`; `counter` is a global `u64` that starts at the number of items already in `out`;
/// `scratch` is [`crate::block::BLOCK_APPEND_SCRATCH_WORDS_U64`] words of shared memory (used
/// only by [`Reserve::Block`]). Every thread of the block calls this with the same arguments.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn select_tile<T: SelectValue, const ITEMS: usize>(
    reserve: Reserve,
    items: *const T,
    flags: *const u8,
    n: u64,
    op: u32,
    a: T,
    b: T,
    out: *mut T,
    capacity: u64,
    counter: *mut u64,
    scratch: *mut u32,
) {
    let vec = 16 / core::mem::size_of::<T>();
    const { assert!(ITEMS.is_multiple_of(16 / core::mem::size_of::<T>())) };
    let threads = block_dim_x() as usize;
    let tile_base = block_idx_x() as usize * ITEMS * threads;
    let t = thread_idx_x() as usize;
    let n = n as usize;

    // Load phase: every load is issued before any item is tested, so a thread keeps ITEMS
    // loads in flight. Full tiles (all but the last) read 16-byte vectors with no bounds checks.
    let mut vals = [T::default(); ITEMS];
    let mut valid = [true; ITEMS];
    let mut flag = [true; ITEMS];
    if tile_base + ITEMS * threads <= n && vectors_aligned(items, flags, op, vec) {
        load_full_tile(items, tile_base, t, threads, &mut vals);
        if op == op::FLAGGED {
            load_full_flags::<ITEMS>(flags, tile_base, t, threads, vec, &mut flag);
        }
    } else {
        valid = load_checked(items, flags, op, n, |k| item_index(tile_base, t, threads, vec, k), &mut vals, &mut flag);
    }
    let keep = keep_mask(op, a, b, &vals, &flag, &valid);
    place_kept(reserve, &keep, capacity, counter, scratch, |k, first, at| {
        *out.add(first as usize).add(at as usize) = vals[k]
    });
}
