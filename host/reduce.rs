//! Reductions: the sum, minimum or maximum of `u32`, `i32`, `u64`, `i64`, `f32` or `f64`
//! elements, the index and value of the least or greatest (argmin, argmax), and segmented
//! reductions over offsets (`kernels/src/device/reduce.rs`; design and measurements in
//! [`guide::reduce`](crate::guide::reduce)).
//!
//! * [`Gpu::reduce`] / [`Gpu::arg_reduce`] **allocate** their scratch and result and **wait**
//!   for them: they return host values.
//! * [`Gpu::reduce_into`] / [`Gpu::arg_reduce_into`] write the result into your device buffers
//!   and take scratch of [`scratch_len`] `u32`s (CUB's temporary storage): they allocate
//!   nothing, never wait, need no preparation of the scratch, and can be captured into a CUDA
//!   graph.
//! * [`Gpu::segmented_reduce`] reduces each segment `input[offsets[s]..offsets[s + 1]]` into
//!   `out[s]`; it needs no scratch.
//!
//! **Results.** Integer sums wrap. Empty inputs give the identity: 0 for integer sums, `-0.0`
//! for float sums (it compares equal to `0.0`), `T::MAX` / `T::MIN` for integer min / max,
//! `+inf` / `-inf` for float min / max. Float min and max are IEEE 754-2019 `minimum` /
//! `maximum`, as the scans' ([`crate::scan`]): a NaN anywhere gives `f32::NAN` / `f64::NAN`, and
//! `-0.0 < +0.0`.
//!
//! **Argmin, argmax.** The index (a `u64`) and value of the least (greatest) element; among
//! equal elements the smallest index, as CUB's. For floats, in the order of `minimum` /
//! `maximum`: the first NaN if there is one (its value is the input's NaN, bit for bit), and
//! `-0.0` before `+0.0` for argmin (after it for argmax). An empty input gives index `u64::MAX`
//! and the identity of min (max) as the value ([`Gpu::arg_reduce`]: `None`).
//!
//! **Float sums are deterministic.** The launch shape depends only on `n` (and the element
//! size), not on the device, so a float sum is evaluated in one fixed order and gives the same
//! bits on every run and every GPU, for the same input at the same address modulo 16. That
//! order is not left to right (a tree of per-thread runs; see the guide), so the result is not
//! bit-equal to a sequential CPU sum: its error is bounded like a blocked sum's. (On long
//! inputs the blocks claim the input as they go, which evens out the multiprocessors'
//! finishing times: the integer operators, min, max and the arg operators are exact in any
//! order, and an `f32` sum then keeps each warp's partial sum of each 8 KiB unit apart, adds
//! them exactly and rounds once — the same bits whichever block took which unit, and an error
//! that does not grow with `n`. `f64` sums keep their fixed order.)

use crate::error::ensure_len;
use crate::launch::{grid_x, MAX_GRID_X};
use crate::scan::ScanItem;
use crate::{DeviceRead, DeviceWrite, Gpu, KernelArgs, Result};
use cudarc::driver::LaunchConfig;
use warpwork_abi::reduce as abi;

/// What a reduction combines with (see the module docs for identities and float rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum (wrapping for integers).
    Sum,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

/// Which element an argument reduction finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgOp {
    /// The least element (ties: the smallest index).
    Min,
    /// The greatest element (ties: the smallest index).
    Max,
}

