//! warpwork's exported kernels (`extern "ptx-kernel"`), compiled to PTX by the host's `build.rs`.
//! Each is a thin instantiation of a building block of [`crate::device`].

//! Each family's kernels are exported only with its cargo feature, so that every family is a
//! module of its own (`warpwork_abi::modules::Family`).

#[cfg(feature = "expand")]
mod expand;
#[cfg(feature = "lab")]
mod lab;
#[cfg(feature = "reduce")]
mod reduce;
#[cfg(feature = "scan")]
mod scan;
#[cfg(feature = "select")]
mod select;
#[cfg(feature = "timing")]
mod timing;
