//! The demonstration workloads, apart from the general algorithms (select, scan, expand) at
//! the crate root: tiled lighting and a particle update ([`access`]: the memory access patterns
//! they show) and Conway's Game of Life ([`life`]). Re-exported as `warpwork::access` and
//! `warpwork::life`.

pub mod access;
pub mod life;
