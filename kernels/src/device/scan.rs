//! Device-wide single-pass scans: decoupled look-back (Merrill & Garland).
//!
//! * [`tile`]: warpwork's device-wide scan kernels. Block `b` scans tile `b` under any
//!   [`crate::block::ScanOp`] with coalesced loads and stores, and gets the prefix of its tile
//!   from [`crate::device::lookback`] (status and value in one word per tile, a warp-wide
//!   window, backoff, and a fallback that makes it never hang) — the look-back S2.5's pass 1
//!   and the ordered select use too.

pub mod tile;

pub use warpwork_abi::scan::{STATUS_AGGREGATE, STATUS_INVALID, STATUS_PREFIX};
