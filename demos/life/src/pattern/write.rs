//! The writers: RLE (what Golly and the LifeWiki share) and plaintext, streamed to any
//! [`Write`] a word of cells at a time, so a large board needs no text-sized buffer.

use super::without_controls;
use crate::{BitGrid, RuleSpec};
use crate::{Error, Result};
use std::io::{self, Write};

/// Longest RLE line the writer emits (the format's recommendation).
const RLE_LINE: usize = 70;

/// The first `x' ≥ x` whose cell differs from `alive` (or `width`), a word at a time.
fn next_change(row: &[u64], width: usize, x: usize, alive: bool) -> usize {
    let flip = |w: u64| if alive { !w } else { w };
    let mut i = x / 64;
    let mut word = flip(row[i]) & (u64::MAX << (x % 64));
    loop {
        if word != 0 {
            return (i * 64 + word.trailing_zeros() as usize).min(width);
        }
        i += 1;
        if i == row.len() {
            return width;
        }
        word = flip(row[i]);
    }
}

/// RLE runs written in lines of at most [`RLE_LINE`] characters.
struct Runs<'w, W: Write> {
    out: &'w mut W,
    line: usize,
}

impl<W: Write> Runs<'_, W> {
    fn run(&mut self, n: usize, tag: char) -> io::Result<()> {
        let len = if n == 1 { 1 } else { n.ilog10() as usize + 2 };
        if self.line + len > RLE_LINE {
            self.out.write_all(b"\n")?;
            self.line = 0;
        }
        self.line += len;
        if n == 1 {
            write!(self.out, "{tag}")
        } else {
            write!(self.out, "{n}{tag}")
        }
    }
}

/// Writes `grid` as RLE: a `#N` line if `name` is given (control characters removed), the
/// header with `rule = B3/S23`, then runs in lines of at most 70 characters; trailing dead cells
/// of a row and trailing dead rows are left out (the header keeps the size).
///
/// ```
/// use warpwork_life::{pattern, BitGrid, Limits};
/// let mut g = BitGrid::new(4, 3)?;
/// g.set(1, 0, true);
/// g.set(3, 2, true);
/// let mut out = Vec::new();
/// pattern::write_rle(&g, Some("two"), &mut out)?;
/// assert_eq!(String::from_utf8(out).unwrap(), "#N two\nx = 4, y = 3, rule = B3/S23\nbo2$3bo!\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_rle(grid: &BitGrid, name: Option<&str>, out: &mut impl Write) -> io::Result<()> {
    write_rle_with(grid, name, &RuleSpec::default(), out)
}

/// [`write_rle`] with `rule` in the header (Golly's canonical form, and its `:T<w>,<h>` suffix
/// if `rule` has a torus): the rule that ran, so that Golly runs the file the same way.
///
/// ```
/// use warpwork_life::{pattern, BitGrid, RuleSpec};
/// let spec: RuleSpec = "b36s23:T4,3".parse()?;
/// let mut out = Vec::new();
/// pattern::write_rle_with(&BitGrid::new(4, 3)?, None, &spec, &mut out)?;
/// assert_eq!(String::from_utf8(out).unwrap(), "x = 4, y = 3, rule = B36/S23:T4,3\n!\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_rle_with(grid: &BitGrid, name: Option<&str>, rule: &RuleSpec, out: &mut impl Write) -> io::Result<()> {
    if let Some(n) = name {
        writeln!(out, "#N {}", without_controls(n).trim())?;
    }
    writeln!(out, "x = {}, y = {}, rule = {rule}", grid.width(), grid.height())?;
    let mut runs = Runs { out, line: 0 };
    let (mut pending_rows, mut first) = (0usize, true);
    // A board without columns has no runs (and its rows need no walk).
    let rows = if grid.width() == 0 { 0 } else { grid.height() };
    for y in 0..rows {
        let row = grid.row(y);
        if row.iter().all(|&w| w == 0) {
            pending_rows += 1;
            continue;
        }
        // End the previous row and skip the empty ones: `n$` moves down n rows.
        let ends = pending_rows + usize::from(!first);
        if ends > 0 {
            runs.run(ends, '$')?;
        }
        (pending_rows, first) = (0, false);
        let mut x = 0;
        while x < grid.width() {
            let alive = row[x / 64] >> (x % 64) & 1 != 0;
            let end = next_change(row, grid.width(), x, alive);
            if alive || end < grid.width() {
                runs.run(end - x, if alive { 'o' } else { 'b' })?;
            }
            x = end;
        }
    }
    runs.run(1, '!')?;
    runs.out.write_all(b"\n")
}

