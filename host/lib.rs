//! # warpwork
//!
//! GPU work-distribution primitives for NVIDIA GPUs — stream compaction, prefix sums, work
//! expansion — with the kernels written in Rust (`kernels/`, compiled to PTX) and launched through
//! [cudarc](https://docs.rs/cudarc), on **your** context, stream and buffers.
//!
//! ## A handle on your stream
//!
//! A [`Gpu`] is warpwork's kernels loaded into a CUDA context, plus the stream its calls go to.
//! Cloning it is cheap.
//!
//! * [`Gpu::new`]`(ordinal)`: the convenience — the device's primary context (the one the CUDA
//!   runtime, cudarc and cust use) and a new stream.
//! * [`Gpu::from_stream`]`(stream)`: your cudarc `Arc<CudaStream>`; warpwork loads into its
//!   context (once: make one handle per context).
//! * [`Gpu::on`]`(&stream)`: the same kernels on another of your streams, for the next call.
//! * `unsafe` [`Gpu::on_raw_stream`]`(cu_stream)`: a raw `CUstream` from cust, FFI or another
//!   framework (`examples/cust-interop` does this for an application built on cust).
//!
//! ```no_run
//! use warpwork::Gpu;
//! # fn main() -> warpwork::Result<()> {
//! let ctx = cudarc::driver::CudaContext::new(0)?; // your application's context...
//! let stream = ctx.new_stream()?; // ...and stream
//! let gpu = Gpu::from_stream(stream.clone())?;
//! let side = ctx.new_stream()?;
//! let on_side = gpu.on(&side)?; // no reload
//! # Ok(()) }
//! ```
//!
//! ## Streams and buffers
//!
//! * **Asynchronous.** Every call is issued to the handle's stream and returns once issued. Only
//!   calls that return host data wait for the stream (downloads, counts: `select_count`,
//!   `Planned::count`, the convenience forms that return a count); each call's docs say
//!   **waits** where it does.
//! * **Your buffers, typed.** The primitives take cudarc's `CudaSlice<T>`, `CudaView<T>` and
//!   `CudaViewMut<T>` directly, through the sealed traits [`DeviceRead`] (read only, taken by
//!   `&`) and [`DeviceWrite`] (written, taken by `&mut`): the borrow checker keeps a buffer alive
//!   and unaliased for as long as a call or a [`expand::Planned`] expansion needs it. cudarc's
//!   stream events order each call after earlier writes to its buffers on other streams, and
//!   cudarc waits for the call before freeing them. Raw device pointers come in through `unsafe`
//!   [`RawSlice::from_raw_parts`] / [`RawSliceMut::from_raw_parts`] (see [`memory`]). A buffer
//!   of another context is [`Error::WrongContext`].
//! * **Allocation only where it says so.** The convenience forms allocate their outputs and
//!   scratch (`select_if`, `exclusive_scan`, `expand`, [`Gpu::upload`], …) and say
//!   **Allocates**. Each has a form that allocates nothing and takes caller-provided scratch or
//!   state, sized by a query: [`Gpu::select_into`] with [`select::state_len`],
//!   [`Gpu::scan_into`] and [`Gpu::scan_in_place`] with [`scan::scratch_len`],
//!   [`Gpu::reduce_into`] and [`Gpu::arg_reduce_into`] with [`reduce::scratch_len`], and the reusable
//!   [`expand::Expander`] in a workspace of yours ([`Gpu::expander_in`] with
//!   [`expand::workspace_len`]; [`Gpu::expander`] allocates it).
//! * **Your own kernels** launch through the same binding: [`Gpu::kernel_args`] builds the
//!   argument list, `unsafe` [`KernelArgs::launch`] launches it. Custom element types and
//!   operators go through the device building blocks in your own kernel
//!   (`examples/custom-scan`; `examples/meshlet-cull` for expansion).
//!
//! ## Graph capture
//!
//! The allocation-free forms can be recorded into a CUDA graph by stream capture and replayed:
//! [`Gpu::select_into`], [`Gpu::scan_into`], [`Gpu::scan_in_place`], [`Gpu::exclusive_scan_into`],
//! [`Gpu::reduce_into`], [`Gpu::arg_reduce_into`], [`Gpu::segmented_reduce`],
//! [`expand::Expander::pass1`] (on any counts: a change of counts rewrites the expander's
//! descriptor with memsets), [`expand::Planned::pass2`] with [`expand::Dispatch::Persistent`],
//! [`expand::Planned::pass2_with`], [`Gpu::copy`], [`Gpu::fill_bytes`] and [`KernelArgs::launch`].
//! What a graph cannot hold — waiting for the stream, copies from or to host memory, allocation — is refused with [`Error::StreamCapture`] before
//! anything is issued, so the capture stays valid. cudarc's event tracking must be off during
//! the capture (`unsafe { ctx.disable_event_tracking() }`, then `enable_event_tracking()` after
//! `end_capture`, as cudarc's own graph tests do): cudarc's wait on an event recorded outside a
//! capture invalidates it, so warpwork refuses cudarc buffers in a tracked capture. A graph
//! holds the buffers' addresses: keep them alive, and refill inputs in place, between replays
//! (`tests/graph_gpu.rs` replays select, scan, reduce and expansion 100 times that way).
//!
//! ## The primitives
//!
//! * [`select`]: keep the items that pass a test or a flag (`select_flagged`, `select_if`,
//!   `select_into`) with warp ballot + popc, unordered or order-preserving; any `Pod` item.
//! * [`scan`]: device-wide exclusive and inclusive scans under sum, min or max (`scan`,
//!   `scan_into`, `scan_in_place`; `exclusive_scan`, `exclusive_scan_into` for the exclusive
//!   sum), single pass with decoupled look-back.
//! * [`reduce`]: sum, min, max, argmin and argmax (`reduce`, `reduce_into`, `arg_reduce`,
//!   `arg_reduce_into`) in one launch with a deterministic order, and segmented reductions over
//!   offsets (`segmented_reduce`).
//! * [`expand`]: work expansion — each source spawns N items — with eight strategies, S0 to S3
//!   (defined in [`expand::Strategy`]), and `Auto` to pick one (`expand`, `expand_with`,
//!   [`expand::Expander`]).
//! * [`timing`]: CUDA-event timing and the copy roof.
//! * `multi` (crate feature `nccl`): several GPUs of one process — a handle with one NCCL
//!   communicator per GPU, and the scan, reduce, argmin / argmax, ordered select and expansion
//!   of data sharded across them, the GPUs exchanging shard totals and counts device to device.
//!   The NCCL library is loaded at run time; the repository's `docs/multi.md` says how to set it
//!   up.
//!
//! ## Device code and start-up
//!
//! The kernels ship with the crate, one module per family
//! ([`abi::modules::Family`]: select, scan, expand, timing, reduce), each as machine code (cubins for
//! sm_80, which every 8.x GPU runs, sm_90 and sm_100) and as PTX for every other GPU of compute
//! capability 7.0 or newer. A context loads a family's module the first time one of its kernels
//! is needed, from the cubin its device runs in a few milliseconds; every
//! handle on that context shares it. On other devices the driver compiles the PTX at that point
//! (seconds, unless its cache already holds the result). [`DeviceInfo::code`] says which a device
//! gets, [`Gpu::modules`] what each loaded module came from and how long it took, and
//! [`Gpu::preload`] loads families ahead of a timed region. A cubin that fails to load falls back
//! to the PTX with the reason; `WARPWORK_CODE=ptx` forces the PTX.
//!
//! Demonstrations built on this public API and on `warpwork-kernels`' device building blocks,
//! each with kernels of its own, are crates of their own in the repository's `demos/`:
//! `warpwork-life` (Conway's Game of Life, from brute force to bit-packed temporal blocking) and
//! `warpwork-access` (warp broadcast loads and list partitioning). They are also examples of a
//! crate that loads its own PTX into a [`Gpu`]'s context and launches it with
//! [`Gpu::kernel_args`].
//!
//! The driver is loaded at run time: without one, [`Gpu::new`] returns [`Error::NoDriver`];
//! nothing panics. Building needs nothing but Rust: the device code is shipped with the crate.
//!
//! cudarc (any 0.19 from 0.19.10) needs exactly one CUDA version feature. warpwork enables
//! `cuda-12080` by default; its features `cuda-11080` … `cuda-13040` pick another, and
//! `default-features = false` leaves the choice to your own cudarc dependency. The feature does
//! not limit the driver: drivers of CUDA 11.8 through 13.x work. Every primitive has a CPU twin
//! with the same contract in the repository's `warpwork-cpu-reference` crate (not published),
//! which the tests check the GPU against.
//!
//! ## Design notes
//!
//! [`guide`] holds the notes behind these docs: what is sound without `unsafe`, and why
//! ([`guide::api`]), what each call refuses ([`guide::errors`]), the design and measurements of
//! each primitive, and every benchmark table ([`guide::benchmarks`]). Paths such as
//! `examples/cust-interop` or `tests/graph_gpu.rs` in these docs name files of warpwork's source
//! repository, which are not part of this package.

mod driver;
mod error;
pub mod expand;
mod gpu;
pub mod guide;
mod launch;
pub mod memory;
#[cfg(feature = "nccl")]
pub mod multi;
pub mod partition;
pub mod reduce;
pub mod run_length;
pub mod scan;
pub mod select;
pub mod timing;
mod transfer;
pub mod unique;

pub use cudarc;
pub use error::{Error, Result};
pub use gpu::{Code, DeviceCode, DeviceInfo, Gpu, Kernels, ModuleInfo, PtxReason, FORCE_PTX_VAR};
pub use launch::KernelArgs;
pub use memory::{DeviceRead, DeviceWrite, RawSlice, RawSliceMut};
/// The layouts, codes, tuning constants and kernel names the kernels share with this library
/// (the `warpwork-abi` crate), for your own launches of warpwork's kernels and your own kernels
/// built on `warpwork-kernels`.
pub use warpwork_abi as abi;

/// The README's examples, compiled as doctests so they stay true to the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
