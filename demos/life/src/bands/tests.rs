use super::source::{band_board, Source};
use super::*;
use crate::{cpu, Error};

fn invalid(r: Result<Vec<Range<usize>>>, needle: &str) {
    match r {
        Err(Error::InvalidInput(m)) => assert!(m.contains(needle), "{m:?} does not say {needle:?}"),
        other => panic!("expected InvalidInput mentioning {needle:?}, got {other:?}"),
    }
}

#[test]
fn even_split_gives_the_first_ranks_the_remainder() {
    let p = Bands::new(Kernel::Naive1d64);
    assert_eq!(p.split(3, 10, 3).unwrap(), [0..4, 4..7, 7..10]);
    assert_eq!(p.split(3, 1, 1).unwrap(), vec![0..1]);
    assert_eq!(p.split(1, 9, 9).unwrap().len(), 9);
    let t8 = Bands::new(Kernel::Bit64T8);
    assert_eq!(t8.split(64, 17, 2).unwrap(), [0..9, 9..17]);
    assert_eq!(t8.with_halo(16).split(64, 33, 2).unwrap(), [0..17, 17..33]);
}

#[test]
fn given_heights_are_checked() {
    let p = Bands::new(Kernel::Tiled).with_heights(vec![1, 5, 2]);
    assert_eq!(p.split(9, 8, 3).unwrap(), [0..1, 1..6, 6..8]);
    invalid(p.split(9, 9, 3), "do not sum");
    invalid(p.split(9, 8, 2), "3 band heights given for 2 ranks");
    invalid(Bands::new(Kernel::Tiled).with_heights(vec![usize::MAX, 2]).split(9, 8, 2), "do not sum");
    invalid(Bands::new(Kernel::Tiled).with_heights(vec![0, 8]).split(9, 8, 2), "band 0 of 0 rows");
}

#[test]
fn halos_must_fit_the_kernel_and_the_bands() {
    invalid(Bands::new(Kernel::Bit64T8).split(64, 15, 2), "band 1 of 7 rows is shorter than the 8-row halo");
    invalid(Bands::new(Kernel::Bit64T4).with_halo(6).split(64, 64, 2), "multiple of its 4 generations");
    invalid(Bands::new(Kernel::Byte).with_halo(0).split(64, 64, 2), "halo of 0 rows");
    invalid(Bands::new(Kernel::Sparse).with_halo(3).split(64, 64, 2), "sparse runs bands with a halo of 1 row");
    assert!(Bands::new(Kernel::Sparse).split(5, 5, 5).is_ok());
    assert!(Bands::new(Kernel::Byte).with_halo(5).split(7, 10, 2).is_ok());
    invalid(Bands::new(Kernel::Byte).with_halo(usize::MAX).split(7, 10, 2), "");
}

#[test]
fn boards_and_ranks_must_exist_and_fit_the_kernel() {
    invalid(Bands::new(Kernel::Tiled).split(8, 8, 0), "at least one rank");
    invalid(Bands::new(Kernel::Tiled).split(0, 8, 1), "at least 1x1");
    invalid(Bands::new(Kernel::Tiled).split(8, 0, 1), "at least 1x1");
    invalid(Bands::new(Kernel::Bit32).split(48, 8, 1), "multiple of 32");
    // A band's board includes its halos: 65535 block rows of 16 are 1048560 rows in all.
    let tall = 1_048_560;
    assert!(Bands::new(Kernel::Naive2d16x16).split(16, tall - 2, 1).is_ok());
    assert!(matches!(Bands::new(Kernel::Naive2d16x16).split(16, tall - 1, 1), Err(Error::CapacityExceeded { .. })));
    assert!(Bands::new(Kernel::Naive2d16x16).split(16, 2 * tall - 4, 2).is_ok());
}

/// Rows `rows` of a CPU reference board's words.
fn rows_of(g: &cpu::BitGrid, rows: Range<usize>) -> &[u64] {
    let wpr = g.words_per_row();
    &g.words()[rows.start * wpr..rows.end * wpr]
}

