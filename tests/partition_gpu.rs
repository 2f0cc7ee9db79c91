//! Stable partition on the GPU against the CPU reference: every item type by flag and the
//! primitive numbers by value test, odd sizes around the tiles, keep none / one / all, poisoned
//! outputs (every slot below `n` written, nothing past it), misuse refused before any launch
//! (and the next call working), and replays of a captured CUDA graph.

mod select_support;

use select_support::{gpu, random_items, sizes, small, POISON, RATES};
use std::sync::Arc;
use warpwork::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use warpwork::cudarc::driver::CudaContext;
use warpwork::partition::state_len;
use warpwork::select::{Keep, Predicate, SelectItem};
use warpwork::{DeviceRead, Error, Gpu};
use warpwork_cpu_reference::{family as cpu, inputs};

/// Items poisoned past `n` in the output: the partition must leave them alone.
const SLACK: usize = 37;

/// One partition into a poisoned output of `n + SLACK` items, checked against `expected`
/// (items, kept count).
fn check<T: bytemuck::Pod>(
    gpu: &Gpu,
    input: &impl DeviceRead<T>,
    keep: Keep<'_, T>,
    expected: &(Vec<T>, usize),
    what: &str,
) {
    let n = input.len();
    let mut out = gpu.filled::<T>(n + SLACK, POISON).unwrap();
    let mut state = gpu.filled::<u64>(state_len::<T>(n), POISON).unwrap();
    gpu.partition_into(input, keep, &mut out, &mut state).unwrap_or_else(|e| panic!("{what}: {e}"));
    let count = gpu.select_count(&out, &state).unwrap();
    assert_eq!(count, expected.1, "{what}: count");
    let got = gpu.download(&out).unwrap();
    let bytes = |v: &[T]| bytemuck::cast_slice::<T, u8>(v).to_vec();
    assert!(bytes(&got[..n]) == bytes(&expected.0), "{what}: items or their order differ");
    assert!(bytes(&got[n..]).iter().all(|&b| b == POISON), "{what}: wrote past n");
}

/// Every size and rate of a by-flag partition of random `T`s.
fn flagged_suite<T: bytemuck::Pod + Send + Sync>(seed: u64, largest: usize) {
    let gpu = gpu();
    for n in sizes(largest) {
        let items: Vec<T> = random_items(n, seed ^ n as u64);
        let d_items = gpu.upload(&items).unwrap();
        for rate in RATES {
            let flags = inputs::flags(n, seed.wrapping_add(n as u64), rate);
            let d_flags = gpu.upload(&flags).unwrap();
            let what = format!("{} flagged n={n} rate={rate}", std::any::type_name::<T>());
            check(&gpu, &d_items, Keep::Flagged(&d_flags), &cpu::partition_flagged(&items, &flags), &what);
        }
    }
}

