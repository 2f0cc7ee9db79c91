//! The demonstration workloads, apart from the general algorithms (select, scan, expand) at
//! the crate root: tiled lighting and a particle update ([`access`]: the memory access patterns
//! they show). Re-exported as `warpwork::access`. (The Game of Life is the `warpwork-life` crate,
//! `demos/life`.)

pub mod access;
