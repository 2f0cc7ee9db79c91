//! The few lines of warpwork's private helpers this crate needs, written again here: a demo
//! uses warpwork's public API only, as a user's crate would.

use crate::{Error, Result};
use bytemuck::Pod;

/// Returns [`Error::InvalidInput`] built from a format string when `cond` is false.
macro_rules! ensure_input {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(warpwork::Error::InvalidInput(format!($($msg)+)));
        }
    };
}
pub(crate) use ensure_input;

/// `len` zeroed elements of host memory, or [`Error::OutOfMemory`] naming `what`: every host
/// buffer of a caller's size goes through here, so a huge board is an error, never an abort. The
/// memory comes from `alloc_zeroed`, so the system hands out zero pages lazily: a board costs
/// nothing until written.
pub(crate) fn zeroed_vec<T: Pod>(len: usize, what: &'static str) -> Result<Vec<T>> {
    let oom = || Error::OutOfMemory { what, bytes: (len as u64).saturating_mul(size_of::<T>() as u64) };
    if len == 0 || size_of::<T>() == 0 {
        return Ok(vec![T::zeroed(); len]);
    }
    let layout = std::alloc::Layout::array::<T>(len).map_err(|_| oom())?;
    // SAFETY: `layout` has a non-zero size. A non-null result is an allocation of the global
    // allocator with `layout` (`len` `T`s, zeroed, which is a valid `Pod` value), exactly what
    // `Vec::from_raw_parts` with length and capacity `len` requires.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout) as *mut T;
        if ptr.is_null() {
            return Err(oom());
        }
        Ok(Vec::from_raw_parts(ptr, len, len))
    }
}
