//! GPU tests of the multi-GPU primitives (feature `nccl`) against the CPU reference, the shards
//! concatenated in rank order: the sharded scan, the sharded ordered select and the sharded
//! expansion (local numbers plus bases) on 1 and 2 ranks, odd and unequal shard lengths (0
//! included), poisoned outputs; and the errors checked before any collective. (The one-GPU
//! scan from a base in device memory, which each rank runs, is tested in `scan_base_gpu`.)
//!
//! Needs the NCCL library as `libnccl.so` on the loader path (the `nvidia-nccl-cu12/cu13`
//! wheels ship `libnccl.so.2`: link `libnccl.so` to it), and `NCCL_NVLS_ENABLE=0` on NVSwitch
//! machines. A test that needs more devices than the machine has, or NCCL where it is missing,
//! prints `skipped: …` and returns.

mod common;

use common::{gpu, is_poisoned, poisoned, small, POISON};

use bytemuck::Pod;
use warpwork::cudarc::driver::CudaSlice;
use warpwork::expand::Strategy;
use warpwork::multi::{shard_scratch_len, sharded_select_state_len, Gpus};
use warpwork::scan::{ScanItem, ScanKind};
use warpwork::select::{Keep, Predicate};
use warpwork::Error;
use warpwork_cpu_reference::expand as expand_cpu;
use warpwork_cpu_reference::inputs;
use warpwork_cpu_reference::scan::{self as cpu, Element, Op};

/// Ranks on devices `0..n`, or `None` (printing why) where the machine cannot make them.
fn gpus(n: usize) -> Option<Gpus> {
    let ordinals: Vec<usize> = (0..n).collect();
    match Gpus::new(&ordinals) {
        Ok(g) => Some(g),
        Err(e @ Error::NoDevice { .. }) => {
            eprintln!("skipped: {n} ranks need {n} devices ({e})");
            None
        }
        Err(e @ Error::NoNccl) => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("making {n} ranks: {e}"),
    }
}

/// A scan element under test, with values whose every partial sum is exact (floats too).
trait Item: ScanItem + warpwork::reduce::ReduceItem + warpwork::cudarc::nccl::NcclType + Element + Pod {
    fn values(n: usize, seed: u64) -> Vec<Self>;
}

macro_rules! int_item {
    ($($t:ty),*) => {$(
        impl Item for $t {
            fn values(n: usize, seed: u64) -> Vec<Self> {
                inputs::uniform_u64(n, seed).into_iter().map(|x| x as $t).collect()
            }
        }
    )*};
}
int_item!(u32, i32, u64, i64);

macro_rules! float_item {
    ($($t:ty),*) => {$(
        impl Item for $t {
            fn values(n: usize, seed: u64) -> Vec<Self> {
                inputs::uniform_range(n, seed, 0, 4).into_iter().map(|x| x as $t - 1.0).collect()
            }
        }
    )*};
}
float_item!(f32, f64);

/// The shard lengths each sharded test runs, by rank count.
fn shard_sets(ranks: usize) -> Vec<Vec<usize>> {
    let big = if small() { (1 << 16) + 3 } else { (1 << 20) + 3 };
    match ranks {
        1 => vec![vec![0], vec![1], vec![31], vec![big]],
        // Empty ranks between full ones, a lone item, odd lengths, every rank large.
        4 => vec![vec![0, 0, 0, 0], vec![0, 1, 0, 0], vec![big, 0, 31, 5], vec![33, big, 0, big - 4], vec![big; 4]],
        _ => vec![
            vec![0, 0],
            vec![0, 1],
            vec![1, 0],
            vec![31, 33],
            vec![big, 5],
            vec![7, big],
            vec![big, big - 4],
            vec![0, big],
        ],
    }
}

/// The expected scan of the shards concatenated, cut back into shards.
fn expected<T: Item>(shards: &[Vec<T>], kind: ScanKind) -> Vec<Vec<T>> {
    let all: Vec<T> = shards.concat();
    let scanned = match kind {
        ScanKind::Exclusive => cpu::exclusive_scan(&all, Op::Sum),
        ScanKind::Inclusive => cpu::inclusive_scan(&all, Op::Sum),
    };
    let mut at = 0;
    shards
        .iter()
        .map(|s| {
            at += s.len();
            scanned[at - s.len()..at].to_vec()
        })
        .collect()
}

