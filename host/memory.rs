//! The caller's device memory, as warpwork's primitives take it.
//!
//! warpwork allocates nothing the caller did not ask for: its primitives read and write memory
//! the caller owns, as cudarc's typed slices and views — [`CudaSlice<T>`], [`CudaView<T>`],
//! [`CudaViewMut<T>`] — or, through `unsafe` constructors, as raw device pointers
//! ([`RawSlice`], [`RawSliceMut`]) from cust, FFI or another framework.
//!
//! Two sealed traits say what a call does with a buffer: [`DeviceRead`] (the kernel only reads
//! it) and [`DeviceWrite`] (it may write it; taken as `&mut`). Taking them by reference ties each
//! buffer's borrow to the call, and every call has finished *issuing* its work before it returns;
//! what outlives a call (an [`crate::expand::Planned`] expansion) keeps its buffers borrowed.
//! They are sealed so that every implementation reports its true length and binds the way below:
//!
//! * a cudarc buffer is checked to belong to the handle's context ([`crate::Error::WrongContext`]
//!   otherwise), and bound through cudarc's stream events: the call's stream waits for earlier
//!   writes to it (and, for a write, earlier reads), and the use is recorded, so that cudarc
//!   frees it only after the call — also when the call went to another stream, or to a raw
//!   stream (wrapped as a borrowed cudarc stream), and also for warpwork's own buffers inside an
//!   [`crate::expand::Expander`]. (cudarc tracks events once its context has a second stream;
//!   with one stream there is nothing to order.)
//! * a raw slice is the caller's word: its constructors are `unsafe`, and check what they can
//!   (alignment, null, size overflow).

use crate::{Error, Gpu, Result};
use cudarc::driver::{sys::CUdeviceptr, CudaSlice, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, SyncOnDrop};
use std::marker::PhantomData;

/// Device memory a warpwork call may read: `len()` elements of `T`.
///
/// Implemented for [`CudaSlice<T>`], [`CudaView<T>`], [`CudaViewMut<T>`], [`RawSlice<T>`] and
/// [`RawSliceMut<T>`]; sealed, so that every implementation reports its true length.
pub trait DeviceRead<T>: bind::Bind<T> {
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Device memory a warpwork call may write (and read). See [`DeviceRead`].
pub trait DeviceWrite<T>: DeviceRead<T> + bind::BindMut<T> {}

pub(crate) mod bind {
    use super::*;

    /// Where a call binds its buffers: the handle (its context and launch stream) and whether
    /// that stream is capturing a CUDA graph while cudarc's event tracking is on, in which case
    /// a cudarc buffer cannot be bound (cudarc's wait on an event recorded outside the capture
    /// would invalidate it). Computed once per call.
    pub struct Target<'a> {
        pub(crate) gpu: &'a Gpu,
        pub(crate) tracked_capture: bool,
    }

    /// A device address bound to a call on `gpu`'s stream, with the cudarc event guard that
    /// orders the call after earlier writes and records it for later frees (dropped after the
    /// launch is issued).
    pub struct Bound<'a> {
        pub(crate) addr: CUdeviceptr,
        pub(crate) _sync: Option<SyncOnDrop<'a>>,
    }

    /// The hidden half of [`DeviceRead`].
    pub trait Bind<T> {
        /// The address for a read by a call on `to.gpu`'s stream, after checking that the
        /// memory belongs to that handle's context.
        fn bind<'a>(&'a self, to: &Target<'a>) -> Result<Bound<'a>>;
    }

    /// The hidden half of [`DeviceWrite`].
    pub trait BindMut<T> {
        /// The address for a write (or read) by a call on `to.gpu`'s stream.
        fn bind_mut<'a>(&'a mut self, to: &Target<'a>) -> Result<Bound<'a>>;
    }
}
use bind::{Bind, BindMut, Bound, Target};

