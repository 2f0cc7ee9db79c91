//! An application built on **cust** (Rust-CUDA's host crate) that owns its context, its stream
//! and its device buffers, and hands them to warpwork without a copy:
//!
//! * the stream, as a raw `CUstream` (`Stream::as_inner`) to `unsafe Gpu::on_raw_stream`;
//! * the buffers, as raw device pointers (`DeviceBuffer::as_device_ptr`) to `unsafe
//!   RawSlice::from_raw_parts` / `RawSliceMut::from_raw_parts`.
//!
//! It runs a select, a scan and an expansion on them, on cust's stream, and checks every result,
//! read back through cust, against the CPU.

use cust::memory::DeviceCopy;
use cust::prelude::*;
use warpwork::expand::{Dispatch, Strategy};
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::{Gpu, RawSlice, RawSliceMut};

type AnyError = Box<dyn std::error::Error>;

/// A small deterministic generator (no extra dependencies).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 32) as u32
    }
}

/// warpwork's read-only view of a cust buffer.
///
/// # Safety
/// The buffer stays alive and unwritten until the work issued with the view has finished.
unsafe fn read<'a, T: DeviceCopy>(b: &'a DeviceBuffer<T>) -> warpwork::Result<RawSlice<'a, T>> {
    RawSlice::from_raw_parts(b.as_device_ptr().as_raw(), b.len())
}

/// warpwork's writable view of a cust buffer.
///
/// # Safety
/// The buffer stays alive, and untouched by anyone else, until the work issued with the view
/// has finished.
unsafe fn write<'a, T: DeviceCopy>(b: &'a mut DeviceBuffer<T>) -> warpwork::Result<RawSliceMut<'a, T>> {
    RawSliceMut::from_raw_parts(b.as_device_ptr().as_raw(), b.len())
}

fn main() -> Result<(), AnyError> {
    // The application: cust's context (device 0's primary context) and a stream of its own.
    let _ctx = cust::quick_init()?;
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None)?;

    let mut rng = Lcg(2024);
    let n = 1_000_003usize;
    let values: Vec<u32> = (0..n).map(|_| rng.next()).collect();
    let p1 = 100_000usize;
    let counts: Vec<u32> = (0..p1).map(|_| rng.next() % 32).collect();
    let total: usize = counts.iter().map(|&c| c as usize).sum();

    let d_values = DeviceBuffer::from_slice(&values)?;
    let d_counts = DeviceBuffer::from_slice(&counts)?;
    let mut d_kept = DeviceBuffer::<u32>::zeroed(n)?;
    let mut d_state = DeviceBuffer::<u64>::zeroed(state_len::<u32>(Variant::Ordered, n))?;
    let mut d_prefix = DeviceBuffer::<u32>::zeroed(n)?;
    let mut d_scratch = DeviceBuffer::<u32>::zeroed(warpwork::scan::scratch_len::<u32>(n))?;
    let mut d_pairs = DeviceBuffer::<[u32; 2]>::zeroed(total)?;
    // cust's copies and memsets above went to the legacy default stream, which a non-blocking
    // stream does not wait for: finish them before handing the buffers over.
    cust::context::CurrentContext::synchronize()?;

    // warpwork, loaded into the same (primary) context, issuing to cust's stream.
    let gpu = Gpu::new(0)?;
    // SAFETY: cust's stream belongs to device 0's primary context, which `gpu` uses, and
    // outlives `on_cust` (both live to the end of `main`).
    let on_cust = unsafe { gpu.on_raw_stream(stream.as_inner().cast()) };
    // The expander's workspace is warpwork's (cudarc) memory; its uses on cust's stream are
    // ordered by cudarc's stream events.
    let mut expander = gpu.expander(Strategy::ScanFused, p1, total)?;

    // SAFETY (every view below): the cust buffers outlive the views and are touched by nothing
    // but the work on cust's stream until `stream.synchronize()` below.
    let threshold = u32::MAX / 4;
    let count = {
        let (values_w, mut kept_w, mut state_w) =
            unsafe { (read(&d_values)?, write(&mut d_kept)?, write(&mut d_state)?) };
        on_cust.select_into(
            &values_w,
            Keep::If(Predicate::Less(threshold)),
            Variant::Ordered,
            &mut kept_w,
            &mut state_w,
        )?;
        on_cust.select_count(&kept_w, &state_w)? // waits for cust's stream
    };
    {
        let (values_w, mut prefix_w, mut scratch_w) =
            unsafe { (read(&d_values)?, write(&mut d_prefix)?, write(&mut d_scratch)?) };
        on_cust.exclusive_scan_into(&values_w, &mut prefix_w, &mut scratch_w)?;
    }
    let items = {
        let (counts_w, mut pairs_w) = unsafe { (read(&d_counts)?, write(&mut d_pairs)?) };
        let mut planned = expander.pass1(&on_cust, &counts_w)?;
        planned.pass2(&on_cust, &mut pairs_w, Dispatch::Persistent)?;
        planned.count(&on_cust)? // waits for cust's stream
    };
    stream.synchronize()?;

    // Read back through cust and check against the CPU.
    let mut kept = vec![0u32; n];
    d_kept.copy_to(&mut kept)?;
    let want_kept: Vec<u32> = values.iter().copied().filter(|&v| v < threshold).collect();
    if kept[..count] != want_kept[..] {
        return Err(format!("select: {count} kept, the CPU keeps {}; or the items differ", want_kept.len()).into());
    }
    let mut prefix = vec![0u32; n];
    d_prefix.copy_to(&mut prefix)?;
    let mut run = 0u32;
    for (i, (&v, &p)) in values.iter().zip(&prefix).enumerate() {
        if p != run {
            return Err(format!("scan: element {i} is {p}, the CPU says {run}").into());
        }
        run = run.wrapping_add(v);
    }
    let mut pairs = vec![[0u32; 2]; total];
    d_pairs.copy_to(&mut pairs)?;
    let want_pairs = counts.iter().enumerate().flat_map(|(s, &c)| (0..c).map(move |l| [s as u32, l]));
    if items != total || !pairs.iter().copied().eq(want_pairs) {
        return Err(format!("expand: {items} items (the CPU says {total}), or the pairs differ").into());
    }
    println!(
        "cust-interop: cust's buffers and stream through warpwork — select kept {count} of {n}, scan of {n}, \
         {} expanded {p1} sources into {items} items: all match the CPU",
        Strategy::ScanFused.name()
    );
    Ok(())
}
