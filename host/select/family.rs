//! The launches of the order-preserving tile's other modes (`warpwork_abi::select::mode`):
//! stable partition ([`crate::partition`]) and unique ([`crate::unique`]); the run modes are
//! launched by [`super::runs`]. They share the ordered select's state ([`super::state_len`]
//! with [`Variant::Ordered`]), its preparing kernel and its tile shapes; only the kernel lists
//! and parameter lists differ.

use super::plan::{grid_blocks, Body, OrderedState, Shape};
use super::{state_len, value_test_suffix, Keep, Scalar, Variant};
use crate::{error::ensure_input, DeviceRead, DeviceWrite, Error, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::{sys, LaunchConfig};
use warpwork_abi::kernels::{FAMILY_TILE_NAMES, PARTITION_KERNELS, SELECT_ITEM_TYPES, UNIQUE_KERNELS};
use warpwork_abi::select as abi;

/// Which mode of the order-preserving tile a launch runs.
#[derive(Clone, Copy)]
pub(crate) enum Mode<'a, T: Pod> {
    /// Stable partition by `Keep`: kept items first in input order, the rest after them in
    /// reverse input order.
    Partition(Keep<'a, T>),
    /// Drops each item equal (bytes) to the one before it.
    Unique,
}

/// The kernel, block and tile of an order-preserving launch over `n` items of `size` bytes from
/// `list` (tiles of one type together, types in the order of `types`), for type `suffix`.
pub(super) fn shape(list: &'static [&'static str], types: &[&str], suffix: &str, size: usize, n: u64) -> Shape {
    let ty = types.iter().position(|&t| t == suffix).expect("every item type has its kernels");
    let class = abi::family_tile_class(size, n);
    Shape {
        kernel: list[FAMILY_TILE_NAMES.len() * ty + class],
        threads: 32 * abi::ordered_tile(size, abi::FAMILY_TILE_CLASSES[class]).0,
        tile: abi::family_tile_items(size, n),
    }
}