fn check_sharded_scan<T: Item>(gpus: &Gpus, lens: &[usize], kind: ScanKind, seed: u64) {
    let host: Vec<Vec<T>> = lens.iter().enumerate().map(|(r, &n)| T::values(n, seed + r as u64)).collect();
    let shards: Vec<CudaSlice<T>> = host.iter().enumerate().map(|(r, h)| gpus.gpu(r).upload(h).unwrap()).collect();
    // One element more than the shard: it must stay poisoned.
    let mut outputs: Vec<CudaSlice<T>> = lens.iter().enumerate().map(|(r, &n)| poisoned(gpus.gpu(r), n + 1)).collect();
    let mut scratch: Vec<CudaSlice<u32>> = lens
        .iter()
        .enumerate()
        .map(|(r, &n)| gpus.gpu(r).filled(shard_scratch_len::<T>(n, gpus.len()), POISON).unwrap())
        .collect();
    gpus.scan_sharded_into(&shards, &mut outputs, kind, &mut scratch).unwrap();
    let want = expected(&host, kind);
    for (r, out) in outputs.iter().enumerate() {
        let got = gpus.gpu(r).download(out).unwrap();
        let n = lens[r];
        let what = format!("{} {kind:?} lens {lens:?} rank {r}", std::any::type_name::<T>());
        if let Some(i) = (0..n).find(|&i| got[i] != want[r][i]) {
            panic!("{what}: element {i} is {:?}, expected {:?}", got[i], want[r][i]);
        }
        assert!(is_poisoned(&got[n..]), "{what}: wrote past the shard");
    }
    // The allocating form, again into fresh outputs.
    let mut fresh: Vec<CudaSlice<T>> = lens.iter().enumerate().map(|(r, &n)| poisoned(gpus.gpu(r), n)).collect();
    gpus.scan_sharded(&shards, &mut fresh, kind).unwrap();
    for (r, out) in fresh.iter().enumerate() {
        assert_eq!(gpus.gpu(r).download(out).unwrap(), want[r], "allocating form, rank {r}, lens {lens:?}");
    }
}

