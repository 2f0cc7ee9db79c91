//! The host board of one band: its rows of the whole board and the halo rows around them,
//! copied from a board or made by the random generator where they are.

use crate::{BitGrid, Limits, Result};
use std::ops::Range;

/// Limits for the boards made from (or for) a board that already passed the caller's limits.
pub(super) const UNLIMITED: Limits = Limits { max_cells: u64::MAX, max_bytes: u64::MAX };

/// Where a band's cells come from.
pub(crate) enum Source<'a> {
    /// The rows of a whole board.
    Grid(&'a BitGrid),
    /// The cells [`BitGrid::random`] gives a board of this size, density and seed.
    Random { density: f64, seed: u64 },
}

/// The board of the band owning `rows` of a `width × height` torus, with `d ≤ height` halo rows
/// above and below (wrapping round the torus): `rows.len() + 2d` rows, row `y` being board row
/// `rows.start − d + y` (mod `height`).
pub(crate) fn band_board(
    source: &Source,
    width: usize,
    height: usize,
    rows: Range<usize>,
    d: usize,
) -> Result<BitGrid> {
    let h = rows.len();
    let mut band = BitGrid::with_limits(width, h + 2 * d, &UNLIMITED)?;
    let board_row = |y: usize| (rows.start + height + y - d) % height;
    match *source {
        Source::Grid(grid) => {
            for y in 0..h + 2 * d {
                band.row_mut(y).copy_from_slice(grid.row(board_row(y)));
            }
        }
        Source::Random { density, seed } => {
            let wpr = width.div_ceil(64);
            // The band's own rows are contiguous on the board: one fill over all cores.
            let own = &mut band.words_mut()[d * wpr..(d + h) * wpr];
            crate::random::fill_at(own, density, seed, (rows.start * wpr) as u64);
            for y in (0..d).chain(d + h..h + 2 * d) {
                crate::random::fill_at(band.row_mut(y), density, seed, (board_row(y) * wpr) as u64);
            }
            band.clear_padding();
        }
    }
    Ok(band)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_are_the_board_rows_round_the_torus() {
        for (w, h, rows, d, density) in [
            (70, 9, 0..5, 1, 0.5),
            (70, 9, 5..9, 4, 0.3),
            (64, 24, 12..24, 12, 0.5),
            (1, 3, 0..3, 3, 0.7),
            (200, 40, 17..30, 8, 0.1),
            (4096, 20, 3..19, 2, 0.5),
            // 180 rows of 1024 words: the band's fill runs on several threads, each from its offset.
            (65536, 200, 10..190, 8, 0.5),
        ] {
            let board = BitGrid::random(w, h, density, 77).unwrap();
            let copied = band_board(&Source::Grid(&board), w, h, rows.clone(), d).unwrap();
            let made = band_board(&Source::Random { density, seed: 77 }, w, h, rows.clone(), d).unwrap();
            assert_eq!(copied, made, "{w}x{h} rows {rows:?} halo {d}");
            assert_eq!(copied.height(), rows.len() + 2 * d);
            for y in 0..copied.height() {
                let from = (rows.start + h + y - d) % h;
                assert_eq!(copied.row(y), board.row(from), "{w}x{h} rows {rows:?} halo {d}: band row {y}");
            }
        }
    }
}
