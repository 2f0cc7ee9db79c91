//! Unique (drop consecutive duplicates, by bytes) on the GPU against the CPU reference: runs of
//! random length, all equal, all distinct, runs longer than a tile and runs of exactly a tile,
//! odd sizes, every item size, poisoned outputs, a too-small output reported (nothing written
//! past it) with the next call working, and misuse refused before any launch.

mod select_support;

use select_support::{gpu, random_items, sizes, small, POISON};
use warpwork::abi::select::family_tile_items;
use warpwork::partition::state_len;
use warpwork::{DeviceRead, Error, Gpu};
use warpwork_cpu_reference::{family as cpu, inputs};

/// `n` items in runs of 1 to `2·mean − 1` copies of random values (a run may repeat the value
/// before it, which merges the two).
fn runs<T: bytemuck::Pod>(n: usize, mean: usize, seed: u64) -> Vec<T> {
    let values: Vec<T> = random_items(n, seed);
    let lengths = inputs::uniform_range(n, seed ^ 0x5eed, 1, (2 * mean).max(2) as u32);
    let mut out = Vec::with_capacity(n);
    let mut r = 0;
    while out.len() < n {
        let len = (lengths[r] as usize).min(n - out.len());
        out.extend(std::iter::repeat_n(values[r], len));
        r += 1;
    }
    out
}

/// One unique into a poisoned output as long as the input, checked against the CPU.
fn check<T: bytemuck::Pod + Send + Sync>(gpu: &Gpu, items: &[T], what: &str) {
    let d = gpu.upload(items).unwrap();
    check_on(gpu, &d, &cpu::unique(items), what);
}

fn check_on<T: bytemuck::Pod>(gpu: &Gpu, d: &impl DeviceRead<T>, expected: &[T], what: &str) {
    let mut out = gpu.filled::<T>(d.len(), POISON).unwrap();
    let mut state = gpu.filled::<u64>(state_len::<T>(d.len()), POISON).unwrap();
    gpu.unique_into(d, &mut out, &mut state).unwrap_or_else(|e| panic!("{what}: {e}"));
    let count = gpu.select_count(&out, &state).unwrap();
    assert_eq!(count, expected.len(), "{what}: count");
    let got = gpu.download(&out).unwrap();
    let bytes = |v: &[T]| bytemuck::cast_slice::<T, u8>(v).to_vec();
    assert!(bytes(&got[..count]) == bytes(expected), "{what}: items or their order differ");
    assert!(bytes(&got[count..]).iter().all(|&b| b == POISON), "{what}: wrote past the count");
}

fn suite<T: bytemuck::Pod + Send + Sync>(seed: u64, largest: usize) {
    let gpu = gpu();
    let name = std::any::type_name::<T>();
    for n in sizes(largest) {
        for mean in [1, 4, 64] {
            check(&gpu, &runs::<T>(n, mean, seed ^ n as u64 ^ mean as u64), &format!("{name} runs of ~{mean}, n={n}"));
        }
        // All distinct (random 4-byte and wider items almost surely are), all equal.
        check(&gpu, &random_items::<T>(n, seed + n as u64), &format!("{name} random, n={n}"));
        check(&gpu, &vec![random_items::<T>(1, seed)[0]; n], &format!("{name} all equal, n={n}"));
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn unique_every_size_and_run_length() {
    suite::<u32>(1, 1 << 24);
    suite::<u8>(2, 1 << 22);
    suite::<u16>(3, 1 << 22);
    suite::<u64>(4, 1 << 22);
    suite::<[u32; 4]>(5, 1 << 20);
    suite::<[u8; 2]>(6, 1 << 20);
    suite::<f32>(7, 1 << 20);
}

/// All distinct by construction; floats by their bytes.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn unique_distinct_and_float_bytes() {
    let gpu = gpu();
    let distinct: Vec<u32> = (0..100_003).collect();
    check(&gpu, &distinct, "u32 distinct");
    let bytes: Vec<u8> = (0..70_001u32).map(|i| i as u8).collect();
    check(&gpu, &bytes, "u8 cycling");
    let floats = [0.0f32, -0.0, -0.0, f32::NAN, f32::NAN, 1.0, 1.0];
    check(&gpu, &floats, "f32: -0.0 differs from 0.0, equal NaNs merge");
    assert_eq!(cpu::unique(&floats).len(), 4);
}

/// Runs exactly a tile long, and runs longer than a tile (the item before a tile's first is
/// read from global memory), at each tile class's size, for every item size.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn unique_runs_across_tiles() {
    fn at<T: bytemuck::Pod + Send + Sync>(gpu: &Gpu, n: usize) {
        let tile = family_tile_items(std::mem::size_of::<T>(), n as u64) as usize;
        let values: Vec<T> = random_items(n / tile + 8, 77 + n as u64);
        for len in [tile, tile - 1, tile + 1, 3 * tile + 5, 32, 33] {
            let items: Vec<T> = (0..n).map(|i| values[(i / len) % values.len()]).collect();
            check(gpu, &items, &format!("{} runs of {len} (tile {tile}), n={n}", std::any::type_name::<T>()));
        }
    }
    let gpu = gpu();
    for n in [100_000usize, 3 << 20, 9 << 20].into_iter().filter(|&n| !small() || n < 1 << 18) {
        at::<u8>(&gpu, n);
        at::<u16>(&gpu, n);
        at::<u32>(&gpu, n);
        at::<u64>(&gpu, n);
        at::<[u32; 4]>(&gpu, n);
    }
}

