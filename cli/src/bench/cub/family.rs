//! The peer's compaction-family calls (`DevicePartition`, `DeviceSelect::Unique` and
//! `UniqueByKey`, `DeviceRunLengthEncode`) on u32 items, by device address: the benches own the
//! buffers and their lengths.

use super::{dev, less, stream, CubPeer};
use std::ffi::{c_int, c_void};
use std::ptr::null_mut;
use warpwork::cudarc::driver::CudaSlice;
use warpwork::select::Keep;
use warpwork::{Gpu, Result};

/// `(temp, bytes, in, threshold, out, count, n, stream)`.
pub(super) type PartitionLessFn =
    unsafe extern "C" fn(*mut c_void, *mut usize, *const u32, u32, *mut u32, *mut u32, u64, super::Stream) -> c_int;
/// `(temp, bytes, in, flags, out, count, n, stream)`.
pub(super) type PartitionFlaggedFn = super::FlaggedFn;
/// `(temp, bytes, in, out, count, n, stream)`.
pub(super) type UniqueFn =
    unsafe extern "C" fn(*mut c_void, *mut usize, *const u32, *mut u32, *mut u32, u64, super::Stream) -> c_int;
/// `(temp, bytes, in, second input, out, second out, count, n, stream)`.
pub(super) type PairsFn = unsafe extern "C" fn(
    *mut c_void,
    *mut usize,
    *const u32,
    *const u32,
    *mut u32,
    *mut u32,
    *mut u32,
    u64,
    super::Stream,
) -> c_int;
/// `(temp, bytes, in, first out, second out, count, n, stream)`.
pub(super) type RunsFn = unsafe extern "C" fn(
    *mut c_void,
    *mut usize,
    *const u32,
    *mut u32,
    *mut u32,
    *mut u32,
    u64,
    super::Stream,
) -> c_int;

/// One of the family's operations, with what keeps an item for the partitions.
#[derive(Clone, Copy)]
pub enum FamilyOp<'a> {
    /// `DevicePartition::If` (`Predicate::Less`) or `DevicePartition::Flagged`.
    Partition(Keep<'a, u32>),
    /// `DeviceSelect::Unique`.
    Unique,
    /// `DeviceSelect::UniqueByKey`.
    UniqueByKey,
    /// `DeviceRunLengthEncode::Encode`.
    Encode,
    /// `DeviceRunLengthEncode::NonTrivialRuns`.
    NonTrivialRuns,
}

/// The device addresses of one call: `input` (items or keys), `second_input` (flags or values;
/// unused otherwise), `out` and `second_out` (values or lengths; unused by partition and
/// unique), `count` (one u32). Each output holds `n` items.
#[derive(Clone, Copy, Default)]
pub struct Call {
    pub input: u64,
    pub second_input: u64,
    pub out: u64,
    pub second_out: u64,
    pub count: u64,
}

impl CubPeer {
    /// Temporary storage for [`CubPeer::family`] of `op` over `n` items.
    pub fn family_temp(&self, gpu: &Gpu, op: FamilyOp<'_>, n: usize) -> Result<CudaSlice<u8>> {
        let mut bytes = 0usize;
        // SAFETY: a size query (null temp) reads no pointer but `bytes`.
        let code = unsafe { self.family_call(op, null_mut(), &mut bytes, Call::default(), n, stream(gpu)?)? };
        self.check("compaction family (size)", code)?;
        gpu.zeros(bytes.max(1))
    }

    /// Queues `op` over `n` items with the buffers of `call` on the bench's stream.
    ///
    /// # Safety
    /// `call`'s addresses are live device buffers of the lengths [`Call`] says (flags: `n`
    /// bytes), not freed before the work has run; `temp` from [`CubPeer::family_temp`].
    pub unsafe fn family(
        &self,
        gpu: &Gpu,
        op: FamilyOp<'_>,
        temp: &mut CudaSlice<u8>,
        call: Call,
        n: usize,
    ) -> Result<()> {
        let mut bytes = temp.len();
        let t = gpu.device_address(&*temp)?;
        // SAFETY: the caller's contract; the call only queues work.
        let code = unsafe { self.family_call(op, dev(t), &mut bytes, call, n, stream(gpu)?)? };
        self.check("compaction family", code)
    }

    /// The entry point of `op` with these arguments.
    unsafe fn family_call(
        &self,
        op: FamilyOp<'_>,
        temp: *mut c_void,
        bytes: &mut usize,
        c: Call,
        n: usize,
        s: super::Stream,
    ) -> Result<c_int> {
        let (i, i2, o, o2, k) = (
            c.input as *const u32,
            c.second_input as *const u32,
            c.out as *mut u32,
            c.second_out as *mut u32,
            c.count as *mut u32,
        );
        let n = n as u64;
        // SAFETY: the caller's (a size query, or live buffers).
        Ok(unsafe {
            match op {
                FamilyOp::Partition(Keep::If(p)) => (self.partition_less)(temp, bytes, i, less(p)?, o, k, n, s),
                FamilyOp::Partition(Keep::Flagged(_)) => {
                    (self.partition_flagged)(temp, bytes, i, i2 as *const u8, o, k, n, s)
                }
                FamilyOp::Unique => (self.unique)(temp, bytes, i, o, k, n, s),
                FamilyOp::UniqueByKey => (self.unique_by_key)(temp, bytes, i, i2, o, o2, k, n, s),
                FamilyOp::Encode => (self.rle_encode)(temp, bytes, i, o, o2, k, n, s),
                FamilyOp::NonTrivialRuns => (self.rle_non_trivial)(temp, bytes, i, o, o2, k, n, s),
            }
        })
    }
}
