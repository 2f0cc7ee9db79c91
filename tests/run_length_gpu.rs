//! Run-length encoding on the GPU against the CPU reference: runs of random length, all equal,
//! all distinct, runs longer than a tile and of exactly a tile, odd sizes, every item size, `u32`
//! and `u64` lengths, poisoned outputs, too-small outputs reported (nothing written past them),
//! misuse refused before any launch and the next call working, and the look-back's fallback.

mod select_support;

use select_support::{gpu, random_items, sizes, small, POISON};
use warpwork::abi::select::family_tile_items;
use warpwork::run_length::{state_len, RunLength};
use warpwork::{Error, Gpu};
use warpwork_cpu_reference::{family as cpu, inputs};

/// `n` items in runs of 1 to `2·mean − 1` copies of random values.
fn runs<T: bytemuck::Pod>(n: usize, mean: usize, seed: u64) -> Vec<T> {
    let values: Vec<T> = random_items(n, seed);
    let lengths = inputs::uniform_range(n, seed ^ 0x5eed, 1, (2 * mean).max(2) as u32);
    let mut out = Vec::with_capacity(n);
    let mut r = 0;
    while out.len() < n {
        out.extend(std::iter::repeat_n(values[r], (lengths[r] as usize).min(n - out.len())));
        r += 1;
    }
    out
}

/// One encoding into poisoned outputs as long as the input, checked against the CPU.
fn check<T: bytemuck::Pod + Send + Sync, L: RunLength + TryFrom<u64> + PartialEq + std::fmt::Debug>(
    gpu: &Gpu,
    items: &[T],
    what: &str,
) {
    let n = items.len();
    let d = gpu.upload(items).unwrap();
    let mut values = gpu.filled::<T>(n, POISON).unwrap();
    let mut lengths = gpu.filled::<L>(n, POISON).unwrap();
    let mut state = gpu.filled::<u64>(state_len::<T>(n, n), POISON).unwrap();
    gpu.run_length_encode_into(&d, &mut values, &mut lengths, &mut state).unwrap_or_else(|e| panic!("{what}: {e}"));
    let count = gpu.select_count(&values, &state).unwrap();
    let (want_values, want_lengths) = cpu::run_length_encode(items);
    assert_eq!(count, want_values.len(), "{what}: count");
    let got = gpu.download(&values).unwrap();
    let bytes = |v: &[T]| bytemuck::cast_slice::<T, u8>(v).to_vec();
    assert!(bytes(&got[..count]) == bytes(&want_values), "{what}: values or their order differ");
    assert!(bytes(&got[count..]).iter().all(|&b| b == POISON), "{what}: values past the count");
    let got = gpu.download(&lengths).unwrap();
    let want: Vec<L> = want_lengths.iter().map(|&x| L::try_from(x).ok().unwrap()).collect();
    assert_eq!(got[..count], want[..], "{what}: lengths");
    assert!(
        bytemuck::cast_slice::<L, u8>(&got[count..]).iter().all(|&b| b == POISON),
        "{what}: lengths past the count"
    );
}