/// Checks that a cudarc buffer can be bound to a call on `to`: it lives in the handle's context
/// (a pointer of another context would be an illegal address for warpwork's kernels), and the
/// stream is not capturing a graph with cudarc's event tracking on.
fn check_cudarc(to: &Target<'_>, stream: &cudarc::driver::CudaStream) -> Result<()> {
    if stream.context().cu_ctx() != to.gpu.context().cu_ctx() {
        return Err(Error::WrongContext);
    }
    if to.tracked_capture {
        return Err(Error::StreamCapture(
            "a cudarc buffer with cudarc's event tracking on: its stream events cannot be waited \
             on or recorded inside a capture (turn tracking off for the capture with \
             CudaContext::disable_event_tracking, as cudarc's own graph tests do)"
                .into(),
        ));
    }
    Ok(())
}

macro_rules! cudarc_read {
    ($($ty:ty),*) => {$(
        impl<T> DeviceRead<T> for $ty {
            fn len(&self) -> usize {
                cudarc::driver::DeviceSlice::len(self)
            }
        }
        impl<T> Bind<T> for $ty {
            fn bind<'a>(&'a self, to: &Target<'a>) -> Result<Bound<'a>> {
                check_cudarc(to, cudarc::driver::DeviceSlice::stream(self))?;
                // Raw streams too: `Gpu::on_raw_stream` wraps them as borrowed cudarc streams.
                let (addr, sync) = self.device_ptr(to.gpu.launch_stream());
                Ok(Bound { addr, _sync: Some(sync) })
            }
        }
    )*};
}
cudarc_read!(CudaSlice<T>, CudaView<'_, T>, CudaViewMut<'_, T>);

macro_rules! cudarc_write {
    ($($ty:ty),*) => {$(
        impl<T> DeviceWrite<T> for $ty {}
        impl<T> BindMut<T> for $ty {
            fn bind_mut<'a>(&'a mut self, to: &Target<'a>) -> Result<Bound<'a>> {
                check_cudarc(to, cudarc::driver::DeviceSlice::stream(self))?;
                let (addr, sync) = self.device_ptr_mut(to.gpu.launch_stream());
                Ok(Bound { addr, _sync: Some(sync) })
            }
        }
    )*};
}
cudarc_write!(CudaSlice<T>, CudaViewMut<'_, T>);

/// `len` elements of `T` at a raw device address that warpwork may read: for memory owned by
/// cust, FFI or another framework. Build with [`RawSlice::from_raw_parts`].
#[derive(Clone, Copy, Debug)]
pub struct RawSlice<'a, T> {
    addr: CUdeviceptr,
    len: usize,
    _borrow: PhantomData<&'a [T]>,
}

/// `len` elements of `T` at a raw device address that warpwork may write. Build with
/// [`RawSliceMut::from_raw_parts`].
#[derive(Debug)]
pub struct RawSliceMut<'a, T> {
    addr: CUdeviceptr,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

/// Checks a raw range's alignment and size: the kernels load `T` at its natural alignment.
fn check_raw<T>(addr: CUdeviceptr, len: usize) -> Result<()> {
    let align = std::mem::align_of::<T>() as u64;
    crate::error::ensure_aligned("a raw device slice", addr, align)?;
    let bytes = (len as u64).checked_mul(std::mem::size_of::<T>() as u64);
    crate::error::ensure_input!(
        bytes.and_then(|b| addr.checked_add(b)).is_some(),
        "{len} elements at {addr:#x} overflow the address space"
    );
    crate::error::ensure_input!(addr != 0 || len == 0, "a null device address for {len} elements");
    Ok(())
}

