//! Stress: 1000 runs each of the exclusive scan (u32), the ordered select and the
//! S2.5f expansion (`Strategy::ScanFused`), at sizes from one item to several full waves of the
//! GPU, with inputs, seeds and sizes varied from run to run, every result checked against the
//! CPU reference and every output poisoned so that a missing or stray write shows.
//!
//! Host time stays bounded: an input is generated (and its CPU answer computed) once per
//! [`RUNS_PER_INPUT`] runs, and each run takes a prefix of it, whose answer is a prefix of the
//! whole one (a scan, an ordered selection, a canonical expansion all are).
//!
//! `WARPWORK_SMALL=1` (the GPU suite sets it under compute-sanitizer) cuts this to 20 runs each on
//! inputs of at most 2^18 items.

mod common;

use common::{gpu, small, POISON};

use warpwork::expand::{Dispatch, Strategy};
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::Gpu;
use warpwork_cpu_reference::{expand as cpu, inputs, select as cpu_select};

/// Runs sharing one generated input.
const RUNS_PER_INPUT: usize = 10;
const POISON_WORD: u32 = 0xABAB_ABAB;

fn runs() -> usize {
    if small() {
        20
    } else {
        1000
    }
}

/// Items in one full wave of 4096-item tiles: every SM running 8 blocks of 256 threads (a full
/// SM) with 16 items per thread, about 4.3 million on an H100. Tile sizes differ per kernel;
/// this is the scale, and the sizes below reach several of it.
fn wave(gpu: &Gpu) -> usize {
    gpu.info().sm_count as usize * 8 * 4096
}

/// The largest input of a run: six waves (2^18 items with `WARPWORK_SMALL`).
fn max_items(gpu: &Gpu) -> usize {
    if small() {
        1 << 18
    } else {
        6 * wave(gpu)
    }
}

/// splitmix64: the runs' sizes and seeds, reproducible from the run number.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    /// A size in `1..=max` for run `run`, cycling through four kinds: spread over one to `max`
    /// waves (the multi-wave case), log-uniform (many small and mid sizes), next to a multiple of
    /// 1024 (the tiles' ends), and uniform.
    fn size(&mut self, run: usize, max: usize, wave: usize) -> usize {
        let n = match run % 4 {
            0 => self.range(wave.min(max / 2), max),
            1 => {
                let bits = self.range(0, (usize::BITS - max.leading_zeros()) as usize);
                self.range(1, (1usize << bits).min(max))
            }
            2 if max >= 1024 => (self.range(1, max / 1024) * 1024 + self.range(0, 2)).saturating_sub(1),
            _ => self.range(1, max),
        };
        n.clamp(1, max)
    }
}

