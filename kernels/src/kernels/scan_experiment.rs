//! EXPERIMENT ONLY (issue 16's scan tuning; removed before merge): exclusive-sum scan kernels of
//! several tile shapes, `scanx_{tag}_{u32|u64}`, `tag` = `w{warps}c{chunks}{p|s|a}` (plain,
//! streaming, cp.async loads).

use super::scan::scan_tile_kernel;
use crate::block::Sum;
use crate::device::lookback::TileStates;
use crate::device::scan::tile::{consume_tile, load, tile_items};
use crate::static_shared;

macro_rules! variants {
    ($(($n32:ident, $n64:ident, $w:expr, $c:expr, $l:expr)),* $(,)?) => {$(
        scan_tile_kernel!($n32, Sum<u32>, false, $w, $c, $l);
        scan_tile_kernel!($n64, Sum<u64>, false, $w, $c, $l);
    )*};
}

variants!(
    (scanx_w16c4p_u32, scanx_w16c4p_u64, 16, 4, load::PLAIN),
    (scanx_w16c4s_u32, scanx_w16c4s_u64, 16, 4, load::STREAMING),
    (scanx_w16c4a_u32, scanx_w16c4a_u64, 16, 4, load::ASYNC),
    (scanx_w4c10p_u32, scanx_w4c10p_u64, 4, 10, load::PLAIN),
    (scanx_w8c8p_u32, scanx_w8c8p_u64, 8, 8, load::PLAIN),
    (scanx_w8c8s_u32, scanx_w8c8s_u64, 8, 8, load::STREAMING),
    (scanx_w8c8a_u32, scanx_w8c8a_u64, 8, 8, load::ASYNC),
    (scanx_w8c10p_u32, scanx_w8c10p_u64, 8, 10, load::PLAIN),
    (scanx_w8c6p_u32, scanx_w8c6p_u64, 8, 6, load::PLAIN),
    (scanx_w12c6p_u32, scanx_w12c6p_u64, 12, 6, load::PLAIN),
    (scanx_w4c8p_u32, scanx_w4c8p_u64, 4, 8, load::PLAIN),
    (scanx_w4c12p_u32, scanx_w4c12p_u64, 4, 12, load::PLAIN),
    (scanx_w4c12a_u32, scanx_w4c12a_u64, 4, 12, load::ASYNC),
    (scanx_w4c16p_u32, scanx_w4c16p_u64, 4, 16, load::PLAIN),
    (scanx_w8c4p_u32, scanx_w8c4p_u64, 8, 4, load::PLAIN),
    (scanx_w8c8p0_u32, scanx_w8c8p0_u64, 8, 8, load::PLAIN | 4),
    (scanx_w8c8p400_u32, scanx_w8c8p400_u64, 8, 8, load::PLAIN | 8),
    (scanx_w4c12p0_u32, scanx_w4c12p0_u64, 4, 12, load::PLAIN | 4),
);
