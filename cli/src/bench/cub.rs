//! The CUB peer (`peers/cub/`): CUB's scan, select, partition, unique and run-length encoding, and a CUB scan + binary-search expansion,
//! built with nvcc into a shared library that the benches load at run time when present, so their
//! tables show CUB's time beside warpwork's on the same inputs.
//!
//! Same device, context, buffers and stream: the peer's CUDA runtime works in the device's
//! primary context, which is the one `cudarc::driver::CudaContext::new` retains (it calls
//! `cuDevicePrimaryCtxRetain`, then makes it current), and it receives warpwork's device pointers
//! and [`Gpu::stream`] (the legacy default stream, NULL). Each call only queues work, so the
//! benches time it with the very timer they time warpwork with ([`Gpu::median_ms`]).
//!
//! Temporary storage is CUB's convention: a size query (`*_temp`), then the caller's allocation,
//! made once per (operation, size) outside the timed region and passed to every call.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::{Path, PathBuf};
use std::ptr::{null, null_mut};
use warpwork::cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use warpwork::scan::ScanItem;
use warpwork::select::{Keep, Predicate};
use warpwork::{Error, Gpu, Result};

/// The variable naming the peer library (overrides the default location).
pub const ENV: &str = "WARPWORK_CUB_PEER";
/// The library's file name; looked for next to the `warpwork` executable.
pub const FILE_NAME: &str = "libwarpwork_cub_peer.so";
/// `WW_CUB_ABI_VERSION` in `peers/cub/cub_peer.cu`: the signatures below.
const ABI_VERSION: u32 = 2;

type Stream = *mut c_void;
type ScanFn<T> = unsafe extern "C" fn(*mut c_void, *mut usize, *const T, *mut T, u64, Stream) -> c_int;
type FlaggedFn =
    unsafe extern "C" fn(*mut c_void, *mut usize, *const u32, *const u8, *mut u32, *mut u32, u64, Stream) -> c_int;
type LessFn = unsafe extern "C" fn(*mut c_void, *mut usize, *const u32, u32, *mut u32, *mut u32, u64, Stream) -> c_int;
mod family;
pub use family::{Call, FamilyOp};

type ExpandFn =
    unsafe extern "C" fn(*mut c_void, *mut usize, *const u32, u64, *mut u32, u64, *mut u32, Stream) -> c_int;

/// The loaded peer library and its entry points.
pub struct CubPeer {
    path: PathBuf,
    cub_version: i32,
    runtime_version: i32,
    error_string: unsafe extern "C" fn(c_int) -> *const c_char,
    scan_u32: ScanFn<u32>,
    scan_u64: ScanFn<u64>,
    select_flagged: FlaggedFn,
    select_less: LessFn,
    expand: ExpandFn,
    partition_less: family::PartitionLessFn,
    partition_flagged: family::PartitionFlaggedFn,
    unique: family::UniqueFn,
    unique_by_key: family::PairsFn,
    rle_encode: family::RunsFn,
    rle_non_trivial: family::RunsFn,
    /// Keeps the function pointers above valid; dropped last.
    _library: libloading::Library,
}

/// The scan element types the peer has an `ExclusiveSum` for.
pub trait PeerScanItem: ScanItem {
    /// The peer's entry point for this type.
    fn entry(peer: &CubPeer) -> ScanFn<Self>;
}
impl PeerScanItem for u32 {
    fn entry(peer: &CubPeer) -> ScanFn<u32> {
        peer.scan_u32
    }
}
impl PeerScanItem for u64 {
    fn entry(peer: &CubPeer) -> ScanFn<u64> {
        peer.scan_u64
    }
}

impl CubPeer {
    /// The peer named by [`ENV`] (an error if it cannot be loaded: it was asked for), else the
    /// [`FILE_NAME`] next to this executable if there is one, else `None`.
    pub fn find() -> Result<Option<CubPeer>> {
        if let Some(path) = std::env::var_os(ENV).filter(|p| !p.is_empty()) {
            return Self::load(Path::new(&path)).map(Some);
        }
        let beside = std::env::current_exe().ok().and_then(|exe| exe.parent().map(|dir| dir.join(FILE_NAME)));
        match beside {
            Some(path) if path.is_file() => Self::load(&path).map(Some),
            _ => Ok(None),
        }
    }

