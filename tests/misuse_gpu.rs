//! Misuse on the GPU: every call below is refused with a typed error before anything
//! is issued, and the context stays usable — each case is followed by a call that must succeed
//! and give the right answer. (Misuse the types already rule out is in `tests/compile-fail/`.)

mod common;

use common::{gpu, small};

use warpwork::cudarc::driver::CudaContext;
use warpwork::expand::{Dispatch, Strategy};
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::{Error, Gpu, RawSlice, RawSliceMut};
use warpwork_cpu_reference::expand as cpu;

/// Views that start at an odd element of their allocation (cudarc allows them) are refused
/// with [`Error::Misaligned`] by every strategy's pass 1 (counts) and pass 2 (pairs) — the
/// kernels' 16-byte loads and stores would fault and lose the context — and the context stays
/// usable.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn views_at_odd_elements_are_refused_by_every_strategy() {
    let gpu = gpu();
    let counts: Vec<u32> = (0..1000).map(|i| i % 7).collect();
    let d = gpu.upload(&counts).unwrap();
    let mut out = gpu.zeros::<[u32; 2]>(8000).unwrap();
    let (odd, aligned) = (d.slice(1..), d.slice(4..)); // 4 and 16 bytes into the allocation
    for s in Strategy::UNBOUNDED.into_iter().chain([Strategy::MaxN { max_n: 7 }]) {
        let mut e = gpu.expander(s, 1000, 7000).unwrap();
        let r = e.pass1(&gpu, &odd).map(|_| ());
        assert!(matches!(r, Err(Error::Misaligned { align: 16, .. })), "{}: {r:?}", s.name());
        let mut planned = e.pass1(&gpu, &aligned).unwrap();
        let r = planned.pass2(&gpu, &mut out.slice_mut(1..), Dispatch::Persistent);
        assert!(matches!(r, Err(Error::Misaligned { align: 16, .. })), "{}: {r:?}", s.name());
        planned.pass2(&gpu, &mut out.slice_mut(2..), Dispatch::Persistent).unwrap();
        let n = planned.count(&gpu).unwrap();
        assert_eq!(n as u64, cpu::total(&counts[4..]), "{}", s.name());
        still_usable(&gpu, s.name());
    }
}