fn sharded_scans(ranks: usize) {
    let Some(gpus) = gpus(ranks) else { return };
    for (i, lens) in shard_sets(ranks).iter().enumerate() {
        for kind in [ScanKind::Exclusive, ScanKind::Inclusive] {
            let seed = 100 * i as u64;
            check_sharded_scan::<u32>(&gpus, lens, kind, seed);
            check_sharded_scan::<u64>(&gpus, lens, kind, seed + 1);
            check_sharded_scan::<i64>(&gpus, lens, kind, seed + 2);
            check_sharded_scan::<f32>(&gpus, lens, kind, seed + 3);
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_scan_on_one_rank_is_the_one_gpu_scan() {
    sharded_scans(1);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_scan_on_two_ranks_gives_global_prefixes() {
    sharded_scans(2);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_scan_of_i32_u64_f64_with_big_unequal_shards() {
    let Some(gpus) = gpus(2) else { return };
    let big = if small() { 1 << 17 } else { 3 << 20 };
    for lens in [[big + 1, 1], [17, big - 1]] {
        check_sharded_scan::<i32>(&gpus, &lens, ScanKind::Inclusive, 7);
        check_sharded_scan::<f64>(&gpus, &lens, ScanKind::Exclusive, 8);
        check_sharded_scan::<u64>(&gpus, &lens, ScanKind::Inclusive, 9);
    }
}

fn check_select<T: Item + PartialOrd>(gpus: &Gpus, lens: &[usize], seed: u64) {
    let host: Vec<Vec<T>> = lens.iter().enumerate().map(|(r, &n)| T::values(n, seed + r as u64)).collect();
    let shards: Vec<CudaSlice<T>> = host.iter().enumerate().map(|(r, h)| gpus.gpu(r).upload(h).unwrap()).collect();
    // Keep the items below the first one (uniform values: a random share of them).
    let mid = host.iter().flatten().copied().next().unwrap_or_else(|| T::values(1, 0)[0]);
    let keep = Keep::If(Predicate::Less(mid));
    let keeps = vec![keep; gpus.len()];
    let kept = gpus.select_sharded(&shards, &keeps).unwrap();
    let want = warpwork_cpu_reference::select::select_if(&host.concat(), |v| v < mid);
    assert_eq!(kept.total, want.len() as u64, "lens {lens:?}: total");
    let mut at = 0u64;
    for (r, part) in kept.shards.iter().enumerate() {
        assert_eq!(part.offset, at, "lens {lens:?} rank {r}: offset");
        let got = gpus.gpu(r).download_prefix(&part.items, part.count).unwrap();
        assert_eq!(got, want[at as usize..at as usize + part.count], "lens {lens:?} rank {r}: items");
        at += part.count as u64;
    }
    assert_eq!(at, kept.total);
    // The allocation-free form: every rank's offsets, and the count past the kept items
    // poisoned.
    let mut outs: Vec<CudaSlice<T>> = lens.iter().enumerate().map(|(r, &n)| poisoned(gpus.gpu(r), n + 1)).collect();
    let mut states: Vec<CudaSlice<u64>> = lens
        .iter()
        .enumerate()
        .map(|(r, &n)| gpus.gpu(r).filled(sharded_select_state_len::<T>(n, gpus.len()), POISON).unwrap())
        .collect();
    let mut offsets: Vec<CudaSlice<u64>> = (0..gpus.len()).map(|r| poisoned(gpus.gpu(r), gpus.len() + 1)).collect();
    gpus.select_sharded_into(&shards, &keeps, &mut outs, &mut states, &mut offsets).unwrap();
    let mut expected_offsets = vec![0u64];
    for part in &kept.shards {
        expected_offsets.push(expected_offsets.last().unwrap() + part.count as u64);
    }
    for r in 0..gpus.len() {
        assert_eq!(gpus.gpu(r).download(&offsets[r]).unwrap(), expected_offsets, "lens {lens:?} rank {r}: offsets");
        let count = kept.shards[r].count;
        let got = gpus.gpu(r).download(&outs[r]).unwrap();
        assert!(is_poisoned(&got[count..]), "lens {lens:?} rank {r}: wrote past the kept items");
    }
}

fn sharded_selects(ranks: usize) {
    let Some(gpus) = gpus(ranks) else { return };
    for (i, lens) in shard_sets(ranks).iter().enumerate() {
        check_select::<u32>(&gpus, lens, 1000 + 10 * i as u64);
        check_select::<u64>(&gpus, lens, 2000 + 10 * i as u64);
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_select_on_one_rank() {
    sharded_selects(1);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_select_on_two_ranks_keeps_global_order() {
    sharded_selects(2);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn all_gather_gives_every_rank_every_block() {
    let Some(gpus) = gpus(2) else { return };
    let send: Vec<CudaSlice<u64>> =
        (0..2).map(|r| gpus.gpu(r).upload(&[r as u64 * 10, r as u64 * 10 + 1]).unwrap()).collect();
    let mut recv: Vec<CudaSlice<u64>> = (0..2).map(|r| poisoned(gpus.gpu(r), 5)).collect();
    gpus.all_gather(&send, &mut recv).unwrap();
    for (r, buf) in recv.iter().enumerate() {
        let got = gpus.gpu(r).download(buf).unwrap();
        assert_eq!(got[..4], [0, 1, 10, 11], "rank {r}");
        assert!(is_poisoned(&got[4..]));
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn the_same_device_twice_is_refused() {
    assert!(matches!(Gpus::new(&[0, 0]), Err(Error::DuplicateDevice { ordinal: 0 })));
    let ctx = gpu().context().clone();
    let streams = vec![ctx.new_stream().unwrap(), ctx.new_stream().unwrap()];
    assert!(matches!(Gpus::from_streams(streams), Err(Error::DuplicateDevice { ordinal: 0 })));
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn bad_shards_are_refused_before_any_collective() {
    let Some(gpus) = gpus(2) else { return };
    let (g0, g1) = (gpus.gpu(0), gpus.gpu(1));
    let n = 100;
    let good = || vec![g0.upload(&vec![1u32; n]).unwrap(), g1.upload(&vec![1u32; n]).unwrap()];
    let outs = || vec![g0.zeros::<u32>(n).unwrap(), g1.zeros::<u32>(n).unwrap()];
    let scratch = || {
        vec![
            g0.zeros::<u32>(shard_scratch_len::<u32>(n, 2)).unwrap(),
            g1.zeros::<u32>(shard_scratch_len::<u32>(n, 2)).unwrap(),
        ]
    };
    let kind = ScanKind::Exclusive;
    // One shard for two ranks.
    let one = vec![g0.upload(&vec![1u32; n]).unwrap()];
    assert!(matches!(gpus.scan_sharded_into(&one, &mut outs(), kind, &mut scratch()), Err(Error::InvalidInput(_))));
    // Rank 1's shard on device 0: mismatched stream contexts.
    let swapped = vec![g0.upload(&vec![1u32; n]).unwrap(), g0.upload(&vec![1u32; n]).unwrap()];
    assert!(matches!(gpus.scan_sharded_into(&swapped, &mut outs(), kind, &mut scratch()), Err(Error::WrongContext)));
    // Rank 1's output on device 0.
    let mut wrong_out = vec![g0.zeros::<u32>(n).unwrap(), g0.zeros::<u32>(n).unwrap()];
    assert!(matches!(gpus.scan_sharded_into(&good(), &mut wrong_out, kind, &mut scratch()), Err(Error::WrongContext)));
    // An output too short, a scratch too short.
    let mut short = vec![g0.zeros::<u32>(n).unwrap(), g1.zeros::<u32>(n - 1).unwrap()];
    assert!(matches!(
        gpus.scan_sharded_into(&good(), &mut short, kind, &mut scratch()),
        Err(Error::BufferTooSmall { .. })
    ));
    let mut tiny = vec![g0.zeros::<u32>(3).unwrap(), g1.zeros::<u32>(3).unwrap()];
    assert!(matches!(gpus.scan_sharded_into(&good(), &mut outs(), kind, &mut tiny), Err(Error::BufferTooSmall { .. })));
    // The select: a state of the wrong device.
    let keep = Keep::If(Predicate::Less(1u32));
    let mut states =
        vec![g0.zeros::<u64>(sharded_select_state_len::<u32>(n, 2)).unwrap(), g0.zeros::<u64>(64).unwrap()];
    let mut offsets = vec![g0.zeros::<u64>(3).unwrap(), g1.zeros::<u64>(3).unwrap()];
    assert!(matches!(
        gpus.select_sharded_into(&good(), &[keep, keep], &mut outs(), &mut states, &mut offsets),
        Err(Error::WrongContext)
    ));
    // Nothing was left waiting: a good call still completes.
    let mut out = outs();
    gpus.scan_sharded_into(&good(), &mut out, kind, &mut scratch()).unwrap();
    assert_eq!(g1.download(&out[1]).unwrap()[..3], [100, 101, 102]);
    gpus.synchronize().unwrap();
}

fn check_expand(gpus: &Gpus, lens: &[usize], strategy: Strategy, seed: u64) {
    let host: Vec<Vec<u32>> =
        lens.iter().enumerate().map(|(r, &n)| inputs::uniform_range(n, seed + r as u64, 0, 9)).collect();
    let counts: Vec<CudaSlice<u32>> = host.iter().enumerate().map(|(r, h)| gpus.gpu(r).upload(h).unwrap()).collect();
    let capacity = host.iter().map(|h| expand_cpu::total(h) as usize).max().unwrap_or(0) + 1;
    let e = gpus.expand_sharded(&counts, strategy, capacity).unwrap();
    let what = format!("{} lens {lens:?}", strategy.name());
    let (mut src_base, mut dst_base) = (0u64, 0u64);
    let mut global = Vec::new();
    for (r, part) in e.shards.iter().enumerate() {
        assert_eq!((part.source_base, part.dst_base), (src_base, dst_base), "{what} rank {r}: bases");
        let pairs = gpus.gpu(r).download_prefix(&part.pairs, part.count).unwrap();
        // Each shard's pairs are the one-GPU expansion of its counts (as a multiset where the
        // strategy is unordered).
        common::check_pairs(&host[r], &pairs, false, &what);
        global.extend(pairs.iter().map(|&[s, l]| [s + src_base as u32, l]));
        src_base += lens[r] as u64;
        dst_base += part.count as u64;
    }
    assert_eq!(e.total, dst_base, "{what}: total");
    common::check_pairs(&host.concat(), &global, false, &format!("{what}, global"));
    for (r, part) in e.shards.iter().enumerate() {
        let offsets = gpus.gpu(r).download(&part.offsets).unwrap();
        assert_eq!(offsets[gpus.len()], e.total, "{what} rank {r}: offsets end with the total");
        assert_eq!(offsets[r], part.dst_base, "{what} rank {r}: own offset");
    }
}

fn sharded_expansions(ranks: usize) {
    let Some(gpus) = gpus(ranks) else { return };
    for (i, lens) in shard_sets(ranks).iter().enumerate() {
        for strategy in [Strategy::ScanFused, Strategy::ScanBinarySearch, Strategy::AppendPerItem] {
            check_expand(&gpus, lens, strategy, 5000 + 10 * i as u64);
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_expansion_on_one_rank() {
    sharded_expansions(1);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_expansion_on_two_ranks_numbers_local_plus_base() {
    sharded_expansions(2);
}

/// Four ranks (skipped below four devices): scans, selects and expansions, as on two.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn four_ranks_scan_select_and_expand() {
    sharded_scans(4);
    sharded_selects(4);
    sharded_expansions(4);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_expansion_refuses_max_n_before_any_collective() {
    let Some(gpus) = gpus(2) else { return };
    let counts: Vec<CudaSlice<u32>> = (0..2).map(|r| gpus.gpu(r).upload(&[1u32, 2]).unwrap()).collect();
    assert!(matches!(
        gpus.expand_sharded(&counts, Strategy::MaxN { max_n: 4 }, 8),
        Err(Error::InvalidInput(m)) if m.contains("pass 2")
    ));
    // Nothing was left waiting.
    let e = gpus.expand_sharded(&counts, Strategy::ScanFused, 8).unwrap();
    assert_eq!(e.total, 6);
}
