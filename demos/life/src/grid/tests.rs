//! Unit tests of `grid` (no GPU needed).

use super::*;

/// A board from rows of `.`/`o`.
fn from_text(rows: &[&str]) -> BitGrid {
    let mut g = BitGrid::new(rows.first().map_or(0, |r| r.len()), rows.len()).unwrap();
    for (y, r) in rows.iter().enumerate() {
        for (x, c) in r.chars().enumerate() {
            g.set(x, y, c == 'o');
        }
    }
    g
}

#[test]
fn paste_matches_cell_by_cell_at_every_offset() {
    for (pw, ph) in [(1, 1), (3, 2), (63, 2), (64, 3), (65, 2), (130, 2)] {
        let pattern = BitGrid::random(pw, ph, 0.5, pw as u64).unwrap();
        for x0 in [0, 1, 7, 63, 64, 65, 100] {
            let mut board = BitGrid::random(300, 5, 0.5, 99).unwrap();
            let mut want = board.clone();
            board.paste(&pattern, x0, 2).unwrap();
            for y in 0..ph {
                for x in 0..pw {
                    want.set(x0 + x, 2 + y, pattern.get(x, y));
                }
            }
            assert_eq!(board, want, "{pw}x{ph} at {x0}");
        }
    }
}

#[test]
fn paste_refuses_what_does_not_fit_without_overflowing() {
    let dot = from_text(&["o"]);
    let mut board = BitGrid::new(8, 8).unwrap();
    for (x, y) in [(8, 0), (0, 8), (usize::MAX, 0), (0, usize::MAX), (usize::MAX, usize::MAX)] {
        assert!(matches!(board.paste(&dot, x, y), Err(Error::InvalidInput(_))), "({x}, {y})");
    }
    let big = BitGrid::new(9, 1).unwrap();
    assert!(board.paste_centred(&big).is_err());
    board.paste_centred(&from_text(&["oo", "oo"])).unwrap();
    assert!(board.get(3, 3) && board.get(4, 4) && board.population() == 4);
}

#[test]
fn fill_run_sets_exactly_the_run() {
    for (x, n) in [(0, 1), (0, 64), (1, 64), (63, 2), (5, 190), (64, 64), (199, 1)] {
        let mut g = BitGrid::new(200, 2).unwrap();
        g.fill_run(x, 1, n);
        let want: Vec<usize> = (x..x + n).collect();
        let got: Vec<usize> = (0..200).filter(|&c| g.get(c, 1)).collect();
        assert_eq!(got, want, "x {x} n {n}");
        assert_eq!(g.population(), n as u64);
    }
}

#[test]
fn limits_and_lengths_are_checked_before_allocating() {
    assert!(matches!(BitGrid::new(1 << 20, 1 << 20), Err(Error::LimitExceeded { .. })));
    assert!(matches!(BitGrid::new(usize::MAX, 64), Err(Error::LimitExceeded { .. })));
    let tiny = Limits { max_cells: 100, max_bytes: 1 << 20 };
    assert!(BitGrid::with_limits(10, 10, &tiny).is_ok());
    assert!(BitGrid::with_limits(10, 11, &tiny).is_err());
    assert!(matches!(BitGrid::from_words(70, 3, vec![0; 5]), Err(Error::InvalidInput(_))));
    assert!(BitGrid::from_words(usize::MAX, 3, vec![]).is_err());
    assert!(BitGrid::random(4, 4, 1.5, 1).is_err() && BitGrid::random(4, 4, f64::NAN, 1).is_err());
}

#[test]
fn random_respects_density_and_padding() {
    assert_eq!(BitGrid::random(70, 9, 0.0, 3).unwrap().population(), 0);
    let full = BitGrid::random(70, 9, 1.0, 3).unwrap();
    assert_eq!(full.population(), 70 * 9);
    assert!(full.words().chunks(2).all(|r| r[1] >> 6 == 0));
    let half = BitGrid::random(4096, 64, 0.5, 5).unwrap();
    let p = half.population() as f64 / (4096.0 * 64.0);
    assert!((0.49..0.51).contains(&p), "{p}");
    assert_ne!(half, BitGrid::random(4096, 64, 0.5, 6).unwrap());
}

#[test]
fn words_round_trip_without_copy() {
    let g = BitGrid::random(130, 4, 0.3, 1).unwrap();
    let ptr = g.words().as_ptr();
    let words = g.clone().into_words();
    let back = BitGrid::from_words(130, 4, words).unwrap();
    assert_eq!(back, g);
    assert_ne!(back.words().as_ptr(), ptr, "a clone, so a different buffer");
    let v = back.into_words();
    let p = v.as_ptr();
    assert_eq!(BitGrid::from_words(130, 4, v).unwrap().words().as_ptr(), p);
}