/// Element types the reductions are built for: `u32`, `i32`, `u64`, `i64`, `f32`, `f64` (the
/// scan types).
pub trait ReduceItem: ScanItem + sealed::Sealed {
    /// The kernels: sum, min, max, argmin, argmax.
    #[doc(hidden)]
    const REDUCE_KERNELS: [&'static str; 5];
    /// The segmented kernels: sum, min, max.
    #[doc(hidden)]
    const SEGMENTED: [&'static str; 3];
    /// The folds of argmin and argmax results (the sharded argmin / argmax).
    #[doc(hidden)]
    const ARG_FOLD: [&'static str; 2];
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! reduce_items {
    ($($t:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl ReduceItem for $t {
            const REDUCE_KERNELS: [&'static str; 5] = [
                concat!("reduce_sum_", stringify!($t)),
                concat!("reduce_min_", stringify!($t)),
                concat!("reduce_max_", stringify!($t)),
                concat!("reduce_argmin_", stringify!($t)),
                concat!("reduce_argmax_", stringify!($t)),
            ];
            const SEGMENTED: [&'static str; 3] = [
                concat!("segmented_reduce_sum_", stringify!($t)),
                concat!("segmented_reduce_min_", stringify!($t)),
                concat!("segmented_reduce_max_", stringify!($t)),
            ];
            const ARG_FOLD: [&'static str; 2] = [
                concat!("reduce_argmin_fold_", stringify!($t)),
                concat!("reduce_argmax_fold_", stringify!($t)),
            ];
        }
    )*};
}
reduce_items!(u32, i32, u64, i64, f32, f64);

impl ReduceOp {
    fn index(self) -> usize {
        match self {
            ReduceOp::Sum => 0,
            ReduceOp::Min => 1,
            ReduceOp::Max => 2,
        }
    }
}

/// The length, in `u32` elements, of the `scratch` buffer a reduction of `n` elements of `T`
/// takes ([`Gpu::reduce_into`], [`Gpu::arg_reduce_into`]): a ticket and a claim counter (16
/// bytes) and one 16-byte partial per block (at most 1024 blocks: at most 4103 words, whatever
/// `n`) — or, if more, the `f32` sum's exact accumulators (1136 bytes) — plus three words so
/// that they can start 16-byte aligned in any `u32` buffer. The same for every operator, and
/// never less for a larger `n`: scratch for `n` elements serves every shorter input.
///
/// # Examples
/// ```
/// use warpwork::reduce::scratch_len;
/// assert_eq!(scratch_len::<u32>(0), 291); // one block: the f32 sum's accumulators are more
/// assert_eq!(scratch_len::<f32>(1 << 30), scratch_len::<u64>(1 << 30)); // 1024 blocks
/// assert!(scratch_len::<f64>(1 << 40) <= 4103);
/// ```
pub fn scratch_len<T: ReduceItem>(n: usize) -> usize {
    abi::scratch_words(std::mem::size_of::<T>(), n as u64) as usize
}

impl Gpu {
    /// The sum, minimum or maximum of `input`, to the host. **Allocates** its scratch and
    /// result and **waits** for the result. See the [module docs](crate::reduce) for empty
    /// inputs and floats.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::reduce::ReduceOp;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[3i32, -1, 4, -1, 5])?;
    /// assert_eq!(gpu.reduce(&input, ReduceOp::Sum)?, 10);
    /// assert_eq!(gpu.reduce(&input, ReduceOp::Min)?, -1);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn reduce<T: ReduceItem>(&self, input: &impl DeviceRead<T>, op: ReduceOp) -> Result<T> {
        let mut scratch = self.zeros::<u32>(scratch_len::<T>(input.len()))?;
        let mut out = self.zeros::<T>(1)?;
        self.reduce_into(input, op, &mut out, &mut scratch)?;
        Ok(self.download(&out)?[0])
    }

    /// [`Gpu::reduce`] into `out[0]` (`out` may be longer; the rest is untouched), with
    /// caller-provided scratch of at least [`scratch_len::<T>(input.len())`](scratch_len)
    /// words, which needs no preparation (a zeroing kernel runs first, and the reduce is its
    /// programmatic dependent where the device allows). Allocates nothing and never waits, so it
    /// can be captured into a CUDA graph; asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::reduce::{scratch_len, ReduceOp};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[1.5f64; 1000])?;
    /// let mut out = gpu.zeros::<f64>(1)?;
    /// let mut scratch = gpu.zeros::<u32>(scratch_len::<f64>(1000))?;
    /// gpu.reduce_into(&input, ReduceOp::Sum, &mut out, &mut scratch)?;
    /// assert_eq!(gpu.download(&out)?, [1500.0]); // exact here: every partial sum is representable
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn reduce_into<T: ReduceItem>(
        &self,
        input: &impl DeviceRead<T>,
        op: ReduceOp,
        out: &mut impl DeviceWrite<T>,
        scratch: &mut impl DeviceWrite<u32>,
    ) -> Result<()> {
        ensure_len("reduce output", out.len(), 1)?;
        let n = input.len();
        self.launch_reduce(input, &n, T::REDUCE_KERNELS[op.index()], scratch, move |l| {
            let out = l.bind_mut(out)?;
            l.addr(out).addr(0);
            Ok(())
        })
    }

    /// The index and value of the least ([`ArgOp::Min`]) or greatest ([`ArgOp::Max`]) element
    /// of `input` (ties: the smallest index), or `None` for an empty input. **Allocates** its
    /// scratch and results and **waits** for them. See the [module docs](crate::reduce) for
    /// floats (the first NaN wins).
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::reduce::ArgOp;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[3.0f32, -1.0, 4.0, -1.0, 5.0])?;
    /// assert_eq!(gpu.arg_reduce(&input, ArgOp::Min)?, Some((1, -1.0)));
    /// assert_eq!(gpu.arg_reduce(&input, ArgOp::Max)?, Some((4, 5.0)));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn arg_reduce<T: ReduceItem>(&self, input: &impl DeviceRead<T>, op: ArgOp) -> Result<Option<(u64, T)>> {
        let mut scratch = self.zeros::<u32>(scratch_len::<T>(input.len()))?;
        let mut index = self.zeros::<u64>(1)?;
        let mut value = self.zeros::<T>(1)?;
        self.arg_reduce_into(input, op, &mut index, &mut value, &mut scratch)?;
        let (i, v) = (self.download(&index)?[0], self.download(&value)?[0]);
        Ok((i != u64::MAX).then_some((i, v)))
    }

    /// [`Gpu::arg_reduce`] into `index[0]` and `value[0]` (an empty input writes `u64::MAX`
    /// and the identity of min / max), with caller-provided scratch as [`Gpu::reduce_into`]'s.
    /// Allocates nothing and never waits (capturable into a CUDA graph); asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::reduce::{scratch_len, ArgOp};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[7u64, 2, 9, 2])?;
    /// let (mut index, mut value) = (gpu.zeros::<u64>(1)?, gpu.zeros::<u64>(1)?);
    /// let mut scratch = gpu.zeros::<u32>(scratch_len::<u64>(4))?;
    /// gpu.arg_reduce_into(&input, ArgOp::Min, &mut index, &mut value, &mut scratch)?;
    /// assert_eq!((gpu.download(&index)?[0], gpu.download(&value)?[0]), (1, 2));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn arg_reduce_into<T: ReduceItem>(
        &self,
        input: &impl DeviceRead<T>,
        op: ArgOp,
        index: &mut impl DeviceWrite<u64>,
        value: &mut impl DeviceWrite<T>,
        scratch: &mut impl DeviceWrite<u32>,
    ) -> Result<()> {
        ensure_len("arg_reduce index output", index.len(), 1)?;
        ensure_len("arg_reduce value output", value.len(), 1)?;
        let name = T::REDUCE_KERNELS[if op == ArgOp::Min { 3 } else { 4 }];
        let n = input.len();
        self.launch_reduce(input, &n, name, scratch, move |l| {
            let (value, index) = (l.bind_mut(value)?, l.bind_mut(index)?);
            l.addr(value).addr(index);
            Ok(())
        })
    }