impl Gpu {
    /// Launches a partition or a unique (`mode`) of
    /// `items` into `out`, with its count in `state[0]`: the preparing kernel, then the tile
    /// kernel as its programmatic dependent. Every check comes before the first launch.
    /// `forced_fallback` forces the look-back's fallback (tests).
    pub(crate) fn launch_family<T: Pod>(
        &self,
        items: &impl DeviceRead<T>,
        mode: Mode<'_, T>,
        out: &mut impl DeviceWrite<T>,
        state: &mut impl DeviceWrite<u64>,
        forced_fallback: bool,
    ) -> Result<()> {
        let size = std::mem::size_of::<T>();
        let what = match mode {
            Mode::Partition(_) => "partition",
            Mode::Unique => "unique",
        };
        ensure_input!(size > 0, "{what} items of zero bytes");
        let (n, capacity) = (items.len() as u64, out.len() as u64);
        let needed = state_len::<T>(Variant::Ordered, items.len());
        crate::error::ensure_len("select state (u64 elements)", state.len(), needed as u64)?;
        let (flags, predicate) = match mode {
            Mode::Partition(Keep::Flagged(flags)) => {
                ensure_input!(flags.len() == items.len(), "{n} items but {} flags", flags.len());
                (Some(flags), None)
            }
            Mode::Partition(Keep::If(p)) => {
                let suffix = value_test_suffix::<T>("partition")?;
                (None, Some((suffix, p.abi())))
            }
            Mode::Unique => (None, None),
        };
        if let Mode::Partition(_) = mode {
            // Every item is written: the kept ones from the front, the others from the back.
            crate::error::ensure_len("partition output", out.len(), n)?;
        }
        let mut l = self.kernel_args();
        let items_addr = l.bind(items)?;
        let out_addr = l.bind_mut(out)?;
        let counter = l.bind_mut(state)?;
        let flags_addr = match flags {
            Some(f) => l.bind(f)?,
            None => items_addr,
        };
        let body = Body::choose(size, predicate.map(|(suffix, _)| suffix), items_addr, out_addr)?;
        let typed = match body {
            Body::Typed { suffix, .. } => Some(suffix),
            Body::Bytes16 => None,
            Body::Bytes { .. } => {
                // The generic path (any size, any alignment) has no partition or unique kernels.
                if matches!(size, 1 | 2 | 4 | 8 | 16) {
                    let align = if size == 16 { 4 } else { size as u64 };
                    crate::error::ensure_aligned("items", items_addr, align)?;
                    crate::error::ensure_aligned("output", out_addr, align)?;
                }
                return Err(Error::InvalidInput(format!(
                    "{what} items of {size} bytes: {what} takes items of 1, 2, 4, 8 or 16 bytes"
                )));
            }
        };
        let shape = match (mode, typed) {
            (Mode::Partition(_), Some(suffix)) => shape(&PARTITION_KERNELS, &SELECT_ITEM_TYPES, suffix, size, n),
            (Mode::Partition(_), None) => shape(&PARTITION_KERNELS, &SELECT_ITEM_TYPES, "bytes16", 16, n),
            (Mode::Unique, _) => {
                let suffix = ["u8", "u16", "u32", "u64", "bytes16"][size.trailing_zeros() as usize];
                shape(&UNIQUE_KERNELS, &warpwork_abi::kernels::UNIQUE_ITEM_TYPES, suffix, size, n)
            }
        };
        let blocks = grid_blocks(n, shape.tile)?;
        let f = self.function(shape.kernel)?;
        if n == 0 {
            // SAFETY: the count (and the start), inside `state`.
            unsafe { sys::cuMemsetD32Async(counter, 0, 4, self.cu_stream()).result()? };
            return Ok(());
        }
        self.prepare_ordered(counter, OrderedState { tiles: blocks as u64 }, false)?;
        let (op, a, b) = match predicate {
            Some((_, (op, a, b))) => (op, Scalar(a), Scalar(b)),
            None => (abi::op::FLAGGED, Scalar(T::zeroed()), Scalar(T::zeroed())),
        };
        l.addr(items_addr);
        match (mode, typed) {
            (Mode::Partition(_), Some(_)) => l.addr(flags_addr).value(&n).value(&op).value(&a).value(&b),
            (Mode::Partition(_), None) => l.addr(flags_addr).value(&n),
            (Mode::Unique, _) => l.value(&n),
        };
        let forced = forced_fallback as u32;
        let states_at = OrderedState::states_offset(counter);
        l.addr(out_addr).value(&capacity).addr(counter).addr(counter + 8).addr(counter + states_at).value(&forced);
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (shape.threads, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the arguments are those of `partition_{tile}_{type}` (the ordered select's:
        // items, flags, n, op, a, b or none for 16-byte items, out, capacity, counter, start,
        // states, forced_fallback) or `unique_{tile}_{type}` (items, n, out, capacity, counter,
        // start, states, forced_fallback) in kernels/src/kernels/select/family.rs, for the tile
        // class
        // `shape` chose, and the addresses meet the body's alignment (`Body::choose`); `items`
        // and `flags` hold `n` elements, `out` holds `capacity` (at least `n` for a partition; a
        // distinct buffer: borrowed mutably); one block per tile; the start and the tile states
        // of `blocks` tiles lie inside `state`, prepared just above on the stream by the kernel
        // this one is the programmatic dependent of.
        unsafe { l.launch_dependent(f, cfg) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_kernels_and_states_follow_the_ordered_select() {
        let big = 1u64 << 30;
        assert_eq!(shape(&PARTITION_KERNELS, &SELECT_ITEM_TYPES, "f64", 8, big).kernel, "partition_large_f64");
        assert_eq!(
            shape(&PARTITION_KERNELS, &SELECT_ITEM_TYPES, "bytes16", 16, 1000).kernel,
            "partition_small_bytes16"
        );
        let unique = &warpwork_abi::kernels::UNIQUE_ITEM_TYPES;
        assert_eq!(shape(&UNIQUE_KERNELS, unique, "u8", 1, 1 << 26).kernel, "unique_large_u8");
        assert_eq!(shape(&UNIQUE_KERNELS, unique, "u8", 1, 1 << 24).kernel, "unique_small_u8");
        let (runs, bounds) = (&warpwork_abi::kernels::RUN_LENGTH_KERNELS, &warpwork_abi::kernels::RUN_BOUNDS_KERNELS);
        assert_eq!(shape(runs, unique, "u64", 8, big).kernel, "run_length_large_u64");
        assert_eq!(shape(bounds, unique, "bytes16", 16, big).kernel, "run_bounds_large_bytes16");
        // The ordered select's small and large tile shapes (small up to 32 MiB of input, where
        // the select takes medium ones), and states that hold their tiles.
        let s = shape(&UNIQUE_KERNELS, unique, "u32", 4, big);
        assert_eq!((s.threads, s.tile), (128, abi::ordered_tile_items(4, big)));
        let mid = 1u64 << 22;
        let s = shape(&UNIQUE_KERNELS, unique, "u32", 4, mid);
        assert_eq!((s.kernel, s.threads), ("unique_small_u32", 256));
        let tiles = mid.div_ceil(s.tile) as usize;
        assert!(state_len::<u32>(Variant::Ordered, mid as usize) >= 3 + tiles);
    }
}