fn suite<T: bytemuck::Pod + Send + Sync>(seed: u64, largest: usize) {
    let gpu = gpu();
    let name = std::any::type_name::<T>();
    for n in sizes(largest) {
        for mean in [1, 4, 64] {
            let items = runs::<T>(n, mean, seed ^ n as u64 ^ mean as u64);
            check::<T, u32>(&gpu, &items, &format!("{name} runs of ~{mean}, n={n}, u32 lengths"));
        }
        check::<T, u64>(&gpu, &runs::<T>(n, 4, seed + n as u64), &format!("{name} n={n}, u64 lengths"));
        check::<T, u32>(&gpu, &random_items::<T>(n, seed + n as u64), &format!("{name} random, n={n}"));
        check::<T, u64>(&gpu, &vec![random_items::<T>(1, seed)[0]; n], &format!("{name} all equal, n={n}"));
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn encode_every_size_and_run_length() {
    suite::<u32>(1, 1 << 24);
    suite::<u8>(2, 1 << 22);
    suite::<u16>(3, 1 << 20);
    suite::<u64>(4, 1 << 22);
    suite::<[u32; 4]>(5, 1 << 20);
    suite::<f32>(6, 1 << 20);
}

/// Runs exactly a tile long, one more or less, and several tiles long.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn encode_runs_across_tiles() {
    fn at<T: bytemuck::Pod + Send + Sync>(gpu: &Gpu, n: usize) {
        let tile = family_tile_items(std::mem::size_of::<T>(), n as u64) as usize;
        let values: Vec<T> = random_items(n / tile + 8, 99 + n as u64);
        for len in [tile, tile - 1, tile + 1, 3 * tile + 5, 33] {
            let items: Vec<T> = (0..n).map(|i| values[(i / len) % values.len()]).collect();
            check::<T, u32>(gpu, &items, &format!("{} runs of {len} (tile {tile}), n={n}", std::any::type_name::<T>()));
        }
    }
    let gpu = gpu();
    for n in [100_000usize, 3 << 20, 9 << 20].into_iter().filter(|&n| !small() || n < 1 << 18) {
        at::<u8>(&gpu, n);
        at::<u32>(&gpu, n);
        at::<u64>(&gpu, n);
        at::<[u32; 4]>(&gpu, n);
    }
}

/// Too-small outputs: the count reports the overflow, nothing is written past either output;
/// bad calls are refused before any launch; the next call works.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn small_outputs_and_misuse() {
    let gpu = gpu();
    let items = runs::<u32>(50_000, 4, 9);
    let (want_values, want_lengths) = cpu::run_length_encode(&items);
    let d = gpu.upload(&items).unwrap();
    let room = want_values.len() / 2;
    let mut values = gpu.filled::<u32>(room + 64, POISON).unwrap();
    let mut lengths = gpu.filled::<u32>(room + 64, POISON).unwrap();
    let mut state = gpu.zeros::<u64>(state_len::<u32>(items.len(), room)).unwrap();
    {
        let (mut v, mut l) = (values.slice_mut(0..room), lengths.slice_mut(0..room));
        gpu.run_length_encode_into(&d, &mut v, &mut l, &mut state).unwrap();
        let r = gpu.select_count(&v, &state);
        assert!(matches!(r, Err(Error::CapacityExceeded { .. })), "{r:?}");
    }
    let poison = u32::from_ne_bytes([POISON; 4]);
    let (got_values, got_lengths) = (gpu.download(&values).unwrap(), gpu.download(&lengths).unwrap());
    assert_eq!(got_values[..room], want_values[..room]);
    // Every run that fits has its length (the last one's from its successor's index, which is
    // known even though the successor does not fit).
    assert_eq!(got_lengths[..room], want_lengths[..room].iter().map(|&x| x as u32).collect::<Vec<_>>()[..]);
    assert!(got_values[room..].iter().chain(&got_lengths[room..]).all(|&v| v == poison), "past the outputs");
    // Lengths shorter than the values, a state too small, an item size without kernels.
    let mut out = gpu.zeros::<u32>(items.len()).unwrap();
    let mut short = gpu.zeros::<u32>(items.len() - 1).unwrap();
    let mut big_state = gpu.zeros::<u64>(state_len::<u32>(items.len(), items.len())).unwrap();
    let r = gpu.run_length_encode_into(&d, &mut out, &mut short, &mut big_state);
    assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
    let mut full_lengths = gpu.zeros::<u32>(items.len()).unwrap();
    let mut tiny = gpu.zeros::<u64>(state_len::<u32>(items.len(), items.len()) - 1).unwrap();
    let r = gpu.run_length_encode_into(&d, &mut out, &mut full_lengths, &mut tiny);
    assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
    let odd = gpu.upload(&[[1u8, 2, 3]; 5]).unwrap();
    let mut odd_out = gpu.zeros::<[u8; 3]>(5).unwrap();
    let r = gpu.run_length_encode_into(&odd, &mut odd_out, &mut full_lengths, &mut big_state);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    // The next call works.
    check::<u32, u32>(&gpu, &items, "after misuse");
}

/// The allocating form.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn encode_allocating() {
    let gpu = gpu();
    let items = runs::<u16>(70_001, 8, 3);
    let (want_values, want_lengths) = cpu::run_length_encode(&items);
    let r = gpu.run_length_encode(&gpu.upload(&items).unwrap()).unwrap();
    assert_eq!(gpu.download_prefix(&r.values, r.count).unwrap(), want_values);
    assert_eq!(gpu.download_prefix(&r.lengths, r.count).unwrap(), want_lengths);
}

