//! warpwork's one error type.

use cudarc::driver::DriverError;

/// Everything a warpwork call can fail with. Bad input is reported here, never by a panic.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The CUDA driver library (`libcuda.so`) could not be loaded: no NVIDIA driver installed.
    #[error("no CUDA driver: libcuda could not be loaded (is the NVIDIA driver installed?)")]
    NoDriver,
    /// The driver loaded but there is no device with this ordinal.
    #[error("no CUDA device {ordinal} ({count} device(s) found)")]
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the driver reports.
        count: usize,
    },
    /// The device is older than warpwork's kernels support.
    #[error("device {name} has compute capability {major}.{minor}; warpwork needs 7.0 or newer")]
    UnsupportedDevice {
        /// Device name.
        name: String,
        /// Compute capability, major.
        major: i32,
        /// Compute capability, minor.
        minor: i32,
    },
    /// A CUDA driver call failed.
    #[error("CUDA driver error: {0}")]
    Driver(#[from] DriverError),
    /// A buffer or stream belongs to another CUDA context than the [`crate::Gpu`] handle: its
    /// addresses would be illegal for warpwork's kernels there.
    #[error("a buffer or stream of another CUDA context was passed to a warpwork handle")]
    WrongContext,
    /// The arguments are inconsistent (lengths that differ, out-of-range parameters, ...).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A buffer is shorter than the call needs (an output, a scratch or state buffer, a
    /// destination of a copy). Nothing was issued.
    #[error("{what}: {len} elements, {needed} needed")]
    BufferTooSmall {
        /// Which buffer, in words a caller recognises (e.g. "scan output").
        what: &'static str,
        /// Its length, in its own elements.
        len: u64,
        /// The length the call needs.
        needed: u64,
    },
    /// A device address is not aligned as the kernels need: a raw pointer, or a cudarc view
    /// that starts inside an allocation (`slice.slice(1..)`), where warpwork's vector loads and
    /// stores would fault. Nothing was issued; copy into an aligned buffer, or start the view
    /// at a multiple of the alignment.
    #[error("{what} at {address:#x} is not aligned to {align} bytes")]
    Misaligned {
        /// Which buffer.
        what: &'static str,
        /// Its device address.
        address: u64,
        /// The alignment needed, in bytes.
        align: u64,
    },
    /// The call cannot be recorded into a CUDA graph: the stream it would be issued to is
    /// capturing one, and the call would wait for the stream, copy from or to host memory,
    /// allocate, or record cudarc's stream events (see "Graph capture" in the crate docs).
    /// Nothing was issued, so the capture stays valid.
    #[error("not allowed while the stream is capturing a CUDA graph: {0}")]
    StreamCapture(String),
    /// The result would not fit: in the output buffer, or in the index type the kernels use.
    #[error("capacity exceeded: {what} needs {needed}, but at most {capacity} fit")]
    CapacityExceeded {
        /// What overflowed.
        what: &'static str,
        /// How much was needed (a lower bound where the device stopped counting).
        needed: u64,
        /// How much fits.
        capacity: u64,
    },
    /// A request larger than a limit the caller configured: a size policy, such as the board and
    /// pattern limits of the `warpwork-life` demo crate. Refused before anything was allocated;
    /// raise the limit to accept it.
    #[error("{what}: {needed} is over the limit of {limit} (raise the limit to allow it)")]
    LimitExceeded {
        /// What was too large, and in which unit.
        what: &'static str,
        /// How much was asked for (`u64::MAX` where that overflows `u64`).
        needed: u64,
        /// The limit in force.
        limit: u64,
    },
    /// Host memory could not be allocated (the request was within the limits, but the machine
    /// could not satisfy it).
    #[error("out of host memory: {what} needs {bytes} bytes")]
    OutOfMemory {
        /// What the memory was for.
        what: &'static str,
        /// Bytes asked for.
        bytes: u64,
    },
    /// The NCCL library (`libnccl.so`) could not be loaded, so no multi-GPU handle can be made.
    /// The `nvidia-nccl-cu12` / `nvidia-nccl-cu13` Python wheels ship it as `libnccl.so.2`
    /// only: link `libnccl.so` to it in a directory on the loader path (see
    /// `warpwork::multi`, the crate feature `nccl`).
    #[error(
        "no NCCL: libnccl.so could not be loaded (a wheel's libnccl.so.2 needs a libnccl.so link on the loader path)"
    )]
    NoNccl,
    /// The same device was named twice for a multi-GPU handle: NCCL needs one rank per device.
    #[error("device {ordinal} named twice: one rank per device")]
    DuplicateDevice {
        /// The device's ordinal.
        ordinal: usize,
    },
    /// An NCCL call failed, with NCCL's result code.
    #[cfg(feature = "nccl")]
    #[error("NCCL error: {0:?}")]
    Nccl(cudarc::nccl::sys::ncclResult_t),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Returns [`Error::InvalidInput`] built from a format string when `cond` is false.
macro_rules! ensure_input {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err($crate::Error::InvalidInput(format!($($msg)+)));
        }
    };
}
pub(crate) use ensure_input;

/// [`Error::BufferTooSmall`] unless `len >= needed`.
pub(crate) fn ensure_len(what: &'static str, len: usize, needed: u64) -> Result<()> {
    if (len as u64) < needed {
        return Err(Error::BufferTooSmall { what, len: len as u64, needed });
    }
    Ok(())
}

/// [`Error::Misaligned`] unless `address` is a multiple of `align`.
pub(crate) fn ensure_aligned(what: &'static str, address: u64, align: u64) -> Result<()> {
    if !address.is_multiple_of(align) {
        return Err(Error::Misaligned { what, address, align });
    }
    Ok(())
}
