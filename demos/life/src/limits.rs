//! How large a Life board or pattern may be: a policy, checked before anything is allocated.
//!
//! A pattern file a few bytes long can describe an enormous board (`x = 1048576, y = 1048576`
//! is 2^40 cells, 128 GiB of bits), and a command line can ask for one (`--size`). Without a
//! limit such a request either aborts the process when the allocation fails or takes the
//! machine's memory. [`Limits`] turns it into [`Error::LimitExceeded`] before any allocation:
//! [`BitGrid::with_limits`](crate::BitGrid::with_limits) checks the board, the pattern parsers
//! check the header (and the text) before they allocate the board. Within the limits, an
//! allocation the machine cannot satisfy is [`Error::OutOfMemory`] (host) or a driver error
//! (device), never an abort.

use crate::{Error, Result};

/// Size limits for Life boards and patterns: a policy, checked before anything is allocated.
///
/// A pattern file a few bytes long can describe an enormous board, and a command line can ask
/// for one; [`BitGrid::with_limits`](crate::BitGrid::with_limits) and the readers of
/// [`pattern`](crate::pattern) refuse what is over these limits with
/// [`Error::LimitExceeded`] instead of attempting the allocation.
///
/// The default, [`Limits::DEFAULT`], allows 2^36 cells (a 262144 × 262144 board) and 8 GiB per
/// board: one bit-packed board of 2^36 cells is 8 GiB, so the two boards a bit kernel keeps on
/// the device take 16 GiB, which fits a GPU with tens of GiB with room to spare, and the host
/// copy fits a workstation. A board whose width is a multiple of 64 reaches the cell limit and
/// the byte limit together; a narrow board (each row is padded to whole 64-bit words) reaches
/// the byte limit first. Raise either limit for larger boards:
///
/// ```
/// use warpwork_life::{BitGrid, Limits};
/// let roomy = Limits::DEFAULT.with_max_cells(1 << 40);
/// assert!(Limits::DEFAULT.check_board(1 << 20, 1 << 20).is_err()); // 2^40 cells
/// assert!(roomy.check_board(1 << 20, 1 << 20).is_err()); // still 128 GiB: over max_bytes
/// let board = BitGrid::with_limits(1 << 10, 1 << 10, &roomy)?;
/// assert_eq!(board.width(), 1024);
/// # Ok::<(), warpwork::Error>(())
/// ```
///
/// The cell kernels keep a `u32` or a byte per cell on the device, up to 32 times the packed
/// size: the driver refuses what does not fit there with a typed error.
///
/// The fields are public to read; a value is built from [`Limits::DEFAULT`] with the `with_*`
/// setters. The struct is `#[non_exhaustive]` so that a later limit (a time budget, say) can be
/// added without breaking callers, which is why a struct expression does not compile outside
/// this crate:
///
/// ```compile_fail,E0639
/// let limits = warpwork_life::Limits { max_cells: 1 << 20, max_bytes: 1 << 20 };
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    /// Most cells (`width × height`) a board or a pattern may have.
    pub max_cells: u64,
    /// Most bytes one board may take in memory (bit-packed rows, each padded to whole 64-bit
    /// words), and the longest pattern text the parsers read.
    pub max_bytes: u64,
}

impl Limits {
    /// 2^36 cells and 8 GiB (2^33 bytes) per board and per pattern text: see [`Limits`].
    pub const DEFAULT: Limits = Limits { max_cells: 1 << 36, max_bytes: 1 << 33 };

    /// These limits with at most `cells` cells (`width × height`) per board or pattern.
    ///
    /// ```
    /// use warpwork_life::Limits;
    /// let roomy = Limits::DEFAULT.with_max_cells(1 << 40);
    /// assert_eq!((roomy.max_cells, roomy.max_bytes), (1 << 40, Limits::DEFAULT.max_bytes));
    /// ```
    #[must_use]
    pub const fn with_max_cells(self, cells: u64) -> Limits {
        Limits { max_cells: cells, ..self }
    }

    /// These limits with at most `bytes` bytes per board (bit-packed) and per pattern text.
    ///
    /// ```
    /// use warpwork_life::Limits;
    /// let small = Limits::DEFAULT.with_max_cells(1 << 20).with_max_bytes(1 << 17);
    /// assert!(small.check_board(1024, 1024).is_ok()); // 2^20 cells, 128 KiB
    /// assert!(small.check_text(1 << 18).is_err());
    /// ```
    #[must_use]
    pub const fn with_max_bytes(self, bytes: u64) -> Limits {
        Limits { max_bytes: bytes, ..self }
    }

    /// Bytes a `width × height` board takes bit-packed (rows of whole 64-bit words), or `None`
    /// when that does not fit a `u64`.
    ///
    /// ```
    /// use warpwork_life::Limits;
    /// assert_eq!(Limits::board_bytes(64, 10), Some(80)); // one 8-byte word per row
    /// assert_eq!(Limits::board_bytes(65, 10), Some(160)); // rows padded to whole words
    /// assert_eq!(Limits::board_bytes(usize::MAX, 64), None); // over u64
    /// ```
    pub fn board_bytes(width: usize, height: usize) -> Option<u64> {
        (width.div_ceil(64) as u64).checked_mul(8)?.checked_mul(height as u64)
    }

