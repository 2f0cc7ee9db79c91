//! Typed device buffers.

use crate::{Error, Result};
use bytemuck::Pod;
use cudarc::driver::CudaSlice;
use std::marker::PhantomData;

/// A buffer of `T` in device memory. Any `bytemuck::Pod` type works, so kernels can read and
/// write your own `#[repr(C)]` records. Created through a [`crate::Gpu`].
pub struct DeviceBuffer<T: Pod> {
    raw: CudaSlice<u8>,
    len: usize,
    _elem: PhantomData<T>,
}

impl<T: Pod> DeviceBuffer<T> {
    pub(crate) fn from_bytes(raw: CudaSlice<u8>) -> Result<Self> {
        let size = std::mem::size_of::<T>().max(1);
        if !raw.len().is_multiple_of(size) {
            return Err(Error::InvalidInput(format!(
                "{} bytes is not a whole number of {size}-byte elements",
                raw.len()
            )));
        }
        Ok(DeviceBuffer { len: raw.len() / size, raw, _elem: PhantomData })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.raw.len()
    }

    /// The underlying cudarc slice, as bytes.
    pub fn raw(&self) -> &CudaSlice<u8> {
        &self.raw
    }

    /// The underlying cudarc slice, as bytes, mutably.
    pub fn raw_mut(&mut self) -> &mut CudaSlice<u8> {
        &mut self.raw
    }
}

impl<T: Pod> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer<{}>[{}]", std::any::type_name::<T>(), self.len)
    }
}