/// The index of the first difference between `got` and `want`, for failure messages.
fn first_difference<T: PartialEq>(got: &[T], want: &[T]) -> Option<usize> {
    got.iter().zip(want).position(|(g, w)| g != w).or((got.len() != want.len()).then_some(got.len().min(want.len())))
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scan_u32_stress() {
    let gpu = gpu();
    let (max, wave) = (max_items(&gpu), wave(&gpu));
    let mut rng = Rng(0x5CA9);
    let (mut input, mut want) = (Vec::new(), Vec::new());
    for run in 0..runs() {
        if run % RUNS_PER_INPUT == 0 {
            let seed = rng.next();
            input = match (run / RUNS_PER_INPUT) % 3 {
                0 => inputs::uniform_u32(max, seed), // sums wrap
                1 => inputs::uniform_range(max, seed, 0, 1000),
                _ => inputs::power_law(max, seed, 1.2, 1 << 16),
            };
            want = cpu::exclusive_scan_u32(&input);
        }
        let n = rng.size(run, max, wave);
        let d = gpu.upload(&input[..n]).unwrap();
        // One poisoned element past n checks that nothing is written there.
        let mut out = gpu.filled::<u32>(n + 1, POISON).unwrap();
        gpu.exclusive_scan(&d, &mut out).unwrap();
        let got = gpu.download(&out).unwrap();
        if let Some(at) = first_difference(&got[..n], &want[..n]) {
            panic!("scan run {run}, n = {n}: element {at} is {}, the CPU's {}", got[at], want[at]);
        }
        assert_eq!(got[n], POISON_WORD, "scan run {run}, n = {n}: wrote past the end");
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn ordered_select_stress() {
    let gpu = gpu();
    let (max, wave) = (max_items(&gpu), wave(&gpu));
    let mut rng = Rng(0x5E1E);
    let rates = [0.0, 0.01, 0.5, 0.99, 1.0];
    let (mut items, mut flags, mut kept) = (Vec::new(), Vec::new(), Vec::new());
    // kept_before[i]: items kept among the first i (the count a prefix of i items must give).
    let mut kept_before: Vec<u32> = Vec::new();
    let mut predicate = Predicate::Less(0);
    let mut flagged = false;
    for run in 0..runs() {
        let group = run / RUNS_PER_INPUT;
        if run % RUNS_PER_INPUT == 0 {
            let seed = rng.next();
            items = inputs::uniform_u32(max, seed);
            let rate = rates[group % rates.len()];
            // Odd groups keep by flags, even ones by the predicate: with five rates, every ten
            // groups cover each rate both ways.
            flagged = group % 2 == 1;
            predicate = Predicate::Less((rate * 2f64.powi(32)).min(u32::MAX as f64) as u32);
            if rate >= 1.0 {
                predicate = Predicate::GreaterEqual(0);
            }
            let keeps: Vec<bool> = if flagged {
                flags = inputs::flags(max, seed ^ 1, rate);
                flags.iter().map(|&f| f != 0).collect()
            } else {
                items.iter().map(|&v| predicate.test(v)).collect()
            };
            kept = if flagged {
                cpu_select::select_flagged(&items, &flags)
            } else {
                cpu_select::select_if(&items, |v| predicate.test(v))
            };
            kept_before = std::iter::once(0)
                .chain(keeps.iter().scan(0u32, |k, &keep| {
                    *k += keep as u32;
                    Some(*k)
                }))
                .collect();
        }
        let n = rng.size(run, max, wave);
        let count_wanted = kept_before[n] as usize;
        let d_items = gpu.upload(&items[..n]).unwrap();
        let d_flags = if flagged { Some(gpu.upload(&flags[..n]).unwrap()) } else { None };
        let keep = match d_flags.as_ref() {
            Some(f) => Keep::Flagged(f),
            None => Keep::If(predicate),
        };
        let mut out = gpu.filled::<u32>(n + 64, POISON).unwrap();
        let mut counter = gpu.zeros::<u64>(state_len::<u32>(Variant::Ordered, n)).unwrap();
        gpu.select_into(&d_items, keep, Variant::Ordered, &mut out, &mut counter).unwrap();
        let what = format!("ordered select run {run}, n = {n}, {}", if flagged { "flagged" } else { "predicate" });
        let count = gpu.select_count(&out, &counter).unwrap();
        assert_eq!(count, count_wanted, "{what}: count");
        let got = gpu.download_prefix(&out, count + 64).unwrap();
        if let Some(at) = first_difference(&got[..count], &kept[..count]) {
            panic!("{what}: kept item {at} is {}, the CPU's {}", got[at], kept[at]);
        }
        assert!(got[count..].iter().all(|&w| w == POISON_WORD), "{what}: wrote past the count");
    }
}

/// The counts of input group `group`: the bench's distributions, and the culling-like one where
/// most sources spawn nothing.
fn counts(group: usize, p1: usize, seed: u64) -> (&'static str, Vec<u32>) {
    match group % 5 {
        0 => ("uniform[0,64)", inputs::uniform_range(p1, seed, 0, 64)),
        1 => ("power-law", inputs::power_law(p1, seed, 1.2, 1 << 16)),
        2 => ("small N<=4", inputs::uniform_range(p1, seed, 0, 5)),
        3 => {
            // Nine sources in ten culled to zero, the survivors uniform in [1, 64).
            let keep = inputs::flags(p1, seed ^ 1, 0.1);
            let n = inputs::uniform_range(p1, seed, 1, 64);
            ("culled 90%", keep.iter().zip(n).map(|(&k, n)| if k != 0 { n } else { 0 }).collect())
        }
        _ => {
            // One source in 1024 spawns 2^12 to 2^15 items, the rest nothing.
            let n = inputs::uniform_range(p1, seed, 1 << 12, 1 << 15);
            ("few huge", n.iter().enumerate().map(|(i, &n)| if i % 1024 == 511 { n } else { 0 }).collect())
        }
    }
}

#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn scan_fused_expand_stress() {
    let gpu = gpu();
    let (max_sources, wave) = (max_items(&gpu), wave(&gpu));
    // Destination items per input: about eight waves of pass-2 tiles.
    let max_pairs: u64 = if small() { 1 << 18 } else { 1 << 25 };
    let mut rng = Rng(0xE2F5);
    let slack = 16;
    let mut counts_all: Vec<u32> = Vec::new();
    // offsets[i]: destination items of the first i sources.
    let mut offsets: Vec<u64> = Vec::new();
    let mut dist = "";
    let mut expander = None;
    for run in 0..runs() {
        let group = run / RUNS_PER_INPUT;
        if run % RUNS_PER_INPUT == 0 {
            let seed = rng.next();
            // Sized so that the whole input spawns about `max_pairs` items at most.
            let (_, probe) = counts(group, 1 << 16, seed);
            let mean = (cpu::total(&probe) as f64 / probe.len() as f64).max(1.0);
            let p1 = ((max_pairs as f64 / mean) as usize).clamp(1, max_sources);
            (dist, counts_all) = counts(group, p1, seed);
            offsets = std::iter::once(0)
                .chain(counts_all.iter().scan(0u64, |t, &c| {
                    *t += c as u64;
                    Some(*t)
                }))
                .collect();
            // One expander for the group's runs (its state is reused from run to run, as in an
            // application), sized for the whole input.
            let capacity = offsets[p1] as usize + slack;
            expander = Some(gpu.expander(Strategy::ScanFused, p1, capacity).unwrap());
        }
        let e = expander.as_mut().unwrap();
        let p1 = rng.size(run, counts_all.len(), wave);
        let total = offsets[p1] as usize;
        let counts = &counts_all[..p1];
        let what = format!("S2.5f run {run}, {dist}, P1 = {p1}, P2 = {total}");
        let d = gpu.upload(counts).unwrap();
        let capacity = *offsets.last().unwrap() as usize + slack;
        let mut out = gpu.filled::<[u32; 2]>(capacity, POISON).unwrap();
        // Every other run both passes in one call: one launch up to 2^18 sources.
        let planned = if run % 2 == 0 {
            e.expand(&gpu, &d, &mut out).unwrap()
        } else {
            let mut p = e.pass1(&gpu, &d).unwrap();
            p.pass2(&gpu, &mut out, Dispatch::Persistent).unwrap();
            p
        };
        assert_eq!(planned.count(&gpu).unwrap_or_else(|err| panic!("{what}: {err}")), total, "{what}: count");
        let got = gpu.download_prefix(&out, total + slack).unwrap();
        let mut at = 0usize;
        for (s, &c) in counts.iter().enumerate() {
            for l in 0..c {
                if got[at] != [s as u32, l] {
                    panic!("{what}: pair {at} is {:?}, expected {:?}", got[at], [s as u32, l]);
                }
                at += 1;
            }
        }
        assert!(got[total..].iter().all(|&p| p == [POISON_WORD; 2]), "{what}: wrote past the count");
    }
}
/// The run sizes (no GPU needed): always in `1..=max`, and a good share of them several waves.
#[test]
fn run_sizes_stay_in_range_and_span_waves() {
    let wave = 132 * 8 * 4096;
    for max in [1, 2, 1000, 1 << 18, 6 * wave] {
        let mut rng = Rng(max as u64);
        let sizes: Vec<usize> = (0..4000).map(|run| rng.size(run, max, wave)).collect();
        assert!(sizes.iter().all(|&n| (1..=max).contains(&n)), "max {max}: {sizes:?}");
        if max == 6 * wave {
            assert!(sizes.iter().filter(|&&n| n > 2 * wave).count() > 1000, "too few multi-wave sizes");
            assert!(sizes.iter().filter(|&&n| n < 4096).count() > 100, "too few sizes under a tile");
        }
    }
    assert_eq!(first_difference(&[1, 2, 3], &[1, 2, 3]), None);
    assert_eq!(first_difference(&[1, 2, 4], &[1, 2, 3]), Some(2));
    assert_eq!(first_difference(&[1, 2], &[1, 2, 3]), Some(2));
}
