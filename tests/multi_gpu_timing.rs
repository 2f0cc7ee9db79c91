//! GPU tests of timing work on several ranks (feature `nccl`): `Gpus::time_ms` holds every
//! rank's stream while the work is queued and gives the longest rank's time, the work done;
//! a timing whose work waits for a held stream, or one started inside another (on every rank,
//! or on one rank only, which refuses it part way), is an error and leaves the ranks usable;
//! `Gpus::paced_time_ms` times without the holds.
//!
//! Needs the NCCL library as `libnccl.so` on the loader path and, on NVSwitch machines,
//! `NCCL_NVLS_ENABLE=0` (see `multi_gpu`); prints `skipped: …` where the machine has fewer than
//! two devices or no NCCL.

use warpwork::cudarc::driver::CudaSlice;
use warpwork::multi::{shard_scratch_len, Gpus};
use warpwork::scan::ScanKind;
use warpwork::Error;

/// Two ranks, or `None` (printing why) where the machine cannot make them.
fn two_ranks() -> Option<Gpus> {
    match Gpus::new(&[0, 1]) {
        Ok(g) => Some(g),
        Err(e @ (Error::NoDevice { .. } | Error::NoNccl)) => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("making 2 ranks: {e}"),
    }
}

/// A sharded exclusive sum of all-ones shards of `n` items per rank, run once (a first call
/// loads the kernels and lets NCCL connect the ranks, which waits for the devices), then timed
/// by `time`, checked at each shard's last element.
fn timed_scan(
    gpus: &Gpus,
    n: usize,
    time: impl FnOnce(&mut dyn FnMut() -> warpwork::Result<()>) -> warpwork::Result<f64>,
) -> f64 {
    let shards: Vec<CudaSlice<u32>> = (0..2).map(|r| gpus.gpu(r).upload(&vec![1u32; n]).unwrap()).collect();
    let mut outs: Vec<CudaSlice<u32>> = (0..2).map(|r| gpus.gpu(r).zeros::<u32>(n).unwrap()).collect();
    let len = shard_scratch_len::<u32>(n, 2);
    let mut scratch: Vec<CudaSlice<u32>> = (0..2).map(|r| gpus.gpu(r).zeros::<u32>(len).unwrap()).collect();
    let mut scan = || gpus.scan_sharded_into(&shards, &mut outs, ScanKind::Exclusive, &mut scratch);
    scan().unwrap();
    let ms = time(&mut scan).unwrap();
    for (r, o) in outs.iter().enumerate() {
        let last = gpus.gpu(r).download(&o.slice(n - 1..n)).unwrap()[0];
        assert_eq!(last as usize, r * n + n - 1, "rank {r}");
    }
    ms
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn held_and_paced_timings_of_a_sharded_scan() {
    let Some(gpus) = two_ranks() else { return };
    let n = (1 << 20) + 3;
    let held = timed_scan(&gpus, n, |f| gpus.time_ms(f));
    let paced = timed_scan(&gpus, n, |f| gpus.paced_time_ms(f));
    assert!(held > 0.0 && paced > 0.0, "held {held} ms, paced {paced} ms");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn a_timing_whose_work_waits_is_refused_and_the_ranks_stay_usable() {
    let Some(gpus) = two_ranks() else { return };
    // The work waits for rank 1's held stream: the hold gives up (2 s), and the timing says so.
    let r = gpus.time_ms(|| gpus.gpu(1).synchronize());
    assert!(matches!(r, Err(Error::InvalidInput(ref m)) if m.contains("waited for the held stream")), "{r:?}");
    // A second timing inside one: refused, the outer one unharmed.
    let r = gpus.time_ms(|| {
        let inner = gpus.time_ms(|| Ok(()));
        assert!(matches!(inner, Err(Error::InvalidInput(ref m)) if m.contains("another timing")), "{inner:?}");
        let one = gpus.gpu(0).time_ms(|| Ok(()));
        assert!(matches!(one, Err(Error::InvalidInput(ref m)) if m.contains("another timing")), "{one:?}");
        Ok(())
    });
    assert!(r.is_ok(), "{r:?}");
    // A refusal part way: rank 1's context is timing already, so rank 0's hold, taken first, is
    // released again and the outer timing finishes.
    let r = gpus.gpu(1).time_ms(|| {
        let inner = gpus.time_ms(|| Ok(()));
        assert!(matches!(inner, Err(Error::InvalidInput(ref m)) if m.contains("another timing")), "{inner:?}");
        Ok(())
    });
    assert!(r.is_ok(), "{r:?}");
    // Work that fails: its error comes back, the holds are released.
    let r = gpus.time_ms(|| Err(Error::InvalidInput("the timed work failed".into())));
    assert!(matches!(r, Err(Error::InvalidInput(ref m)) if m.contains("timed work failed")), "{r:?}");
    assert!(timed_scan(&gpus, 1000, |f| gpus.time_ms(f)) > 0.0);
}
