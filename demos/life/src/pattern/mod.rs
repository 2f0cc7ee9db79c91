//! Life pattern files as people share them: run-length encoded (`.rle`, the format of Golly and
//! the LifeWiki) and plaintext (`.cells`). Reading and writing; errors name the line and column.
//!
//! **RLE**: `#` comment lines (`#N name`; `#r rule`), a header `x = W, y = H, rule = B3/S23`
//! (the rule is optional: any Life-like rule in Golly's notations, with at most a torus suffix
//! `:T<w>,<h>`, see [`crate::Rule`]; it is returned in [`Pattern::rule`]), then runs
//! `<count><tag>` with `b` dead, `o` alive, `$` end of row, `!` end of pattern.
//!
//! **Plaintext**: `!` comment lines (`!Name: ...`), then one line per row, `.` dead and `O` alive
//! (`*` is accepted too); short rows are padded with dead cells, trailing empty rows dropped.
//!
//! # Limits and cost
//!
//! Every reader takes [`Limits`]: the text's length, then the board's area and memory are
//! checked before the board is allocated (an RLE header as soon as it is read, `.cells` rows as
//! they are counted), and each RLE run count against the header's bounding box as its digits
//! are read, so that a short count cannot describe a huge area. Both readers make two passes: the
//! first checks the whole text and allocates nothing; the second fills the board (RLE runs a
//! 64-bit word at a time). A bad file is refused in time linear in its length; a good one costs
//! its length plus the words its live runs cover, and the board comes from zeroed pages the
//! system hands out lazily.
//!
//! # Decisions on lenient input
//!
//! Where Golly's reader (`readpattern.cpp`) has a known behaviour we follow it, unless it
//! silently misreads; then we refuse, with the position.
//!
//! | input | Golly | here |
//! |---|---|---|
//! | line ends `\n`, `\r\n`, lone `\r` | all three | all three |
//! | UTF-8 byte-order mark at the start | read as pattern text (misread) | skipped, by both readers and by [`parse`]'s detection |
//! | empty or blank file (whitespace only) | an empty pattern | refused: a truncated or wrong file is likelier than an intended empty pattern, which is written `x = 0, y = 0` + `!` or as a `.cells` file with a `!` line |
//! | blank lines before the header | skipped | skipped |
//! | run count split by a line break (`1⏎0o`) | one count (10) | one count (10): line breaks are transport (writers wrap at 70 columns), not syntax; `#` lines between are skipped |
//! | space inside a count (`1 0o`) | drops the count (1 cell) | refused |
//! | count 0 (`0o`) | read as 1 | refused |
//! | a count longer than the header's box | cells written outside it | refused as its digits are read |
//! | runs (or `$`) past the header's box | cells written outside it | refused |
//! | duplicate header key (`x = 3, x = 5`) | keys are positional (`x = 3, y = 5`) | refused |
//! | keys in another order, a trailing comma | positional; comma after the rule ignored | any order; a trailing comma ignored |
//! | rule (header or `#r`) | switches rule | read into [`Pattern::rule`] (the header's wins over `#r`); rules that are not Life-like and bounded grids other than a plain torus are refused |
//! | characters other than runs | ignored | refused |
//! | missing `!` | reads to the end | refused (a truncated file) |
//! | text after `!` | ignored (comments) | ignored |
//! | several `#N` / `!Name:` lines | — | the first names the pattern |
//! | control characters in a name | kept | removed, so a name can be printed safely |
//! | `.cells` with `*` for alive | (read as an unknown command) | alive |
//! | `.cells` leading blanks or other characters | (read as dblife commands) | refused |
//!
//! [`parse`] takes a file as RLE when its first non-blank line starts with `#` or is a header
//! (`x =` or `y =`; Golly tests for `#` or `x`), else as plaintext.

mod cells;
mod rle;
mod text;
mod write;

#[cfg(test)]
mod tests;

pub use cells::parse_cells;
pub use rle::parse_rle;
pub use text::without_controls;
pub use write::{to_cells, to_rle, to_rle_with, write_cells, write_rle, write_rle_with};

use crate::{BitGrid, Limits, RuleSpec};
use std::fmt;

/// A pattern file that could not be read: what was wrong, and where (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    /// Line, from 1.
    pub line: usize,
    /// Column (in characters), from 1.
    pub column: usize,
    /// What was wrong.
    pub message: String,
    /// The kind of error: which [`warpwork::Error`] it becomes.
    pub kind: PatternErrorKind,
}

/// Why a pattern was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PatternErrorKind {
    /// The text is not a pattern the reader accepts ([`warpwork::Error::InvalidInput`]).
    Syntax,
    /// The text or the board is over the [`Limits`] ([`warpwork::Error::LimitExceeded`]).
    Limit {
        /// What was too large.
        what: &'static str,
        /// How much.
        needed: u64,
        /// The limit.
        limit: u64,
    },
    /// Within the limits, but the host could not allocate it ([`warpwork::Error::OutOfMemory`]).
    OutOfMemory {
        /// Bytes asked for.
        bytes: u64,
    },
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for PatternError {}

impl From<PatternError> for crate::Error {
    fn from(e: PatternError) -> Self {
        match e.kind {
            PatternErrorKind::Syntax => crate::Error::InvalidInput(format!("pattern file: {e}")),
            PatternErrorKind::Limit { what, needed, limit } => crate::Error::LimitExceeded { what, needed, limit },
            PatternErrorKind::OutOfMemory { bytes } => crate::Error::OutOfMemory { what: "pattern", bytes },
        }
    }
}