/// A too-small output: the count is reported as an overflow and nothing is written past the
/// output; bad calls are refused before any launch; the next call works.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn small_outputs_and_misuse() {
    let gpu = gpu();
    let items = runs::<u32>(50_000, 4, 9);
    let want = cpu::unique(&items);
    let d = gpu.upload(&items).unwrap();
    let room = want.len() / 2;
    let mut buf = gpu.filled::<u32>(room + 64, POISON).unwrap();
    let mut state = gpu.zeros::<u64>(state_len::<u32>(items.len())).unwrap();
    {
        let mut out = buf.slice_mut(0..room);
        gpu.unique_into(&d, &mut out, &mut state).unwrap();
        let r = gpu.select_count(&out, &state);
        assert!(matches!(r, Err(Error::CapacityExceeded { .. })), "{r:?}");
    }
    let got = gpu.download(&buf).unwrap();
    assert_eq!(got[..room], want[..room], "the items that fit");
    assert!(got[room..].iter().all(|&v| v == u32::from_ne_bytes([POISON; 4])), "nothing past the output");
    // A state too small, items of a size without kernels, misaligned items: refused.
    let mut tiny = gpu.zeros::<u64>(2).unwrap();
    let mut out = gpu.zeros::<u32>(items.len()).unwrap();
    assert!(matches!(gpu.unique_into(&d, &mut out, &mut tiny), Err(Error::BufferTooSmall { .. })));
    let odd = gpu.upload(&[[1u8, 2, 3]; 5]).unwrap();
    let mut odd_out = gpu.zeros::<[u8; 3]>(5).unwrap();
    assert!(matches!(gpu.unique_into(&odd, &mut odd_out, &mut state), Err(Error::InvalidInput(_))));
    let bytes = gpu.upload(&[7u8; 64]).unwrap();
    // SAFETY: 8 four-byte items inside `bytes`, one byte in: readable, and only read.
    let shifted =
        unsafe { warpwork::RawSlice::<[u8; 4]>::from_raw_parts(gpu.device_address(&bytes).unwrap() + 1, 8).unwrap() };
    let mut quads = gpu.zeros::<[u8; 4]>(8).unwrap();
    let r = gpu.unique_into(&shifted, &mut quads, &mut state);
    assert!(matches!(r, Err(Error::Misaligned { .. })), "{r:?}");
    // The next call works.
    check_on(&gpu, &d, &want, "after misuse");
}

