//! The CPU reference against its own cell-by-cell version.

use super::*;

fn from_text(rows: &[&str]) -> BitGrid {
    let mut g = BitGrid::new(rows[0].len(), rows.len());
    for (y, r) in rows.iter().enumerate() {
        for (x, c) in r.chars().enumerate() {
            g.set(x, y, c == 'o');
        }
    }
    g
}

#[test]
fn packed_matches_simple_on_random_boards() {
    let sizes =
        [(1, 1), (1, 7), (6, 1), (2, 3), (3, 2), (5, 7), (63, 5), (64, 3), (65, 9), (127, 4), (128, 2), (130, 33)];
    for (i, &(w, h)) in sizes.iter().enumerate() {
        for d in [0.1, 0.35, 0.5, 0.9] {
            let mut a = BitGrid::random(w, h, d, i as u64 * 31 + (d * 100.0) as u64);
            let mut b = a.clone();
            for gen in 0..12 {
                a = step_simple(&a);
                b = step_once(&b);
                assert_eq!(a, b, "{w}x{h} density {d} generation {}", gen + 1);
            }
        }
    }
}

proptest::proptest! {
    #[test]
    fn packed_matches_simple_anywhere(w in 1usize..140, h in 1usize..20, d in 0.0f64..1.0, seed: u64) {
        let g = BitGrid::random(w, h, d, seed);
        proptest::prop_assert_eq!(step(&g, 3), step_simple(&step_simple(&step_simple(&g))));
    }
}

/// The named rules, B0 ones included, on odd sizes: packed against cell by cell.
#[test]
fn packed_matches_simple_for_other_rules() {
    let rules = ["B36/S23", "B3678/S34678", "B2/S", "B368/S245", "B36/S125", "B3/S012345678", "B0/S8", "B013/S0123"];
    for (i, r) in rules.iter().enumerate() {
        let rule: Rule = r.parse().unwrap();
        for (w, h) in [(1, 1), (3, 5), (65, 7), (130, 3)] {
            let mut a = BitGrid::random(w, h, 0.3, i as u64 * 7 + w as u64);
            let mut b = a.clone();
            for gen in 0..6 {
                a = step_simple_with(&a, rule);
                b = step_once_with(&b, rule);
                assert_eq!(a, b, "{r} {w}x{h} generation {}", gen + 1);
            }
        }
    }
}

#[test]
fn stepping_into_a_used_board_overwrites_all_of_it() {
    let g = BitGrid::random(130, 9, 0.4, 3);
    let mut out = BitGrid::random(130, 9, 0.9, 4);
    step_once_into(&g, &mut out);
    assert_eq!(out, step_once(&g));
    let words = g.clone().into_words();
    assert_eq!(BitGrid::from_words(130, 9, words).unwrap(), g);
}

#[test]
fn empty_boards() {
    assert_eq!(step(&BitGrid::new(0, 0), 3), BitGrid::new(0, 0));
    assert_eq!(step(&BitGrid::new(0, 5), 1), BitGrid::new(0, 5));
    assert_eq!(step(&BitGrid::new(70, 0), 1), BitGrid::new(70, 0));
}

#[test]
fn blinker_oscillates_and_glider_travels() {
    let blinker = from_text(&[".....", "..o..", "..o..", "..o..", "....."]);
    let turned = from_text(&[".....", ".....", ".ooo.", ".....", "....."]);
    assert_eq!(step(&blinker, 1), turned);
    assert_eq!(step(&blinker, 2), blinker);
    let mut glider = BitGrid::new(8, 8);
    for (x, y) in [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)] {
        glider.set(x, y, true);
    }
    // 32 generations on an 8x8 torus: 8 cells diagonally, back where it started.
    assert_eq!(step(&glider, 32), glider);
    let moved = step(&glider, 4);
    for (x, y) in [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)] {
        assert!(moved.get(x + 1, y + 1));
    }
    assert_eq!(moved.population(), 5);
}

#[test]
fn cells_round_trip_and_padding_is_cleared() {
    let g = BitGrid::random(70, 3, 0.5, 9);
    assert_eq!(BitGrid::from_cells(70, 3, &g.to_cells(1u8), |&c| c != 0).unwrap(), g);
    assert!(g.words().chunks(2).all(|r| r[1] >> 6 == 0));
    assert!(BitGrid::from_words(70, 3, vec![0; 5]).is_none());
}