    /// Checks a `width × height` board against both limits: [`Error::LimitExceeded`] if it is
    /// over either. A side of 0 counts as 1 cell for [`Limits::max_cells`] (a `0 × 2^40` board
    /// has no cells, but 2^40 rows to walk). Allocates nothing.
    ///
    /// ```
    /// use warpwork::Error;
    /// use warpwork_life::Limits;
    /// let small = Limits::DEFAULT.with_max_cells(1 << 20).with_max_bytes(1 << 20);
    /// assert!(small.check_board(1024, 1024).is_ok()); // 2^20 cells, 128 KiB
    /// let refused = small.check_board(2048, 1024);
    /// assert!(matches!(refused, Err(Error::LimitExceeded { needed: 2097152, .. })));
    /// ```
    pub fn check_board(&self, width: usize, height: usize) -> Result<()> {
        // A side of 0 counts as 1: a board 0 cells wide still has `height` rows that loops walk.
        // A product that overflows u64 is over any limit (reported as u64::MAX).
        let cells = (width.max(1) as u64).checked_mul(height.max(1) as u64);
        if cells.is_none_or(|c| c > self.max_cells) {
            let needed = cells.unwrap_or(u64::MAX);
            return Err(Error::LimitExceeded { what: "Life board area (cells)", needed, limit: self.max_cells });
        }
        let bytes = Self::board_bytes(width, height);
        if bytes.is_none_or(|b| b > self.max_bytes) {
            return Err(Error::LimitExceeded {
                what: "Life board memory (bytes, rows padded to 64-bit words)",
                needed: bytes.unwrap_or(u64::MAX),
                limit: self.max_bytes,
            });
        }
        Ok(())
    }

    /// Checks the length of a pattern text (in bytes) against [`Limits::max_bytes`].
    ///
    /// ```
    /// use warpwork_life::Limits;
    /// let limits = Limits::DEFAULT.with_max_bytes(100);
    /// assert!(limits.check_text(100).is_ok());
    /// assert!(limits.check_text(101).is_err());
    /// ```
    pub fn check_text(&self, bytes: u64) -> Result<()> {
        if bytes > self.max_bytes {
            return Err(Error::LimitExceeded { what: "pattern text (bytes)", needed: bytes, limit: self.max_bytes });
        }
        Ok(())
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(r: Result<()>) -> (&'static str, u64, u64) {
        match r {
            Err(Error::LimitExceeded { what, needed, limit }) => (what, needed, limit),
            other => panic!("expected LimitExceeded, got {other:?}"),
        }
    }

    #[test]
    fn default_limits_at_their_boundaries() {
        let l = Limits::DEFAULT;
        assert!(l.check_board(1 << 18, 1 << 18).is_ok()); // exactly 2^36 cells, 8 GiB
        let (what, needed, limit) = refused(l.check_board((1 << 18) + 64, 1 << 18));
        assert!(what.contains("cells") && needed == ((1 << 18) + 64) * (1 << 18) && limit == 1 << 36);
        // One cell wide: 2^30 cells but 8 bytes per row, 8 GiB exactly; one more row is over.
        assert!(l.check_board(1, 1 << 30).is_ok());
        let (what, needed, _) = refused(l.check_board(1, (1 << 30) + 1));
        assert!(what.contains("bytes") && needed == ((1 << 30) + 1) * 8);
        assert!(l.check_board(0, 0).is_ok() && l.check_board(0, 1 << 30).is_ok());
        // An empty side counts as one: no cells, but rows to walk.
        assert_eq!(refused(l.check_board(0, 1 << 40)).1, 1 << 40);
        assert_eq!(refused(l.check_board(usize::MAX, 0)).1, usize::MAX as u64);
    }

    #[test]
    fn products_that_overflow_are_refused_not_wrapped() {
        for (w, h) in [(usize::MAX, 64), (1 << 32, 1 << 32), (usize::MAX, usize::MAX), (64, usize::MAX)] {
            let (_, needed, _) = refused(Limits::DEFAULT.check_board(w, h));
            assert!(needed > 1 << 36, "{w}x{h}: {needed}");
        }
        let all = Limits { max_cells: u64::MAX, max_bytes: u64::MAX };
        assert!(all.check_board(usize::MAX, 2).is_err(), "bytes overflow u64: refused");
        assert_eq!(Limits::board_bytes(usize::MAX, 1), Some(usize::MAX.div_ceil(64) as u64 * 8));
        assert_eq!(Limits::board_bytes(usize::MAX, 64), None);
    }

    #[test]
    fn text_limit() {
        let l = Limits { max_cells: 10, max_bytes: 100 };
        assert!(l.check_text(100).is_ok());
        assert_eq!(refused(l.check_text(101)).1, 101);
    }
}