/// Every size of a value-test partition of random `T`s, with a threshold keeping about `rate`.
fn if_suite<T: SelectItem + Send + Sync>(seed: u64, largest: usize, thresholds: &[T]) {
    let gpu = gpu();
    for n in sizes(largest) {
        let items: Vec<T> = random_items(n, seed ^ n as u64);
        let d_items = gpu.upload(&items).unwrap();
        for &t in thresholds {
            for p in [Predicate::Less(t), Predicate::GreaterEqual(t), Predicate::NonZero] {
                let what = format!("{} {p:?} n={n}", std::any::type_name::<T>());
                check(&gpu, &d_items, Keep::If(p), &cpu::partition_if(&items, |v| p.test(v)), &what);
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn partition_by_flag_every_size() {
    let largest = 1 << 24;
    flagged_suite::<u32>(1, largest);
    flagged_suite::<u8>(2, largest);
    flagged_suite::<u16>(3, 1 << 22);
    flagged_suite::<u64>(4, 1 << 22);
    flagged_suite::<[u32; 4]>(5, 1 << 22);
    flagged_suite::<[u8; 2]>(6, 1 << 20);
    flagged_suite::<[u16; 4]>(7, 1 << 20);
    flagged_suite::<f32>(8, 1 << 20);
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn partition_by_value_test_every_type() {
    let largest = 1 << 22;
    if_suite::<u32>(11, largest, &[u32::MAX / 2, 1, 0]);
    if_suite::<i32>(12, largest, &[0, i32::MIN]);
    if_suite::<u8>(13, largest, &[128, 255]);
    if_suite::<i8>(14, 1 << 20, &[0]);
    if_suite::<u16>(15, 1 << 20, &[40_000]);
    if_suite::<i16>(16, 1 << 20, &[-5]);
    if_suite::<u64>(17, 1 << 20, &[u64::MAX / 3]);
    if_suite::<i64>(18, 1 << 20, &[0]);
    if_suite::<f32>(19, 1 << 20, &[0.0, f32::NAN]);
    if_suite::<f64>(20, 1 << 20, &[1.0e10]);
}

/// Exactly one item kept (first, middle, last) and none kept, across several tiles.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn partition_keeps_one_or_none() {
    let gpu = gpu();
    for n in [1usize, 2, 8193, 100_003] {
        let items: Vec<u32> = (0..n as u32).collect();
        let d = gpu.upload(&items).unwrap();
        for one in [0, n / 2, n - 1] {
            let p = Predicate::Equal(one as u32);
            check(&gpu, &d, Keep::If(p), &cpu::partition_if(&items, |v| p.test(v)), &format!("one of {n} at {one}"));
        }
        let p = Predicate::Less(0);
        check(&gpu, &d, Keep::If(p), &cpu::partition_if(&items, |v| p.test(v)), &format!("none of {n}"));
    }
}

/// The item counts around a tile's, a row's and a warp share's edges for `T` (`size` bytes),
/// in both tile classes: a row is 32 lanes' 16-byte chunks, a share `chunks` rows, a tile `warps`
/// shares; for each class `len ± 1` of a row, of a share and of one and two tiles (the large
/// class from past `FAMILY_SMALL_TILE_BYTES` of input on).
fn edge_sizes(size: usize) -> Vec<usize> {
    use warpwork::abi::select::{family_tile_items, ordered_tile, FAMILY_SMALL_TILE_BYTES, FAMILY_TILE_CLASSES};
    let mut v = vec![];
    for (class, &c) in FAMILY_TILE_CLASSES.iter().enumerate() {
        let (warps, chunks) = ordered_tile(size, c);
        let row = 32 * 16 / size;
        let (share, tile) = (row * chunks, row * chunks * warps as usize);
        // The large class's tiles: far enough in that the input is past the small tiles' bytes.
        let at = if class == 0 { 0 } else { (FAMILY_SMALL_TILE_BYTES as usize / size).div_ceil(tile) * tile };
        for len in [row, share, tile, 2 * tile] {
            v.extend([at + len - 1, at + len, at + len + 1]);
        }
        assert_eq!(family_tile_items(size, (at + tile) as u64), tile as u64, "class {class}");
    }
    v.retain(|&n| !small() || n <= 1 << 18);
    v
}

/// Keep patterns by flag at the tile edges (`edge_sizes`): all, none, every other item, every
/// other run of 37, only the last item, 1% and 99%; every item type size.
fn edge_suite<T: bytemuck::Pod + Send + Sync>(seed: u64) {
    let gpu = gpu();
    let size = std::mem::size_of::<T>();
    for n in edge_sizes(size) {
        let items: Vec<T> = random_items(n, seed ^ n as u64);
        let d_items = gpu.upload(&items).unwrap();
        let patterns: [(&str, Vec<u8>); 7] = [
            ("all", vec![1; n]),
            ("none", vec![0; n]),
            ("every other", (0..n).map(|i| (i % 2) as u8).collect()),
            ("runs of 37", (0..n).map(|i| ((i / 37) % 2) as u8).collect()),
            ("the last", (0..n).map(|i| (i + 1 == n) as u8).collect()),
            ("1%", inputs::flags(n, seed + 1, 0.01)),
            ("99%", inputs::flags(n, seed + 2, 0.99)),
        ];
        for (name, flags) in patterns {
            let d_flags = gpu.upload(&flags).unwrap();
            let what = format!("{} {name} n={n}", std::any::type_name::<T>());
            check(&gpu, &d_items, Keep::Flagged(&d_flags), &cpu::partition_flagged(&items, &flags), &what);
        }
    }
}

/// Tile, row and share edges (see `edge_sizes`) for every item size, with keep patterns that
/// leave a row, share or tile all kept, all rejected, or split at every item.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn partition_at_tile_edges() {
    edge_suite::<u8>(31);
    edge_suite::<u16>(32);
    edge_suite::<u32>(33);
    edge_suite::<u64>(34);
    edge_suite::<[u32; 4]>(35);
    // By value test too: every other item below the threshold, at the u32 edges.
    let gpu = gpu();
    for n in edge_sizes(4) {
        let items: Vec<u32> = (0..n as u32).map(|i| if i % 2 == 0 { i } else { u32::MAX - i }).collect();
        let d = gpu.upload(&items).unwrap();
        let p = Predicate::Less(1 << 31);
        check(&gpu, &d, Keep::If(p), &cpu::partition_if(&items, |v| p.test(v)), &format!("u32 alternating n={n}"));
    }
}

/// Bad calls are refused before anything is launched, with nothing written, and the next call
/// works.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn misuse_is_refused_and_the_next_call_works() {
    let gpu = gpu();
    let items = gpu.upload(&[1u32, 5, 2, 7]).unwrap();
    let flags = gpu.upload(&[1u8, 0, 1]).unwrap();
    let mut state = gpu.zeros::<u64>(state_len::<u32>(4)).unwrap();
    let mut short = gpu.filled::<u32>(3, POISON).unwrap();
    let r = gpu.partition_into(&items, Keep::If(Predicate::Less(3)), &mut short, &mut state);
    assert!(matches!(r, Err(Error::BufferTooSmall { len: 3, needed: 4, .. })), "{r:?}");
    assert!(gpu.download(&short).unwrap().iter().all(|&v| v == u32::from_ne_bytes([POISON; 4])));
    let mut out = gpu.zeros::<u32>(4).unwrap();
    let r = gpu.partition_into(&items, Keep::Flagged(&flags), &mut out, &mut state);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    let mut tiny_state = gpu.zeros::<u64>(1).unwrap();
    let r = gpu.partition_into(&items, Keep::If(Predicate::Less(3)), &mut out, &mut tiny_state);
    assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
    // Items of a size without kernels; a value test on a type without one.
    let odd = gpu.upload(&[[1u8, 2, 3]; 4]).unwrap();
    let odd_flags = gpu.upload(&[1u8; 4]).unwrap();
    let mut odd_out = gpu.zeros::<[u8; 3]>(4).unwrap();
    let r = gpu.partition_into(&odd, Keep::Flagged(&odd_flags), &mut odd_out, &mut state);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    let pairs = gpu.upload(&[[1u8, 2]; 4]).unwrap();
    let mut pairs_out = gpu.zeros::<[u8; 2]>(4).unwrap();
    let r = gpu.partition_into(&pairs, Keep::If(Predicate::Less([0, 0])), &mut pairs_out, &mut state);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    // The context is fine: the next call works.
    gpu.partition_into(&items, Keep::If(Predicate::Less(3)), &mut out, &mut state).unwrap();
    assert_eq!(gpu.select_count(&out, &state).unwrap(), 2);
    assert_eq!(gpu.download(&out).unwrap(), [1, 2, 7, 5]);
}

/// A partition recorded into a CUDA graph on a non-default stream, replayed with new inputs
/// copied into the same buffers, each replay checked.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn partition_replays_from_a_captured_graph() {
    let ctx = CudaContext::new(0).expect("the GPU suite needs a CUDA device");
    let stream = ctx.new_stream().unwrap();
    let gpu = Gpu::from_stream(Arc::clone(&stream)).unwrap();
    let n = if small() { 5000 } else { 300_001 };
    let mut items = gpu.zeros::<u32>(n).unwrap();
    let mut out = gpu.zeros::<u32>(n).unwrap();
    let mut state = gpu.zeros::<u64>(state_len::<u32>(n)).unwrap();
    let p = Predicate::Less(u32::MAX / 3);
    // Once outside the capture, so that the kernels' module is loaded before it.
    gpu.partition_into(&items, Keep::If(p), &mut out, &mut state).unwrap();
    stream.synchronize().unwrap();
    // SAFETY: nothing else runs on this context during the capture and no buffer is created or
    // freed in it (cudarc's event tracking is off for the capture, as cudarc's graph tests do).
    unsafe { ctx.disable_event_tracking() };
    stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL).unwrap();
    let recorded = gpu.partition_into(&items, Keep::If(p), &mut out, &mut state);
    let graph = stream.end_capture(CUgraphInstantiate_flags(0));
    // SAFETY: as above.
    unsafe { ctx.enable_event_tracking() };
    recorded.unwrap();
    let graph = graph.unwrap().expect("a graph");
    for r in 0..10u64 {
        let input = inputs::uniform_u32(n, 900 + r);
        stream.memcpy_htod(&input, &mut items).unwrap();
        graph.launch().unwrap();
        let count = gpu.select_count(&out, &state).unwrap();
        let (want, kept) = cpu::partition_if(&input, |v| p.test(v));
        assert_eq!(count, kept, "replay {r}: count");
        assert_eq!(gpu.download(&out).unwrap(), want, "replay {r}: items");
    }
}