/// Writes `grid` as plaintext: a `!Name:` line if `name` is given (control characters
/// removed), then one line per row, `.` dead and `O` alive. A board without cells is written
/// without rows (plaintext cannot tell a `0 × h` board from `0 × 0`), and without a name as a
/// lone `!` comment line, so that the text is not blank (a blank file is refused by the reader).
///
/// ```
/// use warpwork_life::{pattern, BitGrid};
/// let blinker = BitGrid::from_words(3, 1, vec![0b111])?;
/// let mut out = Vec::new();
/// pattern::write_cells(&blinker, Some("Blinker"), &mut out)?;
/// assert_eq!(String::from_utf8(out).unwrap(), "!Name: Blinker\nOOO\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_cells(grid: &BitGrid, name: Option<&str>, out: &mut impl Write) -> io::Result<()> {
    let empty = grid.width() == 0 || grid.height() == 0;
    match name {
        Some(n) => writeln!(out, "!Name: {}", without_controls(n).trim())?,
        None if empty => writeln!(out, "!")?,
        None => {}
    }
    let mut buf = [0u8; 64];
    for y in 0..if empty { 0 } else { grid.height() } {
        for (i, &word) in grid.row(y).iter().enumerate() {
            let n = (grid.width() - 64 * i).min(64);
            for (b, c) in buf[..n].iter_mut().enumerate() {
                *c = if word >> b & 1 != 0 { b'O' } else { b'.' };
            }
            out.write_all(&buf[..n])?;
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// A `Vec<u8>` writer whose growth is fallible: an allocation failure is an
/// [`io::ErrorKind::OutOfMemory`] error, not an abort.
struct FallibleVec(Vec<u8>);

impl Write for FallibleVec {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.try_reserve(buf.len()).map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Runs a writer into a string; [`Error::OutOfMemory`] if the text does not fit in memory.
fn to_string(what: &'static str, write: impl FnOnce(&mut FallibleVec) -> io::Result<()>) -> Result<String> {
    let mut out = FallibleVec(Vec::new());
    write(&mut out).map_err(|_| Error::OutOfMemory { what, bytes: out.0.len() as u64 })?;
    String::from_utf8(out.0).map_err(|e| Error::InvalidInput(format!("{what} is not UTF-8: {e}")))
}

/// [`write_rle`] into a string.
///
/// ```
/// use warpwork_life::{pattern, BitGrid};
/// assert_eq!(pattern::to_rle(&BitGrid::new(2, 2)?, None)?, "x = 2, y = 2, rule = B3/S23\n!\n");
/// # Ok::<(), warpwork::Error>(())
/// ```
pub fn to_rle(grid: &BitGrid, name: Option<&str>) -> Result<String> {
    to_string("RLE text", |out| write_rle(grid, name, out))
}

/// [`write_rle_with`] into a string.
///
/// ```
/// use warpwork_life::{pattern, BitGrid};
/// let seeds = "B2/S".parse()?;
/// assert_eq!(pattern::to_rle_with(&BitGrid::new(2, 2)?, None, &seeds)?, "x = 2, y = 2, rule = B2/S\n!\n");
/// # Ok::<(), warpwork::Error>(())
/// ```
pub fn to_rle_with(grid: &BitGrid, name: Option<&str>, rule: &RuleSpec) -> Result<String> {
    to_string("RLE text", |out| write_rle_with(grid, name, rule, out))
}

/// [`write_cells`] into a string.
///
/// ```
/// use warpwork_life::{pattern, BitGrid, Limits};
/// let mut g = BitGrid::new(3, 2)?;
/// g.set(2, 1, true);
/// let text = pattern::to_cells(&g, None)?;
/// assert_eq!(text, "...\n..O\n");
/// assert_eq!(pattern::parse(&text, &Limits::DEFAULT)?.grid, g); // and back
/// # Ok::<(), warpwork::Error>(())
/// ```
pub fn to_cells(grid: &BitGrid, name: Option<&str>) -> Result<String> {
    to_string("plaintext pattern", |out| write_cells(grid, name, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_change_scans_words() {
        let mut g = BitGrid::new(200, 1).unwrap();
        g.fill_run(70, 0, 60);
        let row = g.row(0);
        assert_eq!(next_change(row, 200, 0, false), 70);
        assert_eq!(next_change(row, 200, 70, true), 130);
        assert_eq!(next_change(row, 200, 130, false), 200);
        g.fill_run(130, 0, 70);
        assert_eq!(next_change(g.row(0), 200, 70, true), 200, "padding is not a dead cell");
    }

    #[test]
    fn lines_stay_within_70_characters_and_counts_stay_whole() {
        let g = BitGrid::random(1000, 30, 0.3, 3).unwrap();
        let text = to_rle(&g, None).unwrap();
        assert!(text.lines().all(|l| l.len() <= RLE_LINE), "{text}");
        for w in text.lines().skip(1).collect::<Vec<_>>().windows(2) {
            let (end, start) = (w[0].chars().last().unwrap(), w[1].chars().next().unwrap());
            assert!(!(end.is_ascii_digit() && start.is_ascii_digit()), "a count split by a line end");
        }
    }

    #[test]
    fn names_are_written_without_controls() {
        let g = BitGrid::new(1, 1).unwrap();
        assert!(to_rle(&g, Some("a\nb\u{1b}c")).unwrap().starts_with("#N abc\n"));
        assert_eq!(to_cells(&g, Some(" \tx ")).unwrap(), "!Name: x\n.\n");
        assert_eq!(to_cells(&BitGrid::new(0, 3).unwrap(), None).unwrap(), "!\n");
        assert_eq!(to_rle(&BitGrid::new(0, 3).unwrap(), None).unwrap(), "x = 0, y = 3, rule = B3/S23\n!\n");
    }
}
