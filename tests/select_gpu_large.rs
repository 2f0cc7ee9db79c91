//! Select past 2^32: an input of 2^32 + 7 items whose kept count passes 2^32 in one launch, and
//! a counter preset just below 2^32 (a 32-bit slot would wrap to 0 and overwrite the existing
//! items). Needs a GPU with about 10 GB of memory (`--include-ignored`); skipped under
//! `WARPWORK_SMALL`. Host memory stays bounded: inputs come from a cheap formula, uploaded and
//! checked in chunks of 64 MiB.

mod select_support;

use bytemuck::Pod;
use select_support::{gpu, small, POISON};
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::{Gpu, RawSliceMut};
use warpwork_cpu_reference::select as cpu;

const CHUNK: usize = 1 << 26;
const N: usize = (1 << 32) + 7;
/// Items that are zero (dropped by `NonZero`): one early, one in the middle, one past 2^32.
const ZEROS: [usize; 3] = [5, 1 << 31, (1 << 32) + 1];
/// The last items are 255, a value no other item has, so that their being kept (or read from
/// a wrapped index) shows in the histogram.
const MARKED_FROM: usize = N - 10;

/// Item `i` of the large input: 0 at [`ZEROS`], else 255 from [`MARKED_FROM`] on, else
/// 1..=254 from a hash of `i`.
fn item(i: usize) -> u8 {
    if ZEROS.contains(&i) {
        return 0;
    }
    if i >= MARKED_FROM {
        return 255;
    }
    let mut x = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    1 + ((x >> 32) % 254) as u8
}

fn skip(what: &str) -> bool {
    if small() {
        eprintln!("{what}: skipped under WARPWORK_SMALL (needs inputs past 2^32 items)");
    }
    small()
}

/// Calls `f(offset, chunk)` on `buf` in downloaded chunks of [`CHUNK`] elements.
fn for_chunks<T: Pod>(gpu: &Gpu, buf: &warpwork::cudarc::driver::CudaSlice<T>, mut f: impl FnMut(usize, &[T])) {
    let len = warpwork::cudarc::driver::DeviceSlice::len(buf);
    for start in (0..len).step_by(CHUNK) {
        let end = (start + CHUNK).min(len);
        f(start, &gpu.download(&buf.slice(start..end)).unwrap());
    }
}

/// 2^32 + 7 `u8` items, `NonZero`: 2^32 + 4 kept, so the count, the unordered variants' slots
/// and the ordered variant's look-back prefixes all pass 2^32. Every variant; the whole output
/// is checked: the kept items' histogram (the exact multiset of `u8`s), nothing past the count,
/// and for `Ordered` every item in order.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn past_2_pow_32_items_every_variant() {
    if skip("past_2_pow_32_items_every_variant") {
        return;
    }
    let gpu = gpu();
    let mut d_items = gpu.zeros::<u8>(N).unwrap();
    let mut histogram = [0u64; 256];
    let mut chunk = Vec::with_capacity(CHUNK);
    for start in (0..N).step_by(CHUNK) {
        let end = (start + CHUNK).min(N);
        chunk.clear();
        chunk.extend((start..end).map(item));
        for &v in &chunk {
            histogram[v as usize] += 1;
        }
        gpu.upload_into(&chunk, &mut d_items.slice_mut(start..end)).unwrap();
    }
    assert_eq!(histogram[0], ZEROS.len() as u64);
    histogram[0] = 0;
    let kept = N - ZEROS.len();
    assert!(kept > 1 << 32);
    let mut out = gpu.zeros::<u8>(kept + 4096).unwrap();
    for variant in Variant::ALL {
        gpu.fill_bytes(&mut out, POISON).unwrap();
        let mut state = gpu.zeros::<u64>(state_len::<u8>(variant, N)).unwrap();
        gpu.select_into(&d_items, Keep::If(Predicate::NonZero), variant, &mut out, &mut state).unwrap();
        assert_eq!(gpu.select_count(&out, &state).unwrap(), kept, "{}", variant.name());
        let mut got = [0u64; 256];
        let mut expected = (0..N).map(item).filter(|&v| v != 0);
        let mut in_order = true;
        for_chunks(&gpu, &out, |start, c| {
            let inside = kept.saturating_sub(start).min(c.len());
            for &v in &c[..inside] {
                got[v as usize] += 1;
            }
            assert!(c[inside..].iter().all(|&b| b == POISON), "{}: wrote past the count", variant.name());
            if variant == Variant::Ordered {
                in_order &= c[..inside].iter().all(|&v| expected.next() == Some(v));
            }
        });
        assert_eq!(got, histogram, "{}: kept items", variant.name());
        assert!(in_order, "ordered: items or their order differ");
    }
}

