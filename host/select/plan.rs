//! Which select kernel serves a call, its grid, and the layout of the select state: all decided
//! on the host from sizes and addresses, before anything is launched (and tested without a GPU).

use super::{Variant, THREADS};
use crate::launch::MAX_GRID_X;
use crate::{error::ensure_input, Error, Result};
use warpwork_abi::kernels::{
    ORDERED_TILE_NAMES, SELECT_ITEM_TYPES, SELECT_KERNELS, SELECT_ORDERED_BYTES, SELECT_ORDERED_KERNELS,
};
use warpwork_abi::scan::tile_state_words;
use warpwork_abi::select as abi;

/// Items per thread of the unordered typed kernels (`warpwork_abi::select::select_items`).
pub(super) const fn select_items(size: usize) -> u64 {
    abi::select_items(size) as u64
}
/// Items per thread of the generic path (`warpwork_abi::select::BYTES_ITEMS`).
pub(super) const BYTES_ITEMS: u64 = abi::BYTES_ITEMS as u64;

/// The kernel body that serves a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Body {
    /// A typed kernel (`select_{variant}_{suffix}`) of items of `size` bytes: a primitive
    /// number's own, or the unsigned kernel of the size for items kept by flag.
    Typed { suffix: &'static str, size: usize },
    /// The 16-byte kernels (`select_{variant}_bytes16`), by flag.
    Bytes16,
    /// The generic path (`select_{variant}_bytes`) for items of `size` bytes, by flag.
    Bytes { size: usize },
}

impl Body {
    /// The body for items of `size` bytes at device addresses `items` and `out`: `predicate`
    /// is the kernel suffix of a value test, if the call has one. A typed body needs its items
    /// aligned to their size (4 bytes for the 16-byte kernels, whose loads are 32-bit words
    /// outside full vectors); items kept by flag that are not go through the generic path.
    pub(super) fn choose(size: usize, predicate: Option<&'static str>, items: u64, out: u64) -> Result<Body> {
        ensure_input!(size > 0, "select items of zero bytes");
        let aligned = |to: u64| items.is_multiple_of(to) && out.is_multiple_of(to);
        if let Some(suffix) = predicate {
            crate::error::ensure_aligned("select items", items, size as u64)?;
            crate::error::ensure_aligned("select output", out, size as u64)?;
            return Ok(Body::Typed { suffix, size });
        }
        let unsigned = match size {
            1 => "u8",
            2 => "u16",
            4 => "u32",
            8 => "u64",
            16 if aligned(4) => return Ok(Body::Bytes16),
            _ => return Ok(Body::Bytes { size }),
        };
        Ok(if aligned(size as u64) { Body::Typed { suffix: unsigned, size } } else { Body::Bytes { size } })
    }

    /// The kernel, block and tile of a launch of `variant` over `n` items. Kernel names come
    /// from the abi's lists (no allocation per call); the ordered typed kernels come in three
    /// tile classes, chosen by the input's size.
    pub(super) fn shape(self, variant: Variant, n: u64) -> Shape {
        let (suffix, typed) = match self {
            Body::Typed { suffix, size } => (suffix, Some(size)),
            Body::Bytes16 => ("bytes16", Some(16)),
            Body::Bytes { .. } => ("bytes", None),
        };
        let ty = SELECT_ITEM_TYPES.iter().position(|&t| t == suffix).expect("every body's suffix has select kernels");
        match (typed, variant) {
            (Some(size), Variant::Ordered) => {
                let class = abi::ordered_tile_class(size, n);
                Shape {
                    kernel: SELECT_ORDERED_KERNELS[ORDERED_TILE_NAMES.len() * ty + class],
                    threads: 32 * abi::ordered_tile(size, class).0,
                    tile: abi::ordered_tile_items(size, n),
                }
            }
            (None, Variant::Ordered) => {
                Shape { kernel: SELECT_ORDERED_BYTES, threads: THREADS, tile: THREADS as u64 * BYTES_ITEMS }
            }
            (_, _) => Shape {
                kernel: SELECT_KERNELS[3 * ty + variant as usize],
                threads: THREADS,
                tile: THREADS as u64 * typed.map_or(BYTES_ITEMS, select_items),
            },
        }
    }
}

/// How one select launch is shaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    /// The kernel.
    pub kernel: &'static str,
    /// Threads per block.
    pub threads: u32,
    /// Items per block.
    pub tile: u64,
}

/// Blocks of a launch over `n` items with tiles of `tile`: [`Error::CapacityExceeded`] past
/// CUDA's grid limit (2^31 − 1 blocks), before anything is launched.
pub(super) fn grid_blocks(n: u64, tile: u64) -> Result<u32> {
    let blocks = n.div_ceil(tile);
    if blocks > MAX_GRID_X {
        return Err(Error::CapacityExceeded {
            what: "select input (items; the grid holds 2^31 - 1 tiles)",
            needed: n,
            capacity: MAX_GRID_X * tile,
        });
    }
    Ok(blocks as u32)
}