impl<'a, T> RawSlice<'a, T> {
    /// Wraps `len` elements of `T` at device address `addr`.
    ///
    /// Returns [`Error::InvalidInput`] for a misaligned or null address or a size that
    /// overflows.
    ///
    /// # Safety
    /// `addr` points to `len` initialized elements of `T` in device memory of the context of the
    /// [`Gpu`] it is used with, and that memory stays allocated, and unwritten by anyone else,
    /// until the work the call issues has finished on its stream (`'a` ties the value to a
    /// borrow the caller chooses; the stream ordering is the caller's: warpwork cannot see
    /// another framework's events).
    ///
    /// # Examples
    /// ```no_run
    /// # fn main() -> warpwork::Result<()> {
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let owned = gpu.upload(&[1u32, 2, 3])?;
    /// let addr = gpu.device_address(&owned)?; // as another framework would hand it over
    /// let view = unsafe { warpwork::RawSlice::<u32>::from_raw_parts(addr, 3)? };
    /// assert_eq!(gpu.download(&view)?, [1, 2, 3]);
    /// # Ok(()) }
    /// ```
    pub unsafe fn from_raw_parts(addr: CUdeviceptr, len: usize) -> Result<Self> {
        check_raw::<T>(addr, len)?;
        Ok(RawSlice { addr, len, _borrow: PhantomData })
    }
}

impl<'a, T> RawSliceMut<'a, T> {
    /// Wraps `len` elements of `T` at device address `addr` for writing.
    ///
    /// # Safety
    /// As [`RawSlice::from_raw_parts`], and nothing else reads or writes the memory until the
    /// work the call issues has finished.
    ///
    /// # Examples
    /// ```no_run
    /// # fn main() -> warpwork::Result<()> {
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let mut owned = gpu.zeros::<u64>(4)?;
    /// let addr = gpu.device_address(&owned)?;
    /// let mut out = unsafe { warpwork::RawSliceMut::<u64>::from_raw_parts(addr, 4)? };
    /// gpu.fill_bytes(&mut out, 0xff)?;
    /// assert_eq!(gpu.download(&owned)?, [u64::MAX; 4]);
    /// # Ok(()) }
    /// ```
    pub unsafe fn from_raw_parts(addr: CUdeviceptr, len: usize) -> Result<Self> {
        check_raw::<T>(addr, len)?;
        Ok(RawSliceMut { addr, len, _borrow: PhantomData })
    }
}

macro_rules! raw_read {
    ($($ty:ident),*) => {$(
        impl<T> DeviceRead<T> for $ty<'_, T> {
            fn len(&self) -> usize {
                self.len
            }
        }
        impl<T> Bind<T> for $ty<'_, T> {
            fn bind<'a>(&'a self, _to: &Target<'a>) -> Result<Bound<'a>> {
                Ok(Bound { addr: self.addr, _sync: None })
            }
        }
    )*};
}
raw_read!(RawSlice, RawSliceMut);

impl<T> DeviceWrite<T> for RawSliceMut<'_, T> {}
impl<T> BindMut<T> for RawSliceMut<'_, T> {
    fn bind_mut<'a>(&'a mut self, _to: &Target<'a>) -> Result<Bound<'a>> {
        Ok(Bound { addr: self.addr, _sync: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_slices_check_alignment_size_and_null() {
        // SAFETY: never dereferenced: only the constructors' checks run.
        unsafe {
            assert!(RawSlice::<u32>::from_raw_parts(0x1000, 4).is_ok());
            assert!(RawSlice::<u32>::from_raw_parts(0, 0).is_ok());
            assert!(matches!(RawSlice::<u32>::from_raw_parts(0, 1), Err(Error::InvalidInput(m)) if m.contains("null")));
            assert!(matches!(
                RawSlice::<u64>::from_raw_parts(0x1004, 1),
                Err(Error::Misaligned { address: 0x1004, align: 8, .. })
            ));
            assert!(matches!(
                RawSliceMut::<u64>::from_raw_parts(0x1000, usize::MAX / 4),
                Err(Error::InvalidInput(m)) if m.contains("overflow")
            ));
            assert_eq!(RawSlice::<u8>::from_raw_parts(0x1001, 7).unwrap().len(), 7);
        }
    }
}