    /// Loads the peer library at `path` and checks its ABI version.
    pub fn load(path: &Path) -> Result<CubPeer> {
        let fail = |what: String| Error::InvalidInput(format!("CUB peer {}: {what}", path.display()));
        // SAFETY: loading runs the library's initializers: the peer's are the CUDA runtime's and
        // CUB's static ones, which do not touch the device.
        let library = unsafe { libloading::Library::new(path) }.map_err(|e| fail(e.to_string()))?;
        macro_rules! entry {
            ($name:literal) => {
                // SAFETY: the symbol is the peer's `extern "C"` function of that name, whose
                // signature is the field's type (checked by the ABI version below).
                *unsafe { library.get($name) }.map_err(|e| fail(e.to_string()))?
            };
        }
        let abi: unsafe extern "C" fn() -> u32 = entry!(b"ww_cub_abi_version\0");
        // SAFETY: takes nothing, returns a constant.
        let abi = unsafe { abi() };
        if abi != ABI_VERSION {
            return Err(fail(format!("ABI version {abi}, this warpwork expects {ABI_VERSION}: rebuild it")));
        }
        let cub_version: unsafe extern "C" fn() -> c_int = entry!(b"ww_cub_version\0");
        let runtime_version: unsafe extern "C" fn() -> c_int = entry!(b"ww_cub_runtime_version\0");
        Ok(CubPeer {
            path: path.to_path_buf(),
            // SAFETY: both take nothing and return constants.
            cub_version: unsafe { cub_version() },
            runtime_version: unsafe { runtime_version() },
            error_string: entry!(b"ww_cub_error_string\0"),
            scan_u32: entry!(b"ww_cub_exclusive_sum_u32\0"),
            scan_u64: entry!(b"ww_cub_exclusive_sum_u64\0"),
            select_flagged: entry!(b"ww_cub_select_flagged_u32\0"),
            select_less: entry!(b"ww_cub_select_less_u32\0"),
            expand: entry!(b"ww_cub_expand\0"),
            partition_less: entry!(b"ww_cub_partition_less_u32\0"),
            partition_flagged: entry!(b"ww_cub_partition_flagged_u32\0"),
            unique: entry!(b"ww_cub_unique_u32\0"),
            unique_by_key: entry!(b"ww_cub_unique_by_key_u32\0"),
            rle_encode: entry!(b"ww_cub_rle_encode_u32\0"),
            rle_non_trivial: entry!(b"ww_cub_rle_non_trivial_u32\0"),
            _library: library,
        })
    }

    /// "CUB 3.0.1, CUDA runtime 13.0, PATH": what the tables were compared with.
    pub fn describe(&self) -> String {
        let (c, r) = (self.cub_version, self.runtime_version);
        format!(
            "CUB {}.{}.{}, CUDA runtime {}.{}, {}",
            c / 100_000,
            c / 100 % 1000,
            c % 100,
            r / 1000,
            r % 1000 / 10,
            self.path.display()
        )
    }

    /// Temporary storage for [`CubPeer::exclusive_sum`] of `n` items of `T`.
    pub fn scan_temp<T: PeerScanItem>(&self, gpu: &Gpu, n: usize) -> Result<CudaSlice<u8>> {
        let mut bytes = 0usize;
        // SAFETY: a size query (null temp) reads no pointer but `bytes`.
        let code = unsafe { T::entry(self)(null_mut(), &mut bytes, null(), null_mut(), n as u64, stream(gpu)?) };
        self.check("DeviceScan::ExclusiveSum (size)", code)?;
        gpu.zeros(bytes.max(1))
    }

    /// `output[i] = input[0] + … + input[i-1]` with `cub::DeviceScan::ExclusiveSum`, on
    /// [`Gpu::stream`]; `temp` from [`CubPeer::scan_temp`] for at least this size.
    pub fn exclusive_sum<T: PeerScanItem>(
        &self,
        gpu: &Gpu,
        temp: &mut CudaSlice<u8>,
        input: &CudaSlice<T>,
        output: &mut CudaSlice<T>,
    ) -> Result<()> {
        let n = input.len();
        if output.len() < n {
            return Err(Error::InvalidInput(format!("CUB scan of {n} items into {}", output.len())));
        }
        let s = stream(gpu)?;
        let mut bytes = temp.len();
        let (t, _t) = temp.device_ptr_mut(gpu.stream());
        let (i, _i) = input.device_ptr(gpu.stream());
        let (o, _o) = output.device_ptr_mut(gpu.stream());
        // SAFETY: device pointers of live buffers: `input` holds `n` items, `output` at least `n`,
        // `temp` `bytes` bytes; the call only queues work on the stream.
        let code = unsafe { T::entry(self)(dev(t), &mut bytes, i as *const T, o as *mut T, n as u64, s) };
        self.check("DeviceScan::ExclusiveSum", code)
    }