/// The exchange as the GPUs make it, on the CPU reference's band boards: each band's first `d`
/// own rows into the bottom halo of the band above, its last `d` into the top halo of the band
/// below (the torus: band 0's upper neighbour is the last).
fn exchange(bands: &mut [cpu::BitGrid], heights: &[usize], d: usize) {
    let n = bands.len();
    let before: Vec<cpu::BitGrid> = bands.to_vec();
    for (r, band) in bands.iter_mut().enumerate() {
        let (up, down) = ((r + n - 1) % n, (r + 1) % n);
        let (h, wpr) = (heights[r], band.words_per_row());
        let mut words = band.words().to_vec();
        words[..d * wpr].copy_from_slice(rows_of(&before[up], heights[up]..heights[up] + d));
        words[(h + d) * wpr..].copy_from_slice(rows_of(&before[down], d..2 * d));
        *band = cpu::BitGrid::from_words(band.width(), h + 2 * d, words).unwrap();
    }
}

/// A band board of `h` own rows and `d`-row halos stepped `e ≤ d` generations through windows
/// of `r` own rows as the GPU does it (see `window.rs`): in a store of `G = min(r, h) + d` rows
/// more, from store row `G` to row 0 when `up`, else from 0 to `G`, each window read from the
/// store and its own rows written to the band's new place before the next window is read.
/// The store's other rows start poisoned; the halos at the new place stay stale (the exchange
/// refreshes them).
fn windowed_step(band: &mut cpu::BitGrid, (h, d, r): (usize, usize, usize), rule: crate::Rule, e: u64, up: bool) {
    let (w, wpr, g) = (band.width(), band.words_per_row(), r.min(h) + d);
    let (from, to) = if up { (g, 0) } else { (0, g) };
    let mut store = vec![u64::MAX; (h + 2 * d + g) * wpr];
    store[from * wpr..(from + h + 2 * d) * wpr].copy_from_slice(band.words());
    let mut order: Vec<Range<usize>> = windows(h, r).collect();
    if !up {
        order.reverse();
    }
    for own in order {
        let height = own.len() + 2 * d;
        let first = (from + own.start) * wpr;
        let input = store[first..first + height * wpr].to_vec();
        let out = cpu::step_with(&cpu::BitGrid::from_words(w, height, input).unwrap(), rule, e);
        let at = (to + d + own.start) * wpr;
        // One launch may read the window and write its rows at once: they must not overlap.
        let (read, write) = (first..first + height * wpr, at..at + own.len() * wpr);
        assert!(write.end <= read.start || read.end <= write.start, "window {own:?} writes rows it reads");
        store[at..at + own.len() * wpr].copy_from_slice(rows_of(&out, d..d + own.len()));
    }
    let words = store[to * wpr..(to + h + 2 * d) * wpr].to_vec();
    *band = cpu::BitGrid::from_words(w, h + 2 * d, words).unwrap();
}

