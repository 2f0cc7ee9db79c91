//! Host ↔ device copies and the allocating conveniences of a [`Gpu`] handle: the only calls
//! that allocate device memory (they say **Allocates**) or wait for the stream (**Waits**).

use crate::{DeviceRead, DeviceWrite, Error, Gpu, Result};
use bytemuck::Pod;
use cudarc::driver::sys;
use cudarc::driver::CudaSlice;

/// Host ↔ device copies and the allocating conveniences.
impl Gpu {
    /// **Allocates** a device buffer and copies `data` into it. Asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v: cudarc::driver::CudaSlice<u32> = gpu.upload(&[1, 2, 3])?;
    /// assert_eq!(gpu.download(&v)?, [1, 2, 3]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn upload<T: Pod>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        let mut buf = self.alloc::<T>(data.len())?;
        self.upload_into(data, &mut buf)?;
        Ok(buf)
    }

    /// **Allocates** `len` zeroed elements. Asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v = gpu.zeros::<u64>(4)?;
    /// assert_eq!(gpu.download(&v)?, [0; 4]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn zeros<T: Pod>(&self, len: usize) -> Result<CudaSlice<T>> {
        self.filled(len, 0)
    }

    /// **Allocates** `len` elements whose every byte is `byte`: for poisoning outputs in tests, so
    /// that elements a kernel failed to write stand out. Asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v = gpu.filled::<u32>(2, 0xab)?;
    /// assert_eq!(gpu.download(&v)?, [0xabab_abab; 2]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn filled<T: Pod>(&self, len: usize, byte: u8) -> Result<CudaSlice<T>> {
        let mut buf = self.alloc::<T>(len)?;
        self.fill_bytes(&mut buf, byte)?;
        Ok(buf)
    }

    /// Uninitialized device memory for `len` elements, as a typed cudarc slice of any `Pod`
    /// type (cudarc's own allocators ask for its `DeviceRepr`).
    fn alloc<T: Pod>(&self, len: usize) -> Result<CudaSlice<T>> {
        let bytes = byte_len::<T>(len)?;
        if self.stream().capture_status()? != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
            return Err(Error::StreamCapture("an allocation (the convenience forms allocate)".into()));
        }
        // SAFETY: every byte is written (by a copy or a fill) before the slice is handed out.
        let raw = unsafe { self.stream().alloc::<u8>(bytes.max(1))? };
        let addr = raw.leak();
        // SAFETY: `addr` is the allocation just made on `self.stream`, `bytes` long, aligned to
        // 256 bytes, and now owned by the returned slice (freed on the same stream).
        let buf = unsafe { self.stream().upgrade_device_ptr::<T>(addr, len) };
        if self.is_raw() {
            // The raw stream is not ordered after the allocating stream: wait here instead.
            self.stream().synchronize()?;
        }
        Ok(buf)
    }

    /// Copies `data` into the front of `dst` (which must be at least as long). Asynchronous for
    /// ordinary (pageable) host memory, which the driver stages before returning; from
    /// page-locked or managed memory the copy reads `data` after the call returns, so the call
    /// then **waits** for it (the borrow of `data` ends when it returns).
    /// [`Error::StreamCapture`] while the stream is capturing a graph.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let mut v = gpu.zeros::<u32>(3)?;
    /// gpu.upload_into(&[7, 8], &mut v)?;
    /// assert_eq!(gpu.download(&v)?, [7, 8, 0]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn upload_into<T: Pod>(&self, data: &[T], dst: &mut impl DeviceWrite<T>) -> Result<()> {
        crate::error::ensure_len("upload destination", dst.len(), data.len() as u64)?;
        self.refuse_in_capture("a copy from host memory (a graph would read it at replay time)")?;
        let target = self.target()?;
        let b = dst.bind_mut(&target)?;
        if data.is_empty() {
            return Ok(());
        }
        let page_locked = host_memory_is_known_to_cuda(data.as_ptr().cast());
        // SAFETY: `dst` holds at least `data.len()` elements; the copy is issued to this
        // handle's stream, after the binding's ordering; `data` is read before this returns
        // (staged by the driver, or waited for below).
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(b.addr, data.as_ptr().cast(), std::mem::size_of_val(data), self.cu_stream())
                .result()?
        };
        drop(b);
        if page_locked {
            self.synchronize()?;
        }
        Ok(())
    }

    /// Copies `src` back to the host. **Waits** for the stream.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v = gpu.upload(&[4u16, 5])?;
    /// assert_eq!(gpu.download(&v)?, [4, 5]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn download<T: Pod>(&self, src: &impl DeviceRead<T>) -> Result<Vec<T>> {
        self.download_prefix(src, src.len())
    }

    /// Copies the first `len` elements of `src` back to the host. **Waits** for the stream.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v = gpu.upload(&[1u8, 2, 3])?;
    /// assert_eq!(gpu.download_prefix(&v, 2)?, [1, 2]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn download_prefix<T: Pod>(&self, src: &impl DeviceRead<T>, len: usize) -> Result<Vec<T>> {
        crate::error::ensure_len("download source", src.len(), len as u64)?;
        self.refuse_in_capture("a copy to host memory waits for the stream")?;
        let mut out = try_vec::<T>(len)?;
        self.download_into(src, &mut out)?;
        Ok(out)
    }

    /// Copies the first `dst.len()` elements of `src` into `dst`. **Waits** for the stream.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v = gpu.upload(&[5u16, 6, 7])?;
    /// let mut host = [0u16; 3];
    /// gpu.download_into(&v, &mut host)?;
    /// assert_eq!(host, [5, 6, 7]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn download_into<T: Pod>(&self, src: &impl DeviceRead<T>, dst: &mut [T]) -> Result<()> {
        crate::error::ensure_len("download source", src.len(), dst.len() as u64)?;
        self.refuse_in_capture("a copy to host memory waits for the stream")?;
        let target = self.target()?;
        let b = src.bind(&target)?;
        if !dst.is_empty() {
            // SAFETY: `src` holds at least `dst.len()` elements and `dst` has room for them; the
            // stream is synchronized before `dst` is read.
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr().cast(), b.addr, std::mem::size_of_val(dst), self.cu_stream())
                    .result()?
            };
        }
        drop(b);
        self.synchronize()
    }

    /// Copies `src` into the front of `dst` on the device. Asynchronous; capturable.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let a = gpu.upload(&[1u64, 2])?;
    /// let mut b = gpu.zeros::<u64>(3)?;
    /// gpu.copy(&a, &mut b)?;
    /// assert_eq!(gpu.download(&b)?, [1, 2, 0]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn copy<T: Pod>(&self, src: &impl DeviceRead<T>, dst: &mut impl DeviceWrite<T>) -> Result<()> {
        crate::error::ensure_len("copy destination", dst.len(), src.len() as u64)?;
        let target = self.target()?;
        let (s, d) = (src.bind(&target)?, dst.bind_mut(&target)?);
        if src.is_empty() {
            return Ok(());
        }
        // SAFETY: both ranges are inside their buffers.
        unsafe {
            sys::cuMemcpyDtoDAsync_v2(d.addr, s.addr, src.len() * std::mem::size_of::<T>(), self.cu_stream())
                .result()?
        };
        Ok(())
    }

    /// Sets every byte of `dst` to `byte`. Asynchronous; capturable.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let mut v = gpu.zeros::<u32>(2)?;
    /// gpu.fill_bytes(&mut v, 1)?;
    /// assert_eq!(gpu.download(&v)?, [0x0101_0101; 2]);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn fill_bytes<T>(&self, dst: &mut impl DeviceWrite<T>, byte: u8) -> Result<()> {
        let bytes = byte_len::<T>(dst.len())?;
        let target = self.target()?;
        let d = dst.bind_mut(&target)?;
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: the range is `dst`'s.
        unsafe { sys::cuMemsetD8Async(d.addr, byte, bytes, self.cu_stream()).result()? };
        Ok(())
    }

    /// Sets the 32-bit words of `buf` from word `first` on to `values`, one 32-bit memset each:
    /// stream-ordered and capturable (a graph holds memset nodes), with no host memory involved.
    /// Asynchronous.
    pub(crate) fn set_words<T>(&self, buf: &mut impl DeviceWrite<T>, first: usize, values: &[u32]) -> Result<()> {
        let words = buf.len().saturating_mul(std::mem::size_of::<T>()) / 4;
        crate::error::ensure_input!(
            first + values.len() <= words,
            "setting words {first}..{} of a buffer of {words} words",
            first + values.len()
        );
        let target = self.target()?;
        let d = buf.bind_mut(&target)?;
        for (i, &v) in values.iter().enumerate() {
            // SAFETY: word `first + i` lies inside `buf`.
            unsafe { sys::cuMemsetD32Async(d.addr + 4 * (first + i) as u64, v, 1, self.cu_stream()).result()? };
        }
        Ok(())
    }

    /// Zeroes the 32-bit words `range` of `buf`, as one 32-bit memset (the driver's byte-wise
    /// memset was measured slower for the few KiB an expander clears). Asynchronous.
    pub(crate) fn zero_words<T>(&self, buf: &mut impl DeviceWrite<T>, range: std::ops::Range<usize>) -> Result<()> {
        let words = buf.len().saturating_mul(std::mem::size_of::<T>()) / 4;
        crate::error::ensure_input!(
            range.start <= range.end && range.end <= words,
            "zeroing words {range:?} of a buffer of {words} words"
        );
        let target = self.target()?;
        let d = buf.bind_mut(&target)?;
        // SAFETY: the words `range` lie inside `buf`.
        unsafe { sys::cuMemsetD32Async(d.addr + 4 * range.start as u64, 0, range.len(), self.cu_stream()).result()? };
        Ok(())
    }

    /// The device address of `buf`, for handing it to another framework or FFI (see
    /// [`crate::RawSlice`] for the way back). [`Error::WrongContext`] for a buffer of another
    /// context. Using the address is `unsafe` wherever it goes: the caller keeps `buf` alive and
    /// orders the other framework's work after cudarc's (`gpu.synchronize()` is the simple way).
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let v = gpu.zeros::<u32>(8)?;
    /// let addr = gpu.device_address(&v)?;
    /// assert_eq!(addr % 256, 0); // allocations are 256-byte aligned
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn device_address<T, B: DeviceRead<T> + ?Sized>(&self, buf: &B) -> Result<u64> {
        Ok(buf.bind(&self.target()?)?.addr)
    }
}