    /// Temporary storage for [`CubPeer::select`] of `n` items.
    pub fn select_temp(&self, gpu: &Gpu, keep: Keep<'_, u32>, n: usize) -> Result<CudaSlice<u8>> {
        let mut bytes = 0usize;
        let (s, n64) = (stream(gpu)?, n as u64);
        // SAFETY: size queries (null temp) read no pointer but `bytes`.
        let code = unsafe {
            match keep {
                Keep::Flagged(_) => {
                    (self.select_flagged)(null_mut(), &mut bytes, null(), null(), null_mut(), null_mut(), n64, s)
                }
                Keep::If(p) => {
                    (self.select_less)(null_mut(), &mut bytes, null(), less(p)?, null_mut(), null_mut(), n64, s)
                }
            }
        };
        self.check("DeviceSelect (size)", code)?;
        gpu.zeros(bytes.max(1))
    }

    /// The items `keep` keeps, **in input order**, into `out`, and their number into `count[0]`:
    /// `cub::DeviceSelect::Flagged`, or `cub::DeviceSelect::If` for [`Predicate::Less`] (the only
    /// predicate the peer has). `temp` from [`CubPeer::select_temp`].
    pub fn select(
        &self,
        gpu: &Gpu,
        temp: &mut CudaSlice<u8>,
        items: &CudaSlice<u32>,
        keep: Keep<'_, u32>,
        out: &mut CudaSlice<u32>,
        count: &mut CudaSlice<u32>,
    ) -> Result<()> {
        let n = items.len();
        let lengths_ok = out.len() >= n
            && count.len() == 1
            && match keep {
                Keep::Flagged(flags) => flags.len() == n,
                Keep::If(_) => true,
            };
        if !lengths_ok {
            return Err(Error::InvalidInput(format!(
                "CUB select of {n} items into {} with a counter of {}, or flags of another length",
                out.len(),
                count.len()
            )));
        }
        let s = stream(gpu)?;
        let mut bytes = temp.len();
        let (t, _t) = temp.device_ptr_mut(gpu.stream());
        let (i, _i) = items.device_ptr(gpu.stream());
        let (o, _o) = out.device_ptr_mut(gpu.stream());
        let (c, _c) = count.device_ptr_mut(gpu.stream());
        let (i, o, c) = (i as *const u32, o as *mut u32, c as *mut u32);
        // SAFETY: device pointers of live buffers of the lengths checked above; the calls only
        // queue work on the stream.
        let code = match keep {
            Keep::Flagged(flags) => {
                let f = gpu.device_address(flags)?;
                unsafe { (self.select_flagged)(dev(t), &mut bytes, i, f as *const u8, o, c, n as u64, s) }
            }
            Keep::If(p) => unsafe { (self.select_less)(dev(t), &mut bytes, i, less(p)?, o, c, n as u64, s) },
        };
        self.check("DeviceSelect", code)
    }

    /// Temporary storage for [`CubPeer::expand`] of `p1` sources (CUB's scan storage and the
    /// offsets).
    pub fn expand_temp(&self, gpu: &Gpu, p1: usize) -> Result<CudaSlice<u8>> {
        let mut bytes = 0usize;
        // SAFETY: a size query (null temp) reads no pointer but `bytes`.
        let code = unsafe {
            (self.expand)(null_mut(), &mut bytes, null(), p1 as u64, null_mut(), 0, null_mut(), stream(gpu)?)
        };
        self.check("expand (size)", code)?;
        gpu.zeros(bytes.max(1))
    }

    /// The `(src, local)` pair of every destination item of `counts`, in canonical order, into
    /// `pairs` (at most `pairs.len()`), and the number of destination items into `total[0]`: an
    /// exclusive `cub::DeviceScan::ExclusiveSum` of the counts, then a binary search per item.
    pub fn expand(
        &self,
        gpu: &Gpu,
        temp: &mut CudaSlice<u8>,
        counts: &CudaSlice<u32>,
        pairs: &mut CudaSlice<[u32; 2]>,
        total: &mut CudaSlice<u32>,
    ) -> Result<()> {
        if total.len() != 1 {
            return Err(Error::InvalidInput(format!("CUB expand: the total must be one u32, got {}", total.len())));
        }
        let s = stream(gpu)?;
        let mut bytes = temp.len();
        let (p1, capacity) = (counts.len() as u64, pairs.len() as u64);
        let (t, _t) = temp.device_ptr_mut(gpu.stream());
        let (c, _c) = counts.device_ptr(gpu.stream());
        let (p, _p) = pairs.device_ptr_mut(gpu.stream());
        let (n, _n) = total.device_ptr_mut(gpu.stream());
        // SAFETY: device pointers of live buffers: `counts` holds `p1` counts, `pairs`
        // `capacity` pairs (two u32 each), `total` one u32; the call only queues work.
        let code = unsafe {
            (self.expand)(dev(t), &mut bytes, c as *const u32, p1, p as *mut u32, capacity, n as *mut u32, s)
        };
        self.check("expand", code)
    }