/// Unique by key: keys of every size in runs, values of every size, against the CPU; poisoned
/// outputs; a too-small output reported with nothing written past it; misuse refused.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn unique_by_key_every_size() {
    fn case<K: bytemuck::Pod + Send + Sync, V: bytemuck::Pod + Send + Sync>(gpu: &Gpu, n: usize, mean: usize) {
        let keys = runs::<K>(n, mean, 31 + n as u64);
        let values: Vec<V> = random_items(n, 32 + n as u64);
        let (want_keys, want_values) = cpu::unique_by_key(&keys, &values);
        let (dk, dv) = (gpu.upload(&keys).unwrap(), gpu.upload(&values).unwrap());
        let mut k = gpu.filled::<K>(n, POISON).unwrap();
        let mut v = gpu.filled::<V>(n, POISON).unwrap();
        let mut state = gpu.filled::<u64>(warpwork::run_length::state_len::<K>(n, n), POISON).unwrap();
        let what = format!("{} → {} n={n} mean={mean}", std::any::type_name::<K>(), std::any::type_name::<V>());
        gpu.unique_by_key_into(&dk, &dv, &mut k, &mut v, &mut state).unwrap_or_else(|e| panic!("{what}: {e}"));
        let count = gpu.select_count(&k, &state).unwrap();
        assert_eq!(count, want_keys.len(), "{what}: count");
        let (gk, gv) = (gpu.download(&k).unwrap(), gpu.download(&v).unwrap());
        let kb = |x: &[K]| bytemuck::cast_slice::<K, u8>(x).to_vec();
        let vb = |x: &[V]| bytemuck::cast_slice::<V, u8>(x).to_vec();
        assert!(kb(&gk[..count]) == kb(&want_keys) && vb(&gv[..count]) == vb(&want_values), "{what}: pairs differ");
        assert!(kb(&gk[count..]).iter().chain(&vb(&gv[count..])).all(|&b| b == POISON), "{what}: past the count");
    }
    let gpu = gpu();
    for n in sizes(1 << 20) {
        for mean in [1, 4, 64] {
            case::<u32, u32>(&gpu, n, mean);
        }
        case::<u8, u64>(&gpu, n, 4);
        case::<u16, [u32; 4]>(&gpu, n, 4);
        case::<u64, u8>(&gpu, n, 4);
        case::<[u32; 4], u16>(&gpu, n, 4);
        case::<f32, [u16; 4]>(&gpu, n, 4);
        case::<u32, [u32; 4]>(&gpu, n, 4);
    }
    // Too small: the pairs that fit, nothing past them, the overflow reported.
    let keys = runs::<u32>(20_000, 4, 5);
    let values: Vec<u32> = (0..20_000).collect();
    let (want_keys, want_values) = cpu::unique_by_key(&keys, &values);
    let (dk, dv) = (gpu.upload(&keys).unwrap(), gpu.upload(&values).unwrap());
    let room = want_keys.len() / 3;
    let (mut kbuf, mut vbuf) =
        (gpu.filled::<u32>(room + 8, POISON).unwrap(), gpu.filled::<u32>(room + 8, POISON).unwrap());
    let mut state = gpu.zeros::<u64>(warpwork::run_length::state_len::<u32>(keys.len(), room)).unwrap();
    {
        let (mut k, mut v) = (kbuf.slice_mut(0..room), vbuf.slice_mut(0..room));
        gpu.unique_by_key_into(&dk, &dv, &mut k, &mut v, &mut state).unwrap();
        assert!(matches!(gpu.select_count(&k, &state), Err(Error::CapacityExceeded { .. })));
    }
    let (gk, gv) = (gpu.download(&kbuf).unwrap(), gpu.download(&vbuf).unwrap());
    let poison = u32::from_ne_bytes([POISON; 4]);
    assert_eq!((&gk[..room], &gv[..room]), (&want_keys[..room], &want_values[..room]));
    assert!(gk[room..].iter().chain(&gv[room..]).all(|&x| x == poison), "past the outputs");
    // Misuse: values of another length, of a size without kernels; the next call works.
    let short = gpu.upload(&values[..10]).unwrap();
    let (mut k, mut v) = (gpu.zeros::<u32>(keys.len()).unwrap(), gpu.zeros::<u32>(keys.len()).unwrap());
    let mut state = gpu.zeros::<u64>(warpwork::run_length::state_len::<u32>(keys.len(), keys.len())).unwrap();
    let r = gpu.unique_by_key_into(&dk, &short, &mut k, &mut v, &mut state);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    let odd = gpu.upload(&vec![[0u8; 3]; keys.len()]).unwrap();
    let mut odd_out = gpu.zeros::<[u8; 3]>(keys.len()).unwrap();
    let r = gpu.unique_by_key_into(&dk, &odd, &mut k, &mut odd_out, &mut state);
    assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
    gpu.unique_by_key_into(&dk, &dv, &mut k, &mut v, &mut state).unwrap();
    assert_eq!(gpu.select_count(&k, &state).unwrap(), want_keys.len());
    assert_eq!(gpu.download_prefix(&v, want_keys.len()).unwrap(), want_values);
}

