//! The launches of the order-preserving tile's run modes, each one pass: run-length encoding
//! (`run_length_{tile}_{type}`), the non-trivial runs (`run_bounds_{tile}_{type}`) and unique by
//! key (`unique_by_key_{tile}_{type}`). They share the ordered select's state; the first two
//! carry the index of the last kept item before each tile in a second look-back, whose tile
//! states follow the first's ([`runs_state_len`]).

use super::family::shape;
use super::plan::{grid_blocks, ordered_tiles_bound, Body, OrderedState};
use super::{state_len, Variant};
use crate::{error::ensure_input, DeviceRead, DeviceWrite, Error, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::{sys, LaunchConfig};
use warpwork_abi::kernels::{RUN_BOUNDS_KERNELS, RUN_LENGTH_KERNELS, UNIQUE_BY_KEY_KERNELS, UNIQUE_ITEM_TYPES};

/// A run launch's outputs: items of `T`, lengths and offsets of `L`, values of `V`.
pub(crate) enum RunCall<'b, T, L, V> {
    /// Run-length encoding: each run's item to `values`, its length to `lengths`.
    Encode { values: &'b mut dyn DeviceWrite<T>, lengths: &'b mut dyn DeviceWrite<L> },
    /// The runs longer than one item: each one's first index to `offsets`, its length to
    /// `lengths`.
    NonTrivial { offsets: &'b mut dyn DeviceWrite<L>, lengths: &'b mut dyn DeviceWrite<L> },
    /// Unique by key: each kept key to `keys_out`, its value (from `values`) to `values_out`.
    ByKey {
        keys_out: &'b mut dyn DeviceWrite<T>,
        values: &'b dyn DeviceRead<V>,
        values_out: &'b mut dyn DeviceWrite<V>,
    },
}

/// `u64` elements of the state of a run-length encoding or a non-trivial runs launch over `n`
/// items of `T`: the ordered select's, with room for two tile states per tile (the second
/// look-back's after the first's). Unique by key needs only the ordered select's.
pub(crate) fn runs_state_len<T>(n: usize) -> usize {
    let tiles = ordered_tiles_bound(std::mem::size_of::<T>().max(1), n as u64);
    OrderedState { tiles: 2 * tiles }.len() as usize
}

