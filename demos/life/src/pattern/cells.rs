//! The plaintext (`.cells`) reader. Two passes like the RLE reader: the first finds the size
//! (checked against the [`Limits`] as the rows are read) and checks every character, the
//! second fills the board.

use super::text::{at, check_length, clean_name, err, is_blank, lines, strip_bom};
use super::{Pattern, PatternError};
use crate::{BitGrid, Limits};

/// A row line without its trailing blanks; `None` for a `!` comment line.
fn row_of(line: &str) -> Option<&str> {
    (!line.starts_with('!')).then(|| line.trim_end_matches(is_blank))
}

/// Reads a plaintext (`.cells`) pattern within `limits` (see the [module docs](super)).
///
/// ```
/// use warpwork_life::{pattern, Limits};
/// let p = pattern::parse_cells("!Name: Glider\n.O\n..O\nOOO\n", &Limits::DEFAULT)?;
/// assert_eq!((p.grid.width(), p.grid.height(), p.grid.population()), (3, 3, 5));
/// assert!(pattern::parse_cells(" \n\n", &Limits::DEFAULT).is_err()); // a blank file
/// # Ok::<(), pattern::PatternError>(())
/// ```
pub fn parse_cells(text: &str, limits: &Limits) -> Result<Pattern, PatternError> {
    check_length(text, limits)?;
    let text = strip_bom(text);
    let (mut width, mut height, mut rows) = (0usize, 0usize, 0usize);
    let mut name = None;
    let mut comments = false;
    let mut last_line = 1;
    for (ln, line) in lines(text) {
        last_line = ln;
        let Some(row) = row_of(line) else {
            comments = true;
            if let (None, Some(n)) = (name, line.strip_prefix("!Name:")) {
                name = Some((ln, n));
            }
            continue;
        };
        rows += 1;
        for (ci, c) in row.chars().enumerate() {
            if !matches!(c, '.' | 'O' | '*') {
                return Err(err(ln, ci + 1, format!("unexpected {c:?} (expected '.' or 'O')")));
            }
        }
        if !row.is_empty() {
            // Rows are ASCII here, so bytes are cells.
            (width, height) = (width.max(row.len()), rows);
            limits.check_board(width, height).map_err(|e| at(ln, 1, e))?;
        }
    }
    if height == 0 && !comments {
        return Err(err(last_line, 1, "empty pattern file: no rows and no '!' comment line"));
    }
    let mut grid = BitGrid::with_limits(width, height, limits).map_err(|e| at(1, 1, e))?;
    for (y, row) in lines(text).filter_map(|(_, l)| row_of(l)).take(height).enumerate() {
        for (x, c) in row.bytes().enumerate() {
            if c != b'.' {
                grid.set(x, y, true);
            }
        }
    }
    let name = match name {
        Some((line, raw)) => Some(clean_name(raw, line)?),
        None => None,
    };
    Ok(Pattern { grid, name, rule: None })
}