/// The select state (`u64` elements): the count at element 0 and, for the ordered variant, the
/// first output slot at element 1 (read by the kernels, never written by them) and the
/// look-back's tile states of `tiles` tiles at the first 16-byte boundary after it (one element
/// of room for that).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct OrderedState {
    pub tiles: u64,
}

impl OrderedState {
    /// `u64` elements of the whole state.
    pub fn len(self) -> u64 {
        3 + tile_state_words(8, self.tiles as usize) as u64 / 2
    }
    /// Byte offset of the tile states from a state at device address `base` (8-byte aligned).
    pub fn states_offset(base: u64) -> u64 {
        (base + 16).next_multiple_of(16) - base
    }
    /// 32-bit words of the state up to the end of the tile states, for a state at `base`.
    pub fn words_to_end(self, base: u64) -> usize {
        (Self::states_offset(base) / 4) as usize + tile_state_words(8, self.tiles as usize)
    }
}

/// Tiles an ordered select of at most `n` items of `size` bytes may use, whichever body serves
/// it (the body of a by-flag call depends on its addresses' alignment): what the state is sized
/// for. The tiles grow with the input (by its bytes), so a shorter input can take more of them:
/// this is the most of `n` and of the largest inputs of the tile classes below `n`'s, so that
/// the state for `n` items serves every shorter input.
pub(super) fn ordered_tiles_bound(size: usize, n: u64) -> u64 {
    let [small, medium] = abi::ORDERED_CLASS_MAX_BYTES;
    let lower = [small, abi::FAMILY_SMALL_TILE_BYTES, medium].map(|bytes| bytes / size as u64);
    lower.into_iter().filter(|&m| m < n).map(|m| tiles_for(size, m)).fold(tiles_for(size, n), u64::max)
}

/// Tiles an ordered select, partition, unique or run launch of `n` items of `size` bytes uses,
/// whichever body and tiles serve it.
fn tiles_for(size: usize, n: u64) -> u64 {
    // The partition, unique and run kernels share the state, in their own tiles.
    let typed = match size {
        1 | 2 | 4 | 8 | 16 => {
            n.div_ceil(abi::ordered_tile_items(size, n)).max(n.div_ceil(abi::family_tile_items(size, n)))
        }
        _ => 0,
    };
    typed.max(n.div_ceil(THREADS as u64 * BYTES_ITEMS))
}