/// Whether the driver knows the host address `p` (page-locked, registered or managed memory): a
/// copy from such memory is truly asynchronous and reads it after the call returns. Ordinary
/// pageable memory is unknown to the driver and is staged before the call returns.
/// `cuPointerGetAttributes` (plural) answers "memory type 0" for an address the driver does not
/// know, where the singular form returns an error (which compute-sanitizer reports).
fn host_memory_is_known_to_cuda(p: *const std::ffi::c_void) -> bool {
    let mut kind = 0u32;
    let mut attribute = sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
    let mut data = [(&mut kind as *mut u32).cast::<std::ffi::c_void>()];
    // SAFETY: one attribute, written as one `u32` (a `CUmemorytype`) through `data[0]`.
    let known =
        unsafe { sys::cuPointerGetAttributes(1, &mut attribute, data.as_mut_ptr(), p as sys::CUdeviceptr).result() };
    // On an error, assume the worst: the copy then waits, which is always sound.
    known.is_err() || kind != 0
}

/// A host vector of `len` elements, allocated fallibly: a huge download is an error, not an
/// abort.
fn try_vec<T: Pod>(len: usize) -> Result<Vec<T>> {
    zeroed_vec(len, "a download's host buffer")
}

/// `len` zeroed elements of host memory, or [`Error::OutOfMemory`] naming `what`: every host
/// buffer warpwork allocates for data of the caller's size goes through here, so a huge size is
/// an error, never an abort. The memory comes from `alloc_zeroed`, so the operating system hands
/// out zero pages lazily: a buffer costs nothing until written.
pub(crate) fn zeroed_vec<T: Pod>(len: usize, what: &'static str) -> Result<Vec<T>> {
    let oom = || Error::OutOfMemory { what, bytes: (len as u64).saturating_mul(std::mem::size_of::<T>() as u64) };
    if len == 0 || std::mem::size_of::<T>() == 0 {
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

pub(crate) fn byte_len<T>(len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>())
        .ok_or_else(|| Error::InvalidInput(format!("a buffer of {len} elements overflows usize bytes")))
}