    /// The peer's `extern "C"` function `name`, for benches that look their entries up when they
    /// run (`warpwork bench reduce`); an error naming it if the library lacks it (an older peer).
    pub fn entry<F: Copy>(&self, name: &str) -> Result<F> {
        let symbol = format!("{name}\0");
        // SAFETY: the caller names an `extern "C"` function of the peer whose signature is `F`
        // (peers/cub/cub_peer.cu); the pointer stays valid while `self` holds the library.
        let f = unsafe { self._library.get::<F>(symbol.as_bytes()) };
        f.map(|f| *f).map_err(|e| {
            Error::InvalidInput(format!("CUB peer {}: {e} (rebuild it with peers/cub/build.sh)", self.path.display()))
        })
    }

    /// [`Gpu::stream`] as the peer takes it, with the context current on this thread.
    pub fn stream_of(&self, gpu: &Gpu) -> Result<*mut c_void> {
        stream(gpu)
    }

    /// A CUDA runtime error code from the peer, as an [`Error`].
    pub fn check(&self, what: &str, code: c_int) -> Result<()> {
        if code == 0 {
            return Ok(());
        }
        // SAFETY: `cudaGetErrorString` returns a static NUL-terminated string for any code.
        let text = unsafe { CStr::from_ptr((self.error_string)(code)) }.to_string_lossy();
        Err(Error::InvalidInput(format!("CUB peer: {what} failed with CUDA runtime error {code} ({text})")))
    }
}

/// [`Gpu::stream`] as the peer takes it, with the context made current on this thread (the
/// runtime then uses it, as it would the primary context).
fn stream(gpu: &Gpu) -> Result<Stream> {
    gpu.context().bind_to_thread()?;
    Ok(gpu.cu_stream() as Stream)
}

/// A device address as the peer's `void*`.
fn dev(address: u64) -> *mut c_void {
    address as *mut c_void
}

/// The threshold of the peer's one predicate.
fn less(p: Predicate<u32>) -> Result<u32> {
    match p {
        Predicate::Less(t) => Ok(t),
        other => Err(Error::InvalidInput(format!("the CUB peer selects with Predicate::Less only, not {other:?}"))),
    }
}

/// Checks `pairs` against the canonical expansion of `counts` (source-major, locals ascending)
/// without materializing it: the benches' check of the peer's expansion.
pub fn pairs_are_canonical(counts: &[u32], pairs: &[[u32; 2]]) -> bool {
    let mut at = 0usize;
    for (s, &c) in counts.iter().enumerate() {
        let Some(run) = pairs.get(at..at + c as usize) else { return false };
        if run.iter().enumerate().any(|(l, &p)| p != [s as u32, l as u32]) {
            return false;
        }
        at += c as usize;
    }
    at == pairs.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_an_error_that_names_it() {
        let path = Path::new("/nonexistent/libwarpwork_cub_peer.so");
        let Err(Error::InvalidInput(message)) = CubPeer::load(path) else { panic!("loaded a missing library") };
        assert!(message.contains("/nonexistent/libwarpwork_cub_peer.so"), "{message}");
    }

    /// The GPU suite (`run.sh`) builds the peer where nvcc is and names it in `WARPWORK_CUB_PEER`:
    /// then it must load, with this ABI. Needs no GPU.
    #[test]
    #[ignore = "needs the CUB peer built by peers/cub/build.sh, named in WARPWORK_CUB_PEER"]
    fn the_built_peer_loads() {
        let Some(path) = std::env::var_os(ENV) else {
            eprintln!("{ENV} is not set: nothing to load");
            return;
        };
        let peer = CubPeer::load(Path::new(&path)).unwrap_or_else(|e| panic!("{e}"));
        assert!(peer.describe().starts_with("CUB "), "{}", peer.describe());
        assert!(peer.cub_version >= 200_000, "CUB {} is older than 2.0", peer.cub_version);
    }

    #[test]
    fn canonical_pairs_are_recognized_and_others_are_not() {
        let counts = [2, 0, 1];
        assert!(pairs_are_canonical(&counts, &[[0, 0], [0, 1], [2, 0]]));
        assert!(!pairs_are_canonical(&counts, &[[0, 0], [0, 1]]));
        assert!(!pairs_are_canonical(&counts, &[[0, 0], [0, 1], [2, 0], [2, 1]]));
        assert!(!pairs_are_canonical(&counts, &[[0, 1], [0, 0], [2, 0]]));
        assert!(!pairs_are_canonical(&counts, &[[0, 0], [0, 1], [1, 0]]));
        assert!(pairs_are_canonical(&[], &[]));
    }

    #[test]
    fn only_less_is_a_peer_predicate() {
        assert_eq!(less(Predicate::Less(7)).unwrap(), 7);
        assert!(less(Predicate::NonZero).is_err());
    }
}
