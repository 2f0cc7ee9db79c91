//! GPU tests of the sharded reduce and argmin / argmax (feature `nccl`): the sum, minimum and
//! maximum of `u32`, `i32`, `u64`, `i64`, `f32` and `f64` shards on 1, 2 and 4 ranks, against
//! the CPU reference of the shards concatenated (random values over each type's range; float
//! sums on integer-valued floats, exact in any order), with shard lengths 0, 1, 31, 33 and
//! 2^20 + 3 and unequal sets, poisoned outputs, the same bits on every rank; float sums of
//! random reals bit-equal to the one-GPU sum of the shards' one-GPU sums, in rank order (what
//! the docs promise); NaN and signed zeros across ranks; and the errors checked before any
//! collective. The argmin and argmax of the same shard sets against the CPU reference's
//! (global indices), and across ranks: the first NaN, ties to the smallest index, empty ranks
//! before ranks whose every element is the operator's identity (±∞), every rank empty.
//!
//! Needs the NCCL library as `libnccl.so` on the loader path and, on NVSwitch machines,
//! `NCCL_NVLS_ENABLE=0` (see `multi_gpu`); prints `skipped: …` where the machine has too few
//! devices or no NCCL.

mod common;

use common::reduce::{cpu_op, same, TestElement, OPS};
use common::{poisoned, small};
use warpwork::cudarc::driver::CudaSlice;
use warpwork::cudarc::nccl::NcclType;
use warpwork::multi::{arg_reduce_shard_scratch_len, reduce_shard_scratch_len, Gpus};
use warpwork::reduce::{ArgOp, ReduceOp};
use warpwork::Error;
use warpwork_cpu_reference::reduce as cpu;

/// Ranks on devices `0..n`, or `None` (printing why) where the machine cannot make them.
fn gpus(n: usize) -> Option<Gpus> {
    match Gpus::new(&(0..n).collect::<Vec<_>>()) {
        Ok(g) => Some(g),
        Err(e @ (Error::NoDevice { .. } | Error::NoNccl)) => {
            eprintln!("skipped: {n} ranks: {e}");
            None
        }
        Err(e) => panic!("making {n} ranks: {e}"),
    }
}

/// Shard length sets for `ranks` ranks: odd sizes, empty ranks, one large rank.
fn shard_sets(ranks: usize) -> Vec<Vec<usize>> {
    let big = if small() { (1 << 16) + 3 } else { (1 << 20) + 3 };
    match ranks {
        1 => vec![vec![0], vec![1], vec![31], vec![big]],
        2 => vec![vec![0, 0], vec![1, 0], vec![0, 33], vec![31, 33], vec![big, 5], vec![3, big]],
        _ => vec![vec![0, 7, big, 1], vec![33, 0, 0, 31], vec![big, big / 2, 1, big / 3]],
    }
}

/// The sharded reduce of `shards` (rank `r`'s on device `r`) under `op`, each output and
/// scratch poisoned first; returns every rank's result.
fn run<T: TestElement + NcclType>(gpus: &Gpus, shards: &[Vec<T>], op: ReduceOp) -> Vec<T> {
    let ranks = gpus.len();
    let dev: Vec<CudaSlice<T>> = shards.iter().enumerate().map(|(r, s)| gpus.gpu(r).upload(s).unwrap()).collect();
    let mut outs: Vec<CudaSlice<T>> = (0..ranks).map(|r| poisoned(gpus.gpu(r), 1)).collect();
    let mut scratch: Vec<CudaSlice<u32>> = shards
        .iter()
        .enumerate()
        .map(|(r, s)| poisoned(gpus.gpu(r), reduce_shard_scratch_len::<T>(s.len(), ranks)))
        .collect();
    gpus.reduce_sharded_into(&dev, op, &mut outs, &mut scratch).unwrap();
    outs.iter().enumerate().map(|(r, o)| gpus.gpu(r).download(o).unwrap()[0]).collect()
}