    /// Reduces each segment of `input` under `op`: `out[s]` is the reduction of
    /// `input[offsets[s]..offsets[s + 1]]` for each of the `offsets.len() - 1` segments (an
    /// empty segment gives the identity; `out` may be longer). Offsets are read on the device,
    /// so they are not checked: an offset past `input.len()` is taken as `input.len()`, and an
    /// end before its begin as the begin (an empty segment) — nothing is read out of bounds,
    /// but such offsets are your error (as in CUB). Allocates nothing; asynchronous.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::reduce::ReduceOp;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let input = gpu.upload(&[1u32, 2, 3, 4, 5, 6])?;
    /// let offsets = gpu.upload(&[0u64, 2, 2, 6])?; // [1, 2], [], [3, 4, 5, 6]
    /// let mut out = gpu.zeros::<u32>(3)?;
    /// gpu.segmented_reduce(&input, &offsets, ReduceOp::Max, &mut out)?;
    /// assert_eq!(gpu.download(&out)?, [2, 0, 6]); // the empty segment: u32::MIN
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn segmented_reduce<T: ReduceItem>(
        &self,
        input: &impl DeviceRead<T>,
        offsets: &impl DeviceRead<u64>,
        op: ReduceOp,
        out: &mut impl DeviceWrite<T>,
    ) -> Result<()> {
        let segments = offsets.len().saturating_sub(1);
        ensure_len("segmented_reduce output", out.len(), segments as u64)?;
        if segments == 0 {
            return Ok(());
        }
        let group = abi::segment_group(segments as u64, input.len() as u64) as usize;
        let blocks = grid_x((segments.div_ceil(group) as u64).min(MAX_GRID_X), "segmented_reduce segments")?;
        let f = self.function(T::SEGMENTED[op.index()])?;
        let (n, segments) = (input.len(), segments);
        let threads = abi::segment_threads(segments as u64, n as u64);
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 };
        let mut l = self.kernel_args();
        l.read(input).value(&n).read(offsets).value(&segments).value(&group).write(out);
        // SAFETY: matches `segmented_reduce_{op}_{T}(input, n, offsets, segments, group, out)` in
        // kernels/src/kernels/reduce.rs: `input` holds `n` elements, `offsets` `segments + 1`
        // and `out` at least `segments` (checked above); `group` is 1 or `SEGMENT_GROUP`; the
        // kernel clamps every offset to `n`, and strides over the groups with any grid of
        // `segment_threads` blocks (128 threads, or 256 where `group` is 1).
        unsafe { l.launch(f, cfg) }
    }

    /// Checks the scratch, then launches `name(input, n, value, index, scratch)` — `outputs`
    /// binds and passes `value` and `index` — after the zeroing of its ticket where the grid has
    /// more than one block.
    fn launch_reduce<'a, T: ReduceItem>(
        &'a self,
        input: &'a impl DeviceRead<T>,
        n: &'a usize,
        name: &str,
        scratch: &'a mut impl DeviceWrite<u32>,
        outputs: impl FnOnce(&mut KernelArgs<'a>) -> Result<()>,
    ) -> Result<()> {
        let size = std::mem::size_of::<T>();
        let blocks = abi::blocks(size, *n as u64) as u32;
        ensure_len("reduce scratch (u32 words)", scratch.len(), abi::scratch_words(size, *n as u64))?;
        // The ticket and partials start at the first 16-byte boundary of the scratch.
        let base = self.device_address(scratch)?;
        let skip = base.next_multiple_of(16) - base;
        // Everything that can fail comes before the first launch.
        let f = self.function(name)?;
        let prepare = if blocks > 1 { Some(self.function(warpwork_abi::kernels::REDUCE_PREPARE)?) } else { None };
        // Every buffer is bound (a buffer of another context refused) before the first launch.
        let mut l = self.kernel_args();
        let input = l.bind(input)?;
        l.addr(input).value(n);
        outputs(&mut l)?;
        let ticket = l.bind_mut(scratch)? + skip;
        l.addr(ticket);
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (abi::THREADS, 1, 1), shared_mem_bytes: 0 };
        let Some(prepare) = prepare else {
            // SAFETY: as below; a grid of one block takes no ticket. A plain launch: as the
            // programmatic dependent of whatever kernel came before on the stream, it could read
            // the input before that kernel has written it.
            return unsafe { l.launch(f, cfg) };
        };
        let mut p = self.kernel_args();
        p.addr(ticket);
        let one = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (abi::PREPARE_THREADS, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: `reduce_prepare(ticket)` zeroes `TICKET_BYTES + EXACT_BYTES` bytes (the
        // ticket, the claim counter and the `f32` sum's accumulators) at a 16-byte boundary
        // inside the scratch (its length, at least that much, checked above), which stays bound
        // by `l` until the reduce below is launched.
        unsafe { p.launch(prepare, one)? };
        // SAFETY: matches `reduce_{op}_{T}(input, n, value, index, scratch)` in
        // kernels/src/kernels/reduce.rs: `input` holds `n` elements; `outputs` bound at least
        // one value (and, for argmin / argmax, one index; the plain kernels ignore theirs); the
        // scratch holds the ticket and `blocks` partials from a 16-byte boundary (checked
        // above), its ticket and claim counter zeroed on this stream by `reduce_prepare`, of
        // which this launch is the programmatic dependent (it waits for it before either; and
        // `reduce_prepare`, launched plainly, started after everything before it on the stream,
        // so the input is complete when the reduce starts); the grid is
        // `warpwork_abi::reduce::blocks` blocks of `THREADS` threads.
        unsafe { l.launch_dependent(f, cfg) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_name_is_one_the_abi_lists() {
        fn check<T: ReduceItem>() {
            use warpwork_abi::kernels::{ARG_FOLD_KERNELS, REDUCE_KERNELS, SEGMENTED_REDUCE_KERNELS};
            for name in T::REDUCE_KERNELS {
                assert!(REDUCE_KERNELS.contains(&name), "{name}");
            }
            for name in T::SEGMENTED {
                assert!(SEGMENTED_REDUCE_KERNELS.contains(&name), "{name}");
            }
            for name in T::ARG_FOLD {
                assert!(ARG_FOLD_KERNELS.contains(&name), "{name}");
            }
        }
        check::<u32>();
        check::<i32>();
        check::<u64>();
        check::<i64>();
        check::<f32>();
        check::<f64>();
    }

    #[test]
    fn scratch_is_small_and_the_same_for_every_operator() {
        // At least the ticket and the `f32` sum's eight accumulators (from a 128-byte boundary).
        assert_eq!(scratch_len::<u32>(0), (16 + 8 * 128 + 112) / 4 + 3);
        assert_eq!(scratch_len::<u64>(1 << 40), (16 + 16 * 1024) / 4 + 3);
        for n in [1usize, 33, 1 << 16, (1 << 32) + 7] {
            assert!(scratch_len::<u32>(n) <= scratch_len::<u32>(1 << 40));
        }
        // 7169 units of 8 KiB take 897 blocks, 7168 take 1024: the scratch counts 1024 for both.
        assert_eq!(scratch_len::<f32>(7169 * 2048), scratch_len::<f32>(7168 * 2048));
    }
}
