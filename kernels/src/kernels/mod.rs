//! warpwork's exported kernels (`extern "ptx-kernel"`), compiled to PTX by the host's `build.rs`.
//! Each is a thin instantiation of a building block from [`crate::device`].

mod access;
mod expand;
mod life;
mod scan;
mod select;
mod timing;