impl Gpu {
    /// Launches a run mode over `items` (`call` names the outputs), with its count in
    /// `state[0]`: the preparing kernel, then the tile kernel as its programmatic dependent.
    /// Every check comes before the first launch (the callers check the outputs' lengths
    /// against each other). `forced_fallback` forces the look-backs' fallback (tests).
    pub(crate) fn launch_runs<T: Pod, L: Pod, V: Pod>(
        &self,
        items: &impl DeviceRead<T>,
        call: RunCall<'_, T, L, V>,
        state: &mut impl DeviceWrite<u64>,
        forced_fallback: bool,
    ) -> Result<()> {
        let size = std::mem::size_of::<T>();
        let (what, list, kind) = match call {
            RunCall::Encode { .. } => ("run-length encoding", &RUN_LENGTH_KERNELS, Kind::Encode),
            RunCall::NonTrivial { .. } => ("non-trivial runs", &RUN_BOUNDS_KERNELS, Kind::NonTrivial),
            RunCall::ByKey { .. } => ("unique by key", &UNIQUE_BY_KEY_KERNELS, Kind::ByKey),
        };
        let carries = !matches!(kind, Kind::ByKey);
        ensure_input!(size > 0, "{what} items of zero bytes");
        let n = items.len() as u64;
        let needed =
            if carries { runs_state_len::<T>(items.len()) } else { state_len::<T>(Variant::Ordered, items.len()) };
        crate::error::ensure_len("select state (u64 elements)", state.len(), needed as u64)?;
        let (wide, value_size) = (std::mem::size_of::<L>() as u32 / 8, std::mem::size_of::<V>() as u32);
        let mut l = self.kernel_args();
        let items_addr = l.bind(items)?;
        let counter = l.bind_mut(state)?;
        // The outputs: (items out, none for the non-trivial runs; capacity; up to two more).
        let (out, capacity, a, b) = match call {
            RunCall::Encode { values, lengths } => {
                let capacity = values.len() as u64;
                (l.bind_mut(values)?, capacity, l.bind_mut(lengths)?, 0)
            }
            RunCall::NonTrivial { offsets, lengths } => {
                let capacity = offsets.len() as u64;
                (0, capacity, l.bind_mut(offsets)?, l.bind_mut(lengths)?)
            }
            RunCall::ByKey { keys_out, values, values_out } => {
                ensure_input!(values.len() as u64 == n, "{n} keys but {} values", values.len());
                let Some(_) = [1, 2, 4, 8, 16].iter().position(|&s| s == value_size) else {
                    return Err(Error::InvalidInput(format!(
                        "{what} values of {value_size} bytes: 1, 2, 4, 8 or 16 bytes"
                    )));
                };
                let capacity = keys_out.len() as u64;
                let (values, values_out) = (l.bind(values)?, l.bind_mut(values_out)?);
                let align = if value_size == 16 { 4 } else { value_size as u64 };
                crate::error::ensure_aligned("values", values, align)?;
                crate::error::ensure_aligned("values output", values_out, align)?;
                (l.bind_mut(keys_out)?, capacity, values, values_out)
            }
        };
        let writes_items = !matches!(kind, Kind::NonTrivial);
        let suffix = match Body::choose(size, None, items_addr, if writes_items { out } else { items_addr })? {
            Body::Typed { suffix, .. } => suffix,
            Body::Bytes16 => "bytes16",
            Body::Bytes { .. } => {
                if matches!(size, 1 | 2 | 4 | 8 | 16) {
                    let align = if size == 16 { 4 } else { size as u64 };
                    crate::error::ensure_aligned("items", items_addr, align)?;
                    crate::error::ensure_aligned("output", out, align)?;
                }
                return Err(Error::InvalidInput(format!(
                    "{what} items of {size} bytes: {what} takes items of 1, 2, 4, 8 or 16 bytes"
                )));
            }
        };
        let shape = shape(list, &UNIQUE_ITEM_TYPES, suffix, size, n);
        let blocks = grid_blocks(n, shape.tile)?;
        let f = self.function(shape.kernel)?;
        if n == 0 {
            // SAFETY: the count (and the start), inside `state`.
            unsafe { sys::cuMemsetD32Async(counter, 0, 4, self.cu_stream()).result()? };
            return Ok(());
        }
        let tiles = blocks as u64 * if carries { 2 } else { 1 };
        self.prepare_ordered(counter, OrderedState { tiles }, false)?;
        let (forced, states_at) = (forced_fallback as u32, OrderedState::states_offset(counter));
        l.addr(items_addr).value(&n);
        if writes_items {
            l.addr(out);
        }
        l.value(&capacity).addr(counter).addr(counter + 8).addr(counter + states_at).value(&forced);
        match kind {
            Kind::Encode => l.addr(a).value(&wide),
            Kind::NonTrivial => l.addr(a).addr(b).value(&wide),
            Kind::ByKey => l.addr(a).addr(b).value(&value_size),
        };
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (shape.threads, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: the arguments are those of `run_length_{tile}_{type}` (items, n, out, capacity,
        // counter, start, states, forced_fallback, lengths, wide), `run_bounds_{tile}_{type}`
        // (items, n, capacity, counter, start, states, forced_fallback, offsets, lengths, wide) or
        // `unique_by_key_{tile}_{type}` (unique's, then values, values_out, value_size) in
        // kernels/src/kernels/select/family.rs for the tile class `shape` chose; items and
        // outputs meet the body's alignment (`Body::choose`), values theirs (checked above);
        // `items` (and `values`) hold `n` elements, the outputs `capacity` (the callers checked
        // that lengths and values hold as many as the first output); one block per tile; the
        // start and the tile states of `tiles` tiles (two per block for the runs) lie inside
        // `state` (its length checked above), prepared just above on the stream by the kernel
        // this one is the programmatic dependent of.
        unsafe { l.launch_dependent(f, cfg) }
    }
}

/// Which parameter list a run launch ends with.
#[derive(Clone, Copy)]
enum Kind {
    Encode,
    NonTrivial,
    ByKey,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_states_hold_two_tile_states_per_tile() {
        for n in [1usize, 5000, 1 << 20, (1 << 32) + 7] {
            let tiles = ordered_tiles_bound(4, n as u64);
            let len = runs_state_len::<u32>(n) as u64;
            for base in [0x1000u64, 0x1008] {
                let end = 4 * OrderedState { tiles: 2 * tiles }.words_to_end(base) as u64;
                assert!(end <= 8 * len, "n {n}");
            }
            assert!(runs_state_len::<u32>(n) >= state_len::<u32>(Variant::Ordered, n));
        }
        let (small, big) = (1000u64, 1u64 << 30);
        assert_eq!(shape(&RUN_LENGTH_KERNELS, &UNIQUE_ITEM_TYPES, "u32", 4, small).kernel, "run_length_small_u32");
        assert_eq!(shape(&UNIQUE_BY_KEY_KERNELS, &UNIQUE_ITEM_TYPES, "u8", 1, big).kernel, "unique_by_key_large_u8");
    }
}