/// `select_append_into` with the count preset to the number of items already in `out`,
/// just below 2^32 (2^32 − 5), and an output longer than 2^32: the kept items land at slots
/// 2^32 − 5 .. past 2^32 (not wrapped to 0), every other element is untouched, and the count
/// reads back as 2^32 − 5 + kept. Every variant, through the typed `u8` kernels and through
/// the generic path (2-byte items at odd addresses).
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn counter_preset_near_2_pow_32() {
    if skip("counter_preset_near_2_pow_32") {
        return;
    }
    let gpu = gpu();
    let bytes: Vec<u8> = select_support::random_items(2002, 7);
    let items: Vec<u8> = bytes[..1000].to_vec();
    let p = Predicate::Less(230u8);
    preset_suite(&gpu, &items, Keep::If(p), &cpu::select_if(&items, |v| p.test(v)), 0);
    // The generic path: [u8; 2] items, output at byte 1 of its buffer.
    let pairs: Vec<[u8; 2]> = bytemuck::cast_slice(&bytes[..2000]).to_vec();
    let flags: Vec<u8> = pairs.iter().map(|p| (p[0] < 230) as u8).collect();
    let d_flags = gpu.upload(&flags).unwrap();
    preset_suite(&gpu, &pairs, Keep::Flagged(&d_flags), &cpu::select_flagged(&pairs, &flags), 1);
}

/// One preset run per variant of `items` into a poisoned byte buffer of 2^32 + 2^16 items of
/// `T` (at byte `offset` of it).
fn preset_suite<T: Pod>(gpu: &Gpu, items: &[T], keep: Keep<'_, T>, expected: &[T], offset: usize) {
    let size = std::mem::size_of::<T>();
    let preset: u64 = (1 << 32) - 5;
    let len = (1usize << 32) + (1 << 16);
    let d_items = gpu.upload(items).unwrap();
    let mut d_out = gpu.zeros::<u8>(offset + len * size).unwrap();
    let (first, end) = (offset + preset as usize * size, offset + (preset as usize + expected.len()) * size);
    for variant in Variant::ALL {
        gpu.fill_bytes(&mut d_out, POISON).unwrap();
        let mut state = gpu.zeros::<u64>(state_len::<T>(variant, items.len())).unwrap();
        gpu.upload_into(&[preset], &mut state.slice_mut(0..1)).unwrap();
        let out_addr = gpu.device_address(&d_out).unwrap() + offset as u64;
        // SAFETY: `d_out` holds `offset + len·size` bytes and outlives `out`, which nothing
        // else touches until `select_count` has waited for the stream; for `offset` 1 the
        // items are `[u8; 2]` (alignment 1).
        let mut out = unsafe { RawSliceMut::<T>::from_raw_parts(out_addr, len).unwrap() };
        gpu.select_append_into(&d_items, keep, variant, &mut out, &mut state).unwrap();
        let count = gpu.select_count(&out, &state).unwrap();
        assert_eq!(count as u64, preset + expected.len() as u64, "{}: count", variant.name());
        let window = gpu.download(&d_out.slice(first..end)).unwrap();
        let kept: Vec<T> = window.chunks(size).map(bytemuck::pod_read_unaligned).collect();
        if variant == Variant::Ordered {
            assert!(bytemuck::cast_slice::<T, u8>(&kept) == bytemuck::cast_slice::<T, u8>(expected), "ordered");
        } else {
            assert!(select_support::same_multiset(&kept, expected), "{}", variant.name());
        }
        for_chunks(gpu, &d_out, |start, c| {
            // The chunk's bytes before and after the window of kept items.
            let (lo, hi) = (first.clamp(start, start + c.len()) - start, end.clamp(start, start + c.len()) - start);
            let untouched = c[..lo].iter().chain(&c[hi..]).all(|&b| b == POISON);
            assert!(untouched, "{}: wrote outside slots {preset}.. (chunk at byte {start})", variant.name());
        });
    }
}

/// The large input's formula (no GPU): its zeros, its marks across 2^32, and hashed values that
/// are neither.
#[test]
fn the_large_input_is_as_described() {
    assert!(ZEROS.iter().all(|&i| item(i) == 0));
    let marked: Vec<usize> = (MARKED_FROM..N).filter(|&i| item(i) == 255).collect();
    assert_eq!(marked.len(), 9, "ten marks less the zero at 2^32 + 1");
    assert!(marked[0] < 1 << 32 && *marked.last().unwrap() == N - 1);
    let mut seen = [false; 256];
    for i in (0..MARKED_FROM).step_by(4093).filter(|i| !ZEROS.contains(i)) {
        seen[item(i) as usize] = true;
    }
    assert!(!seen[0] && !seen[255] && seen[1..255].iter().all(|&s| s), "hashed values cover 1..=254 only");
}