/// Unique by key where runs of keys cross tiles: one run of the whole input, 2^20 + 3 equal keys
/// then short runs, runs of the kernels' tile length and one more or less, keys all different,
/// odd sizes; each pair's value is its index, so a wrong gather shows which pair it took.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn unique_by_key_runs_across_tiles() {
    fn check_pairs<K: bytemuck::Pod + Send + Sync>(gpu: &Gpu, keys: &[K], what: &str) {
        let n = keys.len();
        let values: Vec<u64> = (0..n as u64).collect();
        let (want_keys, want_values) = cpu::unique_by_key(keys, &values);
        let (dk, dv) = (gpu.upload(keys).unwrap(), gpu.upload(&values).unwrap());
        let (mut k, mut v) = (gpu.filled::<K>(n, POISON).unwrap(), gpu.filled::<u64>(n, POISON).unwrap());
        let mut state = gpu.filled::<u64>(warpwork::run_length::state_len::<K>(n, n), POISON).unwrap();
        gpu.unique_by_key_into(&dk, &dv, &mut k, &mut v, &mut state).unwrap_or_else(|e| panic!("{what}: {e}"));
        let count = gpu.select_count(&k, &state).unwrap();
        assert_eq!(count, want_keys.len(), "{what}: count");
        let (gk, gv) = (gpu.download(&k).unwrap(), gpu.download(&v).unwrap());
        let kb = |x: &[K]| bytemuck::cast_slice::<K, u8>(x).to_vec();
        assert!(kb(&gk[..count]) == kb(&want_keys), "{what}: keys differ");
        assert_eq!(gv[..count], want_values[..], "{what}: values");
        let poison = u64::from_ne_bytes([POISON; 8]);
        assert!(kb(&gk[count..]).iter().all(|&b| b == POISON) && gv[count..].iter().all(|&x| x == poison), "{what}");
    }
    fn at<K: bytemuck::Pod + Send + Sync>(gpu: &Gpu, n: usize) {
        let name = std::any::type_name::<K>();
        let keys: Vec<K> = random_items(n + 8, 91 + n as u64);
        check_pairs(gpu, &vec![keys[0]; n], &format!("{name} one run, n={n}"));
        let tile = warpwork::abi::select::family_tile_items(std::mem::size_of::<K>(), n as u64) as usize;
        for len in [tile - 1, tile, tile + 1, 1] {
            let run: Vec<K> = (0..n).map(|i| keys[i / len]).collect();
            check_pairs(gpu, &run, &format!("{name} runs of {len} (tile {tile}), n={n}"));
        }
    }
    let gpu = gpu();
    // (Past 32 MiB of `u32` keys: the large tiles.)
    let big = if small() { 1 << 17 } else { 9 << 20 };
    for n in [0usize, 1, 2, 31, 33, 4095, 4097, 65_537, big] {
        at::<u8>(&gpu, n);
        at::<u32>(&gpu, n);
        at::<[u32; 4]>(&gpu, n);
    }
    let head = if small() { (1usize << 17) + 3 } else { (1 << 20) + 3 };
    let mut keys = vec![5u32; head];
    keys.extend(runs::<u32>(head, 4, 17).iter().map(|&v| v | 1 << 31));
    check_pairs(&gpu, &keys, "2^20 + 3 equal keys, then short runs");
}