/// One non-trivial-runs call into poisoned outputs as long as the input, checked against the CPU.
fn check_non_trivial<T: bytemuck::Pod + Send + Sync, L: RunLength + TryFrom<u64> + PartialEq + std::fmt::Debug>(
    gpu: &Gpu,
    items: &[T],
    what: &str,
) {
    let n = items.len();
    let d = gpu.upload(items).unwrap();
    let mut offsets = gpu.filled::<L>(n, POISON).unwrap();
    let mut lengths = gpu.filled::<L>(n, POISON).unwrap();
    let mut state = gpu.filled::<u64>(warpwork::run_length::non_trivial_state_len::<T>(n, n), POISON).unwrap();
    gpu.non_trivial_runs_into(&d, &mut offsets, &mut lengths, &mut state).unwrap_or_else(|e| panic!("{what}: {e}"));
    let count = gpu.select_count(&offsets, &state).unwrap();
    let (want_offsets, want_lengths) = cpu::non_trivial_runs(items);
    assert_eq!(count, want_offsets.len(), "{what}: count");
    let conv = |v: &[u64]| v.iter().map(|&x| L::try_from(x).ok().unwrap()).collect::<Vec<L>>();
    let (got_offsets, got_lengths) = (gpu.download(&offsets).unwrap(), gpu.download(&lengths).unwrap());
    assert_eq!(got_offsets[..count], conv(&want_offsets)[..], "{what}: offsets");
    assert_eq!(got_lengths[..count], conv(&want_lengths)[..], "{what}: lengths");
    let past = |v: &[L]| bytemuck::cast_slice::<L, u8>(&v[count..]).iter().all(|&b| b == POISON);
    assert!(past(&got_offsets) && past(&got_lengths), "{what}: wrote past the count");
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn non_trivial_runs_every_size() {
    let gpu = gpu();
    for n in sizes(1 << 22) {
        for mean in [1, 2, 4, 64] {
            check_non_trivial::<u32, u32>(&gpu, &runs::<u32>(n, mean, 40 + n as u64), &format!("u32 ~{mean}, n={n}"));
        }
        check_non_trivial::<u8, u64>(&gpu, &runs::<u8>(n, 4, 41 + n as u64), &format!("u8 n={n}"));
        check_non_trivial::<u16, u32>(&gpu, &runs::<u16>(n, 4, 42 + n as u64), &format!("u16 n={n}"));
        check_non_trivial::<u64, u64>(&gpu, &runs::<u64>(n, 4, 43 + n as u64), &format!("u64 n={n}"));
        check_non_trivial::<[u32; 4], u32>(&gpu, &runs::<[u32; 4]>(n, 4, 44 + n as u64), &format!("16-byte n={n}"));
        check_non_trivial::<u32, u32>(&gpu, &vec![7u32; n], &format!("all equal, n={n}"));
        let distinct: Vec<u32> = (0..n as u32).collect();
        check_non_trivial::<u32, u32>(&gpu, &distinct, &format!("all distinct, n={n}"));
    }
    // Runs across tiles, ending on the input's last item, of exactly a tile.
    for n in [100_000usize, 3 << 20, 9 << 20].into_iter().filter(|&n| !small() || n < 1 << 18) {
        let tile = family_tile_items(4, n as u64) as usize;
        for len in [tile, tile - 1, tile + 1, 3 * tile + 5, 2, 33] {
            let items: Vec<u32> = (0..n).map(|i| (i / len) as u32).collect();
            check_non_trivial::<u32, u32>(&gpu, &items, &format!("runs of {len} (tile {tile}), n={n}"));
        }
    }
}

/// Too-small outputs and misuse for the non-trivial runs; the next call works.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn non_trivial_runs_small_outputs_and_misuse() {
    let gpu = gpu();
    let items = runs::<u32>(50_000, 4, 19);
    let (want_offsets, want_lengths) = cpu::non_trivial_runs(&items);
    let d = gpu.upload(&items).unwrap();
    let room = want_offsets.len() / 2;
    let (mut obuf, mut lbuf) =
        (gpu.filled::<u32>(room + 64, POISON).unwrap(), gpu.filled::<u32>(room + 64, POISON).unwrap());
    let mut state = gpu.zeros::<u64>(warpwork::run_length::non_trivial_state_len::<u32>(items.len(), room)).unwrap();
    {
        let (mut o, mut l) = (obuf.slice_mut(0..room), lbuf.slice_mut(0..room));
        gpu.non_trivial_runs_into(&d, &mut o, &mut l, &mut state).unwrap();
        assert!(matches!(gpu.select_count(&o, &state), Err(Error::CapacityExceeded { .. })));
    }
    let (go, gl) = (gpu.download(&obuf).unwrap(), gpu.download(&lbuf).unwrap());
    let as32 = |v: &[u64]| v.iter().map(|&x| x as u32).collect::<Vec<_>>();
    assert_eq!((go[..room].to_vec(), gl[..room].to_vec()), (as32(&want_offsets[..room]), as32(&want_lengths[..room])));
    let poison = u32::from_ne_bytes([POISON; 4]);
    assert!(go[room..].iter().chain(&gl[room..]).all(|&v| v == poison), "past the outputs");
    let (mut o, mut l) = (gpu.zeros::<u32>(items.len()).unwrap(), gpu.zeros::<u32>(items.len() - 1).unwrap());
    let r = gpu.non_trivial_runs_into(&d, &mut o, &mut l, &mut state);
    assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
    let mut l = gpu.zeros::<u32>(items.len()).unwrap();
    let mut tiny =
        gpu.zeros::<u64>(warpwork::run_length::non_trivial_state_len::<u32>(items.len(), items.len()) - 1).unwrap();
    let r = gpu.non_trivial_runs_into(&d, &mut o, &mut l, &mut tiny);
    assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "state too small: {r:?}");
    check_non_trivial::<u32, u32>(&gpu, &items, "after misuse");
}