/// Every operator on every shard set: each rank's result is the CPU reduce of the shards
/// concatenated (float sums on integer-valued floats).
fn check_type<T: TestElement + NcclType>(gpus: &Gpus, seed: u64) {
    for (k, lens) in shard_sets(gpus.len()).into_iter().enumerate() {
        for op in OPS {
            let shards: Vec<Vec<T>> = lens
                .iter()
                .enumerate()
                .map(|(r, &n)| {
                    let s = seed + 97 * k as u64 + r as u64;
                    if T::FLOAT && op == ReduceOp::Sum {
                        T::small_ints(n, s)
                    } else {
                        T::random(n, s)
                    }
                })
                .collect();
            let all: Vec<T> = shards.concat();
            let want = cpu::reduce(&all, cpu_op(op));
            let got = run(gpus, &shards, op);
            for (r, &g) in got.iter().enumerate() {
                assert!(same(g, want), "{op:?} {lens:?}, rank {r}: got {g:?}, want {want:?}");
                assert_eq!(bytemuck::bytes_of(&g), bytemuck::bytes_of(&got[0]), "{op:?} {lens:?}: rank {r} differs");
            }
        }
    }
}

fn all_types(ranks: usize) {
    let Some(gpus) = gpus(ranks) else { return };
    check_type::<u32>(&gpus, 1);
    check_type::<i32>(&gpus, 2);
    check_type::<u64>(&gpus, 3);
    check_type::<i64>(&gpus, 4);
    check_type::<f32>(&gpus, 5);
    check_type::<f64>(&gpus, 6);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_reduce_on_one_rank() {
    all_types(1);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_reduce_on_two_ranks() {
    all_types(2);
}

/// Four ranks (skipped below four devices).
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_reduce_on_four_ranks() {
    all_types(4);
}

/// A float sum of random reals: the one-GPU sum of the shards' one-GPU sums, bit for bit.
fn float_sum_is_the_sum_of_shard_sums<T: TestElement + NcclType>(gpus: &Gpus) {
    let big = if small() { 70_001 } else { 3_000_001 };
    for lens in [vec![big, 17], vec![1, big], vec![0, big / 3]] {
        let shards: Vec<Vec<T>> = lens.iter().enumerate().map(|(r, &n)| T::random(n, 40 + r as u64)).collect();
        let got = run(gpus, &shards, ReduceOp::Sum);
        let g0 = gpus.gpu(0);
        let sums: Vec<T> = shards
            .iter()
            .enumerate()
            .map(|(r, s)| gpus.gpu(r).reduce(&gpus.gpu(r).upload(s).unwrap(), ReduceOp::Sum).unwrap())
            .collect();
        let want = g0.reduce(&g0.upload(&sums).unwrap(), ReduceOp::Sum).unwrap();
        for (r, g) in got.iter().enumerate() {
            assert_eq!(bytemuck::bytes_of(g), bytemuck::bytes_of(&want), "{lens:?}, rank {r}: {g:?} against {want:?}");
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn float_sums_add_the_shard_sums_in_rank_order() {
    let Some(gpus) = gpus(2) else { return };
    float_sum_is_the_sum_of_shard_sums::<f32>(&gpus);
    float_sum_is_the_sum_of_shard_sums::<f64>(&gpus);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn nan_and_signed_zeros_across_ranks() {
    let Some(gpus) = gpus(2) else { return };
    let nan = vec![vec![1.0f32, 2.0], vec![f32::NAN, -3.0]];
    for op in [ReduceOp::Min, ReduceOp::Max] {
        assert!(run(&gpus, &nan, op).iter().all(|v| v.is_nan()), "{op:?} with a NaN on rank 1");
    }
    let zeros = vec![vec![0.0f64], vec![-0.0f64]];
    assert!(run(&gpus, &zeros, ReduceOp::Min).iter().all(|v| v.to_bits() == (-0.0f64).to_bits()));
    assert!(run(&gpus, &zeros, ReduceOp::Max).iter().all(|v| v.to_bits() == 0.0f64.to_bits()));
    // Empty everywhere: the operator's identity (the float sum's is -0.0).
    let empty: Vec<Vec<f32>> = vec![vec![], vec![]];
    assert!(run(&gpus, &empty, ReduceOp::Sum).iter().all(|v| v.to_bits() == (-0.0f32).to_bits()));
    assert!(run(&gpus, &empty, ReduceOp::Min).iter().all(|&v| v == f32::INFINITY));
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn bad_buffers_are_refused_before_any_collective() {
    let Some(gpus) = gpus(2) else { return };
    let (g0, g1) = (gpus.gpu(0), gpus.gpu(1));
    let shards = vec![g0.upload(&[1u64, 2, 3]).unwrap(), g1.upload(&[4u64]).unwrap()];
    let scratch = |r: usize, n: usize| gpus.gpu(r).zeros::<u32>(reduce_shard_scratch_len::<u64>(n, 2)).unwrap();
    let mut outs = vec![g0.zeros::<u64>(1).unwrap(), g1.zeros::<u64>(1).unwrap()];
    // One shard for two ranks.
    let r = gpus.reduce_sharded_into(&shards[..1], ReduceOp::Sum, &mut outs, &mut [scratch(0, 3), scratch(1, 1)]);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    // Rank 1's scratch one word short.
    let short = g1.zeros::<u32>(reduce_shard_scratch_len::<u64>(1, 2) - 1).unwrap();
    let r = gpus.reduce_sharded_into(&shards, ReduceOp::Sum, &mut outs, &mut [scratch(0, 3), short]);
    assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
    // Rank 1's output on rank 0's device.
    let mut wrong = vec![g0.zeros::<u64>(1).unwrap(), g0.zeros::<u64>(1).unwrap()];
    let r = gpus.reduce_sharded_into(&shards, ReduceOp::Sum, &mut wrong, &mut [scratch(0, 3), scratch(1, 1)]);
    assert!(matches!(r, Err(Error::WrongContext)), "{r:?}");
    // An empty output.
    let mut empty = vec![g0.zeros::<u64>(1).unwrap(), g1.zeros::<u64>(0).unwrap()];
    let r = gpus.reduce_sharded_into(&shards, ReduceOp::Sum, &mut empty, &mut [scratch(0, 3), scratch(1, 1)]);
    assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
    // Nothing was left waiting: the next call completes.
    assert_eq!(gpus.reduce_sharded(&shards, ReduceOp::Sum).unwrap(), 10);
    assert_eq!(gpus.reduce_sharded(&shards, ReduceOp::Max).unwrap(), 4);
}

/// The sharded argmin / argmax of `shards` under `op`, each output and scratch poisoned
/// first; returns every rank's `(index, value)`.
fn run_arg<T: TestElement + NcclType>(gpus: &Gpus, shards: &[Vec<T>], op: ArgOp) -> Vec<(u64, T)> {
    let ranks = gpus.len();
    let dev: Vec<CudaSlice<T>> = shards.iter().enumerate().map(|(r, s)| gpus.gpu(r).upload(s).unwrap()).collect();
    let mut indices: Vec<CudaSlice<u64>> = (0..ranks).map(|r| poisoned(gpus.gpu(r), 1)).collect();
    let mut values: Vec<CudaSlice<T>> = (0..ranks).map(|r| poisoned(gpus.gpu(r), 1)).collect();
    let mut scratch: Vec<CudaSlice<u32>> = shards
        .iter()
        .enumerate()
        .map(|(r, s)| poisoned(gpus.gpu(r), arg_reduce_shard_scratch_len::<T>(s.len(), ranks)))
        .collect();
    gpus.arg_reduce_sharded_into(&dev, op, &mut indices, &mut values, &mut scratch).unwrap();
    (0..ranks)
        .map(|r| (gpus.gpu(r).download(&indices[r]).unwrap()[0], gpus.gpu(r).download(&values[r]).unwrap()[0]))
        .collect()
}

/// Each rank's argmin / argmax of `shards` is the CPU reference's of the shards concatenated
/// (`u64::MAX` and the identity for none).
fn check_arg<T: TestElement + NcclType>(gpus: &Gpus, shards: &[Vec<T>], what: &str) {
    let all: Vec<T> = shards.concat();
    let (lo, hi) = T::extremes();
    for op in [ArgOp::Min, ArgOp::Max] {
        let want = if op == ArgOp::Min { cpu::arg_min(&all) } else { cpu::arg_max(&all) };
        let want = want.unwrap_or((u64::MAX, if op == ArgOp::Min { hi } else { lo }));
        for (r, (i, v)) in run_arg(gpus, shards, op).into_iter().enumerate() {
            let agree = i == want.0 && bytemuck::bytes_of(&v) == bytemuck::bytes_of(&want.1);
            assert!(agree, "{what} {op:?}, rank {r}: got ({i}, {v:?}), want {want:?}");
        }
    }
}

fn arg_types(ranks: usize) {
    let Some(gpus) = gpus(ranks) else { return };
    fn each<T: TestElement + NcclType>(gpus: &Gpus, seed: u64) {
        for (k, lens) in shard_sets(gpus.len()).into_iter().enumerate() {
            let shards: Vec<Vec<T>> =
                lens.iter().enumerate().map(|(r, &n)| T::random(n, seed + 31 * k as u64 + r as u64)).collect();
            check_arg(gpus, &shards, &format!("{lens:?}"));
            // Small values: ties within and across ranks.
            let shards: Vec<Vec<T>> =
                lens.iter().enumerate().map(|(r, &n)| T::small_ints(n, seed + 7 * k as u64 + r as u64)).collect();
            check_arg(gpus, &shards, &format!("{lens:?}, small values"));
        }
    }
    each::<u32>(&gpus, 11);
    each::<i32>(&gpus, 12);
    each::<u64>(&gpus, 13);
    each::<i64>(&gpus, 14);
    each::<f32>(&gpus, 15);
    each::<f64>(&gpus, 16);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_argmin_argmax_on_one_two_and_four_ranks() {
    arg_types(1);
    arg_types(2);
    arg_types(4);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_argmin_argmax_across_ranks() {
    let Some(gpus) = gpus(2) else { return };
    let nan = f32::from_bits(0x7fc0_1234);
    // The first NaN: rank 0's, whatever rank 1 holds.
    check_arg(&gpus, &[vec![1.0f32, nan, 2.0], vec![f32::NAN, -9.0]], "NaN on both ranks");
    check_arg(&gpus, &[vec![1.0f32, 2.0], vec![-9.0, nan]], "NaN on rank 1");
    // Ties across ranks: the smallest global index.
    check_arg(&gpus, &[vec![5u32, 1, 7], vec![1, 9, 1]], "ties");
    check_arg(&gpus, &[vec![-0.0f64, 0.0], vec![0.0, -0.0]], "signed zeros");
    // An empty rank before a rank whose every element is the identity.
    check_arg(&gpus, &[vec![], vec![f64::INFINITY, f64::INFINITY]], "empty, then +inf");
    check_arg(&gpus, &[vec![], vec![f64::NEG_INFINITY]], "empty, then -inf");
    check_arg(&gpus, &[vec![u64::MAX], vec![]], "u64::MAX, then empty");
    // Every rank empty: no element.
    check_arg::<i32>(&gpus, &[vec![], vec![]], "all empty");
    let shards: Vec<CudaSlice<i32>> = (0..2).map(|r| gpus.gpu(r).zeros::<i32>(0).unwrap()).collect();
    assert_eq!(gpus.arg_reduce_sharded(&shards, ArgOp::Max).unwrap(), None);
    let shards = vec![gpus.gpu(0).upload(&[4i64, 2]).unwrap(), gpus.gpu(1).upload(&[2i64, 8]).unwrap()];
    assert_eq!(gpus.arg_reduce_sharded(&shards, ArgOp::Min).unwrap(), Some((1, 2)));
    assert_eq!(gpus.arg_reduce_sharded(&shards, ArgOp::Max).unwrap(), Some((3, 8)));
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn sharded_argmin_argmax_refuses_bad_buffers_before_any_collective() {
    let Some(gpus) = gpus(2) else { return };
    let (g0, g1) = (gpus.gpu(0), gpus.gpu(1));
    let shards = vec![g0.upload(&[1u32, 2, 3]).unwrap(), g1.upload(&[0u32]).unwrap()];
    let scratch = |r: usize, n: usize| gpus.gpu(r).zeros::<u32>(arg_reduce_shard_scratch_len::<u32>(n, 2)).unwrap();
    let mut idx = vec![g0.zeros::<u64>(1).unwrap(), g1.zeros::<u64>(1).unwrap()];
    let mut val = vec![g0.zeros::<u32>(1).unwrap(), g1.zeros::<u32>(1).unwrap()];
    let short = g1.zeros::<u32>(arg_reduce_shard_scratch_len::<u32>(1, 2) - 1).unwrap();
    let r = gpus.arg_reduce_sharded_into(&shards, ArgOp::Min, &mut idx, &mut val, &mut [scratch(0, 3), short]);
    assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
    let mut wrong = vec![g0.zeros::<u32>(1).unwrap(), g0.zeros::<u32>(1).unwrap()];
    let r =
        gpus.arg_reduce_sharded_into(&shards, ArgOp::Min, &mut idx, &mut wrong, &mut [scratch(0, 3), scratch(1, 1)]);
    assert!(matches!(r, Err(Error::WrongContext)), "{r:?}");
    let r = gpus.arg_reduce_sharded_into(&shards[..1], ArgOp::Min, &mut idx, &mut val, &mut [scratch(0, 3)]);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    // Nothing was left waiting.
    assert_eq!(gpus.arg_reduce_sharded(&shards, ArgOp::Min).unwrap(), Some((3, 0)));
}