/// The scheme itself, on the CPU reference: every band's board stepped alone as a torus of its
/// own for at most `d` generations (whole, or through windows of at least `d` rows), then the
/// exchange, gives the whole board's cells (uneven bands, the thinnest of `d` rows, blocks cut
/// short, B0 and other rules; windows of the halo's depth, of one row more, dividing the band
/// or not, and taller than the band).
#[test]
fn bands_on_the_cpu_reference_give_the_whole_boards_cells() {
    let rules = ["B3/S23", "B36/S23", "B0/S8", "B0123478/S01234678", "B2/S"];
    let cases: [(usize, usize, Vec<usize>, usize); 6] = [
        (70, 9, vec![9], 1),
        (70, 9, vec![5, 4], 1),
        (65, 30, vec![8, 8, 14], 8),
        (64, 24, vec![12, 12], 12),
        (33, 40, vec![3, 30, 7], 3),
        (128, 50, vec![16, 34], 16),
    ];
    for (w, h, heights, d) in cases {
        for window in [None, Some(d), Some(d + 1), Some(2 * d), Some(h)] {
            for rule in rules {
                let rule: crate::Rule = rule.parse().unwrap();
                let mut plan = Bands::new(Kernel::Byte).with_halo(d).with_heights(heights.clone());
                if let Some(r) = window {
                    plan = plan.with_window(r);
                }
                let rows = plan.split(w, h, heights.len()).unwrap();
                let start = crate::BitGrid::random(w, h, 0.4, 5).unwrap();
                let to_cpu =
                    |g: crate::BitGrid| cpu::BitGrid::from_words(g.width(), g.height(), g.into_words()).unwrap();
                let mut bands: Vec<cpu::BitGrid> = rows
                    .iter()
                    .map(|r| to_cpu(band_board(&Source::Grid(&start), w, h, r.clone(), d).unwrap()))
                    .collect();
                let mut whole = to_cpu(start);
                // Each band kept once starts at the top of its store and moves every round.
                let mut up = false;
                for n in [1u64, 5, 7, 24] {
                    let mut left = n;
                    while left > 0 {
                        let e = left.min(d as u64);
                        for (b, &bh) in bands.iter_mut().zip(&heights) {
                            match window {
                                Some(r) => windowed_step(b, (bh, d, r), rule, e, up),
                                None => *b = cpu::step_with(b, rule, e),
                            }
                        }
                        up = !up;
                        exchange(&mut bands, &heights, d);
                        left -= e;
                    }
                    whole = cpu::step_with(&whole, rule, n);
                    for (r, band) in rows.iter().zip(&bands) {
                        let what = format!(
                            "{w}x{h} bands {heights:?} halo {d} window {window:?} {rule}: rows {r:?} after {n} more"
                        );
                        assert_eq!(rows_of(band, d..d + r.len()), rows_of(&whole, r.clone()), "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn windows_cover_the_band_in_order() {
    let all = |h, r| windows(h, r).collect::<Vec<_>>();
    assert_eq!(all(10, 4), [0..4, 4..8, 8..10]);
    assert_eq!(all(8, 4), [0..4, 4..8]);
    // One window, the whole band.
    assert_eq!(all(8, 8), vec![Range { start: 0, end: 8 }]);
    assert_eq!(all(8, 100), vec![Range { start: 0, end: 8 }]);
    assert_eq!(all(1, 1), vec![Range { start: 0, end: 1 }]);
    assert_eq!(all(7, 3), [0..3, 3..6, 6..7]);
    assert_eq!(all(1 << 19, 4096).len(), 128);
}

#[test]
fn windows_must_hold_the_halo_and_fit_the_kernel() {
    let t8 = Bands::new(Kernel::Bit64T8);
    invalid(t8.clone().with_window(7).split(64, 64, 2), "window of 7 rows is shorter than the 8-row halo");
    invalid(t8.clone().with_window(0).split(64, 64, 2), "window of 0 rows");
    invalid(t8.clone().with_halo(16).with_window(8).split(64, 64, 2), "shorter than the 16-row halo");
    invalid(Bands::new(Kernel::Sparse).with_window(4).split(8, 64, 2), "sparse cannot step a band through windows");
    invalid(Bands::new(Kernel::Tiled).with_halo(usize::MAX / 2 + 1).with_window(usize::MAX).split(8, 8, 1), "overflow");
    // The band's own checks still apply.
    invalid(t8.clone().with_window(8).split(64, 15, 2), "shorter than the 8-row halo");
    invalid(t8.clone().with_window(8).split(100, 64, 2), "multiple of 64");
    // The window of the halo's depth, one that does not divide the band, one taller than it.
    assert_eq!(t8.clone().with_window(8).split(64, 64, 2).unwrap(), [0..32, 32..64]);
    assert_eq!(t8.clone().with_window(9).split(64, 64, 2).unwrap(), [0..32, 32..64]);
    assert_eq!(t8.clone().with_window(1 << 40).split(64, 64, 2).unwrap(), [0..32, 32..64]);
    // 2^20 x 2^20 over two GPUs, 2^19 rows a band.
    let big = Bands::new(Kernel::Bit64T8Flat).with_window(4096);
    assert_eq!(big.split(1 << 20, 1 << 20, 2).unwrap(), [0..1 << 19, 1 << 19..1 << 20]);
    assert_eq!(big.window(), Some(4096));
    assert_eq!(Bands::new(Kernel::Tiled).window(), None);
    // A tall window of a 2D kernel: its launch grid has at most 65535 block rows of 16.
    let tall = 1_048_560;
    assert!(Bands::new(Kernel::Naive2d16x16).with_window(tall - 2).split(16, tall - 2, 1).is_ok());
    assert!(matches!(
        Bands::new(Kernel::Naive2d16x16).with_window(tall).split(16, tall - 1, 1),
        Err(Error::CapacityExceeded { .. })
    ));
}