/// Checks a select call's lengths: flags (if any) as many as the items, and a state of at least
/// `needed` elements. Returns `(n, capacity)` as the kernels take them.
pub(super) fn check_args(n: usize, flags: Option<usize>, out: usize, state: usize, needed: u64) -> Result<(u64, u64)> {
    if let Some(flags) = flags {
        ensure_input!(flags == n, "{n} items but {flags} flags");
    }
    crate::error::ensure_len("select state (u64 elements)", state, needed)?;
    Ok((n as u64, out as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_checked_without_a_gpu() {
        assert_eq!(check_args(10, Some(10), 7, 1, 1).unwrap(), (10, 7));
        assert_eq!(check_args(0, None, 0, 1, 1).unwrap(), (0, 0));
        assert!(matches!(check_args(10, Some(9), 10, 1, 1), Err(Error::InvalidInput(m)) if m.contains("9 flags")));
        assert!(matches!(check_args(10, None, 10, 2, 3), Err(Error::BufferTooSmall { len: 2, needed: 3, .. })));
        // Past 2^32 items and slots: 64-bit throughout.
        let big = (1usize << 36) + 7;
        assert_eq!(check_args(big, Some(big), big, 1, 1).unwrap(), (big as u64, big as u64));
    }

    #[test]
    fn the_grid_limit_is_checked_before_launch() {
        let tile = 4096;
        assert_eq!(grid_blocks(0, tile).unwrap(), 0);
        assert_eq!(grid_blocks(1, tile).unwrap(), 1);
        assert_eq!(grid_blocks(tile + 1, tile).unwrap(), 2);
        assert_eq!(grid_blocks(1 << 36, tile).unwrap(), 1 << 24);
        assert_eq!(grid_blocks((1 << 32) + 7, 256 * 16).unwrap(), (1 << 20) + 1);
        assert_eq!(grid_blocks(MAX_GRID_X * tile, tile).unwrap(), i32::MAX as u32);
        match grid_blocks(MAX_GRID_X * tile + 1, tile) {
            Err(Error::CapacityExceeded { needed, capacity, .. }) => {
                assert_eq!((needed, capacity), (MAX_GRID_X * tile + 1, MAX_GRID_X * tile))
            }
            other => panic!("expected CapacityExceeded, got {other:?}"),
        }
        assert!(grid_blocks(u64::MAX, tile).is_err());
    }

    #[test]
    fn bodies_follow_size_type_and_alignment() {
        let typed = |suffix, size| Body::Typed { suffix, size };
        // Value tests: the type's own kernel; misaligned items are refused.
        assert_eq!(Body::choose(4, Some("f32"), 256, 512).unwrap(), typed("f32", 4));
        assert!(matches!(
            Body::choose(8, Some("i64"), 260, 512),
            Err(Error::Misaligned { address: 260, align: 8, .. })
        ));
        // By flag: the unsigned kernel of the size, aligned; the generic path otherwise.
        assert_eq!(Body::choose(1, None, 3, 5).unwrap(), typed("u8", 1));
        assert_eq!(Body::choose(2, None, 256, 512).unwrap(), typed("u16", 2));
        assert_eq!(Body::choose(2, None, 257, 512).unwrap(), Body::Bytes { size: 2 });
        assert_eq!(Body::choose(4, None, 256, 512).unwrap(), typed("u32", 4));
        assert_eq!(Body::choose(8, None, 256, 516).unwrap(), Body::Bytes { size: 8 });
        assert_eq!(Body::choose(16, None, 4, 20).unwrap(), Body::Bytes16);
        assert_eq!(Body::choose(16, None, 2, 16).unwrap(), Body::Bytes { size: 16 });
        for size in [3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 24] {
            assert_eq!(Body::choose(size, None, 256, 512).unwrap(), Body::Bytes { size });
        }
        assert!(matches!(Body::choose(0, None, 256, 512), Err(Error::InvalidInput(_))));
        // Every name the host asks for is the abi's (which the PTX exports) for its variant and type.
        let big = 1 << 30;
        for v in [Variant::Lane, Variant::Warp, Variant::Block] {
            for (body, ty) in [(typed("f64", 8), "f64"), (Body::Bytes16, "bytes16"), (Body::Bytes { size: 3 }, "bytes")]
            {
                assert_eq!(body.shape(v, big).kernel, format!("select_{}_{ty}", v.name()));
            }
        }
        assert_eq!(typed("u32", 4).shape(Variant::Ordered, 1000).kernel, "select_ordered_small_u32");
        assert_eq!(typed("u32", 4).shape(Variant::Ordered, 1 << 24).kernel, "select_ordered_medium_u32");
        assert_eq!(typed("f64", 8).shape(Variant::Ordered, big).kernel, "select_ordered_large_f64");
        assert_eq!(Body::Bytes16.shape(Variant::Ordered, big).kernel, "select_ordered_large_bytes16");
        assert_eq!(Body::Bytes { size: 3 }.shape(Variant::Ordered, big).kernel, "select_ordered_bytes");
    }

    #[test]
    fn shapes_match_the_kernels() {
        let (u32s, big) = (Body::Typed { suffix: "u32", size: 4 }, 1 << 30);
        let shape = |body: Body, v, n| {
            let s = body.shape(v, n);
            (s.threads, s.tile)
        };
        assert_eq!(shape(u32s, Variant::Block, big), (256, 4096));
        // Ordered: small tiles for small inputs, larger ones for large inputs.
        assert_eq!(shape(u32s, Variant::Ordered, 1000), (256, 2048));
        assert_eq!(shape(u32s, Variant::Ordered, 1 << 24), (256, 8192));
        assert_eq!(shape(u32s, Variant::Ordered, big), (128, 6144));
        assert_eq!(shape(Body::Typed { suffix: "u8", size: 1 }, Variant::Lane, big), (256, 4096));
        assert_eq!(shape(Body::Typed { suffix: "u8", size: 1 }, Variant::Ordered, big), (128, 16384));
        assert_eq!(shape(Body::Bytes16, Variant::Warp, big), (256, 2048));
        assert_eq!(shape(Body::Bytes { size: 3 }, Variant::Ordered, big), (256, 4096));
    }

    #[test]
    fn the_ordered_state_holds_its_tile_states_aligned() {
        for tiles in [1u64, 2, 3, 1000, 1 << 20] {
            let state = OrderedState { tiles };
            for base in [0x1000u64, 0x1008] {
                let at = OrderedState::states_offset(base);
                assert!(at >= 16 && (base + at).is_multiple_of(16), "after the count and the start, 16-byte aligned");
                let end = 4 * state.words_to_end(base) as u64;
                assert_eq!(end, at + 16 * tiles, "16 bytes per tile");
                assert!(end <= 8 * state.len(), "inside the state");
            }
        }
        // Every body of a size fits in the bound the state is sized for.
        for size in 1..=24 {
            for n in [1u64, 4095, 4097, 1 << 20, (1 << 32) + 7] {
                let bound = ordered_tiles_bound(size, n);
                for (items, out) in [(256, 512), (1, 3), (2, 6), (4, 12)] {
                    let predicate = None;
                    let body = Body::choose(size, predicate, items, out).unwrap();
                    assert!(n.div_ceil(body.shape(Variant::Ordered, n).tile) <= bound, "size {size} n {n} {body:?}");
                }
            }
        }
    }
}