/// A pattern read from a file: its cells and, where the file names it, its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// The pattern's bounding box.
    pub grid: BitGrid,
    /// `#N` (RLE) or `!Name:` (plaintext), if present, without control characters.
    pub name: Option<String>,
    /// The RLE header's rule (else a `#r` line's), with its torus size if it has Golly's
    /// `:T<w>,<h>` suffix. `None` for plaintext and RLE without one: B3/S23 by convention.
    pub rule: Option<RuleSpec>,
}

/// Reads RLE or plaintext within `limits`, recognised by content: a first non-blank line that
/// starts with `#` or is a header (`x = ..` or `y = ..`) means RLE.
///
/// ```
/// use warpwork_life::{pattern, Limits};
/// let rle = pattern::parse("\u{FEFF}#N Blinker\r\nx = 3, y = 1\r\n3o!", &Limits::DEFAULT)?;
/// let cells = pattern::parse("!Name: Blinker\nOOO\n", &Limits::DEFAULT)?;
/// assert_eq!(rle, cells);
/// # Ok::<(), pattern::PatternError>(())
/// ```
pub fn parse(text: &str, limits: &Limits) -> Result<Pattern, PatternError> {
    let first =
        text::lines(text::strip_bom(text)).map(|(_, l)| l.trim_start_matches(text::is_blank)).find(|l| !l.is_empty());
    if first.is_some_and(|l| l.starts_with('#') || text::is_header(l)) {
        parse_rle(text, limits)
    } else {
        parse_cells(text, limits)
    }
}

/// A `width × height` board (within [`Limits::DEFAULT`]) with `pattern` in its centre; an error
/// when it does not fit. For other limits: [`BitGrid::with_limits`] and
/// [`BitGrid::paste_centred`].
///
/// ```
/// use warpwork_life::{pattern, BitGrid};
/// let block = BitGrid::from_words(2, 2, vec![0b11, 0b11])?;
/// let board = pattern::centred(&block, 10, 10)?;
/// assert!(board.get(4, 4) && board.get(5, 5) && board.population() == 4);
/// assert!(pattern::centred(&block, 1, 10).is_err()); // does not fit
/// # Ok::<(), warpwork::Error>(())
/// ```
pub fn centred(pattern: &BitGrid, width: usize, height: usize) -> crate::Result<BitGrid> {
    let mut g = BitGrid::new(width, height)?;
    g.paste_centred(pattern)?;
    Ok(g)
}

/// A `width × height` board (within [`Limits::DEFAULT`]) with `pattern`'s top-left corner at
/// `(x0, y0)`; an error when it does not fit, however large the offsets.
///
/// ```
/// use warpwork_life::{pattern, Limits};
/// let glider = pattern::parse(pattern::builtin("glider").unwrap(), &Limits::DEFAULT)?.grid;
/// assert_eq!(pattern::place(&glider, 64, 64, 61, 61)?.population(), 5);
/// assert!(pattern::place(&glider, 64, 64, usize::MAX - 1, 0).is_err());
/// # Ok::<(), warpwork::Error>(())
/// ```
pub fn place(pattern: &BitGrid, width: usize, height: usize, x0: usize, y0: usize) -> crate::Result<BitGrid> {
    let mut g = BitGrid::new(width, height)?;
    g.paste(pattern, x0, y0)?;
    Ok(g)
}

/// The names [`builtin`] knows.
pub const BUILTIN_NAMES: [&str; 9] =
    ["glider", "blinker", "block", "beehive", "toad", "pulsar", "glider-gun", "r-pentomino", "acorn"];

/// A few well-known patterns by name ([`BUILTIN_NAMES`]), as RLE.
///
/// ```
/// use warpwork_life::{pattern, Limits};
/// let pulsar = pattern::parse(pattern::builtin("pulsar").unwrap(), &Limits::DEFAULT)?;
/// assert_eq!((pulsar.grid.width(), pulsar.grid.population()), (13, 48));
/// assert!(pattern::BUILTIN_NAMES.iter().all(|n| pattern::builtin(n).is_some()));
/// assert_eq!(pattern::builtin("spaceship"), None);
/// # Ok::<(), warpwork::Error>(())
/// ```
pub fn builtin(name: &str) -> Option<&'static str> {
    Some(match name {
        "glider" => "x = 3, y = 3\nbob$2bo$3o!",
        "blinker" => "x = 3, y = 1\n3o!",
        "block" => "x = 2, y = 2\n2o$2o!",
        "beehive" => "x = 4, y = 3\nb2o$o2bo$b2o!",
        "toad" => "x = 4, y = 2\nb3o$3o!",
        "pulsar" => {
            "x = 13, y = 13\n2b3o3b3o2b2$o4bobo4bo$o4bobo4bo$o4bobo4bo$2b3o3b3o2b2$2b3o3b3o2b$o4bobo4bo$\
             o4bobo4bo$o4bobo4bo2$2b3o3b3o!"
        }
        "glider-gun" => {
            "x = 36, y = 9, rule = B3/S23\n24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4b\
             obo$10bo5bo7bo$11bo3bo$12b2o!"
        }
        "r-pentomino" => "x = 3, y = 3\nb2o$2o$bo!",
        "acorn" => "x = 7, y = 3\nbo$3bo$2o2b3o!",
        _ => return None,
    })
}