/// The context is usable: an expansion runs and matches the CPU.
fn still_usable(gpu: &Gpu, what: &str) {
    let counts = [3u32, 0, 2, 5];
    let d = gpu.upload(&counts).unwrap_or_else(|e| panic!("after {what}: upload failed: {e}"));
    let x = gpu.expand(&d, Strategy::ScanBinarySearch, 16).unwrap_or_else(|e| panic!("after {what}: {e}"));
    assert_eq!(gpu.download_prefix(&x.pairs, x.count).unwrap(), cpu::expand(&counts), "after {what}");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn own_pass1_is_refused_where_pass2_reads_the_counts() {
    let gpu = gpu();
    for s in [Strategy::MaxN { max_n: 4 }, Strategy::ScanFused] {
        let mut e = gpu.expander(s, 100, 400).unwrap();
        let r = e.pass1_by_own_kernel(&gpu, 100).map(|_| ());
        assert!(matches!(r, Err(Error::InvalidInput(ref m)) if m.contains("counts array")), "{}: {r:?}", s.name());
        // The same expander then works through its own pass 1.
        let counts: Vec<u32> = (0..100).map(|i| i % 5).collect();
        let d = gpu.upload(&counts).unwrap();
        let mut out = gpu.filled::<[u32; 2]>(400, 0xAB).unwrap();
        let mut planned = e.pass1(&gpu, &d).unwrap();
        planned.pass2(&gpu, &mut out, Dispatch::Persistent).unwrap();
        let n = planned.count(&gpu).unwrap();
        assert_eq!(n as u64, cpu::total(&counts), "{}", s.name());
        let mut got = gpu.download_prefix(&out, n).unwrap();
        if !s.is_canonical() {
            got = cpu::sorted_pairs(&got);
        }
        assert_eq!(got, cpu::expand(&counts), "{}", s.name());
    }
    still_usable(&gpu, "own pass 1 refused");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn maxn_count_before_pass2_is_refused() {
    let gpu = gpu();
    let counts = vec![2u32, 4, 0, 1];
    let d = gpu.upload(&counts).unwrap();
    let mut e = gpu.expander(Strategy::MaxN { max_n: 4 }, 4, 16).unwrap();
    let mut out = gpu.filled::<[u32; 2]>(16, 0xAB).unwrap();
    let mut planned = e.pass1(&gpu, &d).unwrap();
    let r = planned.count(&gpu);
    assert!(matches!(r, Err(Error::InvalidInput(ref m)) if m.contains("pass 2")), "{r:?}");
    planned.pass2(&gpu, &mut out, Dispatch::Persistent).unwrap();
    assert_eq!(planned.count(&gpu).unwrap(), 7);
    assert_eq!(cpu::sorted_pairs(&gpu.download_prefix(&out, 7).unwrap()), cpu::expand(&counts));
    still_usable(&gpu, "MaxN count before pass 2");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn buffers_and_streams_of_another_context_are_refused() {
    let gpu = gpu();
    // `CudaContext::new(0)` twice is the same primary context: a second, non-primary one.
    let other = match CudaContext::new_non_primary(0, 0) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("skipped: this driver cannot create a second context on device 0 ({e})");
            return;
        }
    };
    let their_stream = other.new_stream().unwrap();
    let theirs = their_stream.clone_htod(&[1u32, 2, 3, 4]).unwrap();
    let their_flags = their_stream.clone_htod(&[1u8, 0, 1, 0]).unwrap();
    let wrong = |r: Result<(), Error>, what: &str| {
        assert!(matches!(r, Err(Error::WrongContext)), "{what}: {r:?}");
    };
    let mine = gpu.upload(&[5u32, 6, 7, 8]).unwrap();
    let mut out = gpu.zeros::<u32>(4).unwrap();
    let mut state = gpu.zeros::<u64>(state_len::<u32>(Variant::Ordered, 4)).unwrap();
    wrong(gpu.download(&theirs).map(|_| ()), "download");
    wrong(gpu.copy(&theirs, &mut out), "copy");
    wrong(gpu.on(&their_stream).map(|_| ()), "Gpu::on");
    wrong(
        gpu.select_into(&theirs, Keep::If(Predicate::Less(3)), Variant::Ordered, &mut out, &mut state),
        "select items",
    );
    wrong(gpu.select_into(&mine, Keep::Flagged(&their_flags), Variant::Block, &mut out, &mut state), "select flags");
    let mut scratch = gpu.zeros::<u32>(warpwork::scan::scratch_len::<u32>(4)).unwrap();
    wrong(gpu.exclusive_scan_into(&theirs, &mut out, &mut scratch), "scan input");
    let mut e = gpu.expander(Strategy::ScanFused, 4, 64).unwrap();
    wrong(e.pass1(&gpu, &theirs).map(|_| ()), "expander counts");
    // A kernel argument of the other context: the launch fails, nothing is launched.
    let mut scanned = gpu.filled::<u32>(4, 0xAB).unwrap();
    let mut states = gpu.zeros::<u32>(warpwork::scan::scratch_len::<u32>(4)).unwrap();
    let (n, forced_fallback) = (4usize, 0u32);
    let mut l = gpu.kernel_args();
    l.read(&theirs).write(&mut scanned).value(&n).write(&mut states).value(&forced_fallback);
    let cfg = warpwork::cudarc::driver::LaunchConfig::for_num_elems(32);
    // SAFETY: nothing is launched: binding `theirs` (another context's buffer) fails first. The
    // arguments are those of `scan_exclusive_sum_u32(input, output, n, states, forced_fallback)`.
    wrong(unsafe { l.launch(gpu.function("scan_exclusive_sum_u32").unwrap(), cfg) }, "kernel argument");
    assert!(gpu.download(&scanned).unwrap().iter().all(|&v| v == 0xABAB_ABAB), "nothing was launched");

    // warpwork loaded into the other context works there, and refuses this context's buffers.
    let gpu2 = Gpu::from_stream(their_stream.clone()).unwrap();
    wrong(gpu2.download(&mine).map(|_| ()), "download into the second context");
    let kept = gpu2.select_flagged(&theirs, &their_flags, Variant::Ordered).unwrap();
    assert_eq!(gpu2.download_prefix(&kept.items, kept.count).unwrap(), [1, 3]);
    // And the first context is usable, its expander included.
    let mut planned = e.pass1(&gpu, &mine).unwrap();
    let mut pairs = gpu.zeros::<[u32; 2]>(64).unwrap();
    planned.pass2(&gpu, &mut pairs, Dispatch::Persistent).unwrap();
    assert_eq!(planned.count(&gpu).unwrap(), 26);
    still_usable(&gpu, "buffers of another context");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn raw_slices_misaligned_null_or_overflowing_are_refused() {
    let gpu = gpu();
    let owned = gpu.upload(&[10u32, 20, 30, 40]).unwrap();
    let addr = gpu.device_address(&owned).unwrap();
    // SAFETY: every one is refused by the constructor's checks before it could be used; the
    // last one is `owned` itself, alive and unwritten while it is read.
    unsafe {
        let r = RawSlice::<u32>::from_raw_parts(addr + 2, 3);
        assert!(matches!(r, Err(Error::Misaligned { align: 4, .. })), "{r:?}");
        let r = RawSliceMut::<u64>::from_raw_parts(addr + 4, 1);
        assert!(matches!(r, Err(Error::Misaligned { align: 8, .. })), "{r:?}");
        let r = RawSlice::<u32>::from_raw_parts(0, 4);
        assert!(matches!(r, Err(Error::InvalidInput(ref m)) if m.contains("null")), "{r:?}");
        let r = RawSlice::<u32>::from_raw_parts(addr, usize::MAX / 2);
        assert!(matches!(r, Err(Error::InvalidInput(ref m)) if m.contains("overflow")), "{r:?}");
        let view = RawSlice::<u32>::from_raw_parts(addr + 4, 3).unwrap();
        assert_eq!(gpu.download(&view).unwrap(), [20, 30, 40]);
    }
    still_usable(&gpu, "raw slices refused");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn a_second_timing_inside_a_timing_is_refused() {
    let gpu = gpu();
    let mut v = gpu.zeros::<u32>(1 << 20).unwrap();
    let r = gpu.time_ms(|| {
        let inner = gpu.time_ms(|| Ok(()));
        assert!(matches!(inner, Err(Error::InvalidInput(ref m)) if m.contains("another timing")), "{inner:?}");
        Ok(())
    });
    assert!(r.is_ok(), "{r:?}");
    // A timed closure that fails: the error comes back and the hold is released.
    let r = gpu.time_ms(|| Err(Error::InvalidInput("the timed work failed".into())));
    assert!(matches!(r, Err(Error::InvalidInput(ref m)) if m.contains("timed work failed")), "{r:?}");
    let ms = gpu.time_ms(|| gpu.fill_bytes(&mut v, 3)).unwrap();
    assert!(ms > 0.0);
    assert!(gpu.download(&v).unwrap().iter().all(|&x| x == 0x0303_0303));
    still_usable(&gpu, "nested timing");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn an_upload_from_page_locked_memory_is_read_before_it_returns() {
    let gpu = gpu();
    // 256 MiB: long enough for a copy that did not wait to be overtaken (16 MiB under
    // compute-sanitizer, `WARPWORK_SMALL`).
    let n = if small() { 1usize << 22 } else { 1 << 26 };
    // SAFETY: every element is written below before it is read.
    let mut pinned = unsafe { gpu.context().alloc_pinned_with_flags::<u32>(n, 0) }.unwrap();
    pinned.as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, x)| *x = i as u32);
    let mut d = gpu.zeros::<u32>(n).unwrap();
    gpu.synchronize().unwrap();
    gpu.upload_into(pinned.as_slice().unwrap(), &mut d).unwrap();
    // The borrow has ended: the host may write the memory at once.
    pinned.as_mut_slice().unwrap().iter_mut().for_each(|x| *x = u32::MAX);
    let got = gpu.download(&d).unwrap();
    let bad = got.iter().enumerate().position(|(i, &x)| x != i as u32);
    assert_eq!(bad, None, "the device read page-locked memory after upload_into returned");
    still_usable(&gpu, "page-locked upload");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn a_select_count_past_the_output_is_capacity_exceeded() {
    let gpu = gpu();
    let items = gpu.upload(&[1u32; 100]).unwrap();
    let mut out = gpu.filled::<u32>(10, 0xAB).unwrap();
    let mut state = gpu.zeros::<u64>(1).unwrap();
    gpu.select_into(&items, Keep::If(Predicate::NonZero), Variant::Warp, &mut out, &mut state).unwrap();
    let r = gpu.select_count(&out, &state);
    assert!(matches!(r, Err(Error::CapacityExceeded { needed: 100, capacity: 10, .. })), "{r:?}");
    assert_eq!(gpu.download(&out).unwrap(), [1; 10]);
    still_usable(&gpu, "select overflow");
}
