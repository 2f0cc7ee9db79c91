//! warpwork's exported kernels (`extern "ptx-kernel"`), compiled to PTX by the host's `build.rs`.
//! Each is a thin instantiation of a building block of [`crate::device`].

mod expand;
mod scan;
mod select;
mod timing;