/// Inputs that stress the carry of the last run start from tile to tile: one run of the whole
/// input, 2^20 + 3 items of one value then short runs, runs of the run kernels' own tile length
/// and one more or less (small and large tiles), runs all of one item, and odd sizes around
/// powers of two; run-length encoding and the non-trivial runs, `u32` and `u64` lengths.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn runs_carried_across_tiles() {
    fn both<T: bytemuck::Pod + Send + Sync>(gpu: &Gpu, items: &[T], what: &str) {
        check::<T, u32>(gpu, items, &format!("{what}, u32 lengths"));
        check::<T, u64>(gpu, items, &format!("{what}, u64 lengths"));
        check_non_trivial::<T, u32>(gpu, items, &format!("{what}, non-trivial u32"));
        check_non_trivial::<T, u64>(gpu, items, &format!("{what}, non-trivial u64"));
    }
    fn at<T: bytemuck::Pod + Send + Sync>(gpu: &Gpu, n: usize) {
        let name = std::any::type_name::<T>();
        let values: Vec<T> = random_items(n + 8, 77 + n as u64);
        both(gpu, &vec![values[0]; n], &format!("{name} one run, n={n}"));
        let tile = family_tile_items(std::mem::size_of::<T>(), n as u64) as usize;
        for len in [tile - 1, tile, tile + 1, 2 * tile - 1, 1] {
            let items: Vec<T> = (0..n).map(|i| values[i / len]).collect();
            both(gpu, &items, &format!("{name} runs of {len} (tile {tile}), n={n}"));
        }
    }
    let gpu = gpu();
    // (Past 32 MiB of `u32`: the large tiles.)
    let big = if small() { 1 << 17 } else { 9 << 20 };
    for n in [0usize, 1, 2, 31, 33, 255, 257, 4095, 4097, 65_535, 65_537, 1 << 17, big] {
        at::<u8>(&gpu, n);
        at::<u32>(&gpu, n);
        at::<u64>(&gpu, n);
        at::<[u32; 4]>(&gpu, n);
    }
    // 2^20 + 3 items of one value (2^17 + 3 under the sanitizers), then runs of 1 to 7: the first run ends far from its start.
    let head = if small() { (1usize << 17) + 3 } else { (1 << 20) + 3 };
    let mut items = vec![5u32; head];
    items.extend(runs::<u32>(head, 4, 12).iter().map(|&v| v | 1 << 31));
    both(&gpu, &items, "2^20 + 3 of one value, then short runs");
    let mut items = vec![5u8; head];
    items.extend((0..100_000u32).map(|i| (i % 7) as u8 + 6));
    both(&gpu, &items, "u8: 2^20 + 3 of one value, then runs of one");
    // Short runs then one long run to the end: the last run's length comes from the last tile.
    let mut items = runs::<u32>(300_001, 3, 13);
    items.extend(std::iter::repeat_n(3u32, head));
    both(&gpu, &items, "short runs, then one long run to the end");
}
