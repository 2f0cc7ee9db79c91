//! Moving a [`BitGrid`] to and from the device in a kernel's [`Layout`]. Boards are converted
//! 2^20 cells at a time through a 4 MiB host buffer (a chunk may end inside a row), so a board
//! of `u32` cells never needs a `u32`-per-cell copy on the host (32 times the packed board),
//! however wide its rows.

use crate::support::zeroed_vec;
use crate::{BitGrid, Error, Layout, Limits, Result};
use bytemuck::Pod;
use warpwork::cudarc::driver::{CudaSlice, CudaView};
use warpwork::Gpu;

/// The two device boards (current and next generation) in a kernel's layout.
pub(super) enum Boards {
    U32([CudaSlice<u32>; 2]),
    U8([CudaSlice<u8>; 2]),
    Bits32([CudaSlice<u32>; 2]),
    Bits64([CudaSlice<u64>; 2]),
}

/// Elements (cells, or 32-bit words) converted per host-to-device (or back) copy: 4 MiB of
/// `u32` cells, however wide the rows.
const CHUNK: usize = 1 << 20;

/// A host buffer of `n` zeroed values, or [`Error::OutOfMemory`].
fn host_buffer<T: Pod>(n: usize) -> Result<Vec<T>> {
    zeroed_vec(n, "Life transfer buffer")
}

/// The chunks of `n` row-major elements in rows of `per_row`: `(first, len, row, column)` of
/// each, at most [`CHUNK`] elements, rows split where a chunk ends.
fn chunks(n: usize, per_row: usize) -> impl Iterator<Item = (usize, usize, usize, usize)> {
    (0..n).step_by(CHUNK).map(move |first| (first, CHUNK.min(n - first), first / per_row, first % per_row))
}

/// Calls `f(y, x, element)` for `len` row-major elements from `(y, x)` in rows of `per_row`.
fn walk<T>(items: &mut [T], per_row: usize, (mut y, mut x): (usize, usize), mut f: impl FnMut(usize, usize, &mut T)) {
    for item in items {
        f(y, x, item);
        x += 1;
        if x == per_row {
            (x, y) = (0, y + 1);
        }
    }
}

/// `n` row-major elements in rows of `per_row` on the device, element `(y, x)` being `f(y, x)`,
/// converted [`CHUNK`] elements at a time, followed by `spare` zeroed elements.
fn upload_chunked<T: Pod>(
    gpu: &Gpu,
    (n, spare): (usize, usize),
    per_row: usize,
    f: impl Fn(usize, usize) -> T,
) -> Result<CudaSlice<T>> {
    let mut board = gpu.zeros::<T>(padded(n, spare)?)?;
    let mut host = host_buffer::<T>(CHUNK.min(n))?;
    for (first, len, y, x) in chunks(n, per_row) {
        walk(&mut host[..len], per_row, (y, x), |y, x, out| *out = f(y, x));
        gpu.upload_into(&host[..len], &mut board.slice_mut(first..first + len))?;
    }
    Ok(board)
}

/// Reads rows `first_row ..` of a device board of `per_row` elements a row back into a
/// `width × height` board, `put(row, x, element)` setting element `x`'s bits of its row,
/// [`CHUNK`] elements at a time.
fn download_chunked<T: Pod>(
    gpu: &Gpu,
    (board, first_row): (&CudaSlice<T>, usize),
    (width, height): (usize, usize),
    per_row: usize,
    put: impl Fn(&mut [u64], usize, T),
) -> Result<BitGrid> {
    let mut grid = readback_grid(width, height)?;
    let n = per_row * height;
    let board = rows_of(board, first_row * per_row, n)?;
    let mut host = host_buffer::<T>(CHUNK.min(n))?;
    for (first, len, y, x) in chunks(n, per_row) {
        gpu.download_into(&board.slice(first..first + len), &mut host[..len])?;
        walk(&mut host[..len], per_row, (y, x), |y, x, c| put(grid.row_mut(y), x, *c));
    }
    Ok(grid)
}

/// `grid` as one `T` per cell (`alive` or zero) on the device, converted [`CHUNK`] cells at a
/// time, followed by `spare_rows` zeroed rows.
fn upload_cells<T: Pod>(gpu: &Gpu, grid: &BitGrid, alive: T, spare_rows: usize) -> Result<CudaSlice<T>> {
    let w = grid.width();
    upload_chunked(gpu, (w * grid.height(), w * spare_rows), w, |y, x| {
        if grid.row(y)[x / 64] >> (x % 64) & 1 != 0 {
            alive
        } else {
            T::zeroed()
        }
    })
}

/// Reads one `T` per cell back into a board (`is_alive` decides), [`CHUNK`] cells at a time.
fn download_cells<T: Pod>(
    gpu: &Gpu,
    board: (&CudaSlice<T>, usize),
    size: (usize, usize),
    is_alive: impl Fn(T) -> bool,
) -> Result<BitGrid> {
    download_chunked(gpu, board, size, size.0, |row, x, c| row[x / 64] |= (is_alive(c) as u64) << (x % 64))
}

/// An empty board to read a device board back into. The device board was made from a board
/// that passed its limits, so the copy needs no second check (the caller's limits are not
/// known here); its allocation can still fail, as [`Error::OutOfMemory`].
fn readback_grid(width: usize, height: usize) -> Result<BitGrid> {
    BitGrid::with_limits(width, height, &Limits { max_cells: u64::MAX, max_bytes: u64::MAX })
}

/// The 32-bit word `wx` of row `y` of `grid` (bit `x` of the row is bit `x % 32` of word `x / 32`).
fn word32(grid: &BitGrid, y: usize, wx: usize) -> u32 {
    (grid.row(y)[wx / 2] >> (32 * (wx % 2))) as u32
}

/// One device board in a kernel's layout: a band of a board over several GPUs kept once
/// ([`crate::BandedLife`]'s windows), or the first of a [`Life`](crate::Life)'s two.
pub(crate) enum Board {
    U32(CudaSlice<u32>),
    U8(CudaSlice<u8>),
    Bits32(CudaSlice<u32>),
    Bits64(CudaSlice<u64>),
}

/// A borrowed device board in a kernel's layout: one of [`Boards`], or a [`Board`].
#[derive(Clone, Copy)]
pub(crate) enum BoardRef<'a> {
    U32(&'a CudaSlice<u32>),
    U8(&'a CudaSlice<u8>),
    Bits32(&'a CudaSlice<u32>),
    Bits64(&'a CudaSlice<u64>),
}

/// Rows of a device board that a kernel reads instead of its [`Life`](crate::Life)'s current
/// board: a window of a band kept once (see [`crate::Bands::with_window`]).
#[cfg_attr(not(feature = "nccl"), allow(dead_code))]
pub(crate) enum SourceRows<'a> {
    /// `u32` cells, or 32-bit words of bits.
    U32(CudaView<'a, u32>),
    /// Byte cells.
    U8(CudaView<'a, u8>),
    /// 64-bit words of bits.
    U64(CudaView<'a, u64>),
}

impl SourceRows<'_> {
    /// Elements.
    pub(crate) fn len(&self) -> usize {
        match self {
            SourceRows::U32(v) => v.len(),
            SourceRows::U8(v) => v.len(),
            SourceRows::U64(v) => v.len(),
        }
    }
}

/// Device elements per row of a `width`-cell board in `layout` (a bit layout's width being a
/// whole number of words: `Kernel::check_size`).
pub(crate) fn elements_per_row(layout: Layout, width: usize) -> usize {
    match layout {
        Layout::U32 | Layout::U8 => width,
        Layout::Bits32 => width / 32,
        Layout::Bits64 => width / 64,
    }
}

impl Boards {
    /// Board `i` (0 or 1).
    pub(crate) fn get(&self, i: usize) -> BoardRef<'_> {
        match self {
            Boards::U32(b) => BoardRef::U32(&b[i]),
            Boards::U8(b) => BoardRef::U8(&b[i]),
            Boards::Bits32(b) => BoardRef::Bits32(&b[i]),
            Boards::Bits64(b) => BoardRef::Bits64(&b[i]),
        }
    }
}

impl Board {
    /// The board, borrowed.
    #[cfg_attr(not(feature = "nccl"), allow(dead_code))]
    pub(crate) fn get(&self) -> BoardRef<'_> {
        match self {
            Board::U32(b) => BoardRef::U32(b),
            Board::U8(b) => BoardRef::U8(b),
            Board::Bits32(b) => BoardRef::Bits32(b),
            Board::Bits64(b) => BoardRef::Bits64(b),
        }
    }
}

/// `grid` on the device in `layout`: one board, followed by `spare_rows` zeroed rows (room for
/// a band kept once to move in: [`crate::Bands::with_window`]).
pub(crate) fn upload_board(gpu: &Gpu, layout: Layout, grid: &BitGrid, spare_rows: usize) -> Result<Board> {
    let (w, h) = (grid.width(), grid.height());
    let per_row = elements_per_row(layout, w);
    Ok(match layout {
        Layout::U32 => Board::U32(upload_cells(gpu, grid, 1u32, spare_rows)?),
        Layout::U8 => Board::U8(upload_cells(gpu, grid, 1u8, spare_rows)?),
        // Rows of whole 64-bit words are rows of whole 32-bit words: no conversion.
        Layout::Bits32 if w % 64 == 0 => {
            Board::Bits32(upload_words(gpu, bytemuck::cast_slice(grid.words()), per_row * spare_rows)?)
        }
        // Each row ends with half a 64-bit word: drop the padding half, a chunk at a time.
        Layout::Bits32 => Board::Bits32(upload_chunked(gpu, (per_row * h, per_row * spare_rows), per_row, |y, wx| {
            word32(grid, y, wx)
        })?),
        Layout::Bits64 => Board::Bits64(upload_words(gpu, grid.words(), per_row * spare_rows)?),
    })
}

/// `n + spare` elements, or an error where that overflows.
fn padded(n: usize, spare: usize) -> Result<usize> {
    n.checked_add(spare).ok_or_else(|| Error::InvalidInput(format!("a board of {n} elements and {spare} more")))
}

/// `data` copied as it is into the first elements of a device buffer `spare` elements longer.
fn upload_words<T: Pod>(gpu: &Gpu, data: &[T], spare: usize) -> Result<CudaSlice<T>> {
    if spare == 0 {
        return gpu.upload(data);
    }
    let mut board = gpu.zeros(padded(data.len(), spare)?)?;
    gpu.upload_into(data, &mut board.slice_mut(..data.len()))?;
    Ok(board)
}

/// The two boards of `layout` holding `grid`. `sparse` needs both equal at the start (its
/// skipped writes rely on it); the other kernels overwrite the second before reading it.
pub(super) fn upload(gpu: &Gpu, layout: Layout, sparse: bool, grid: &BitGrid) -> Result<Boards> {
    Ok(match upload_board(gpu, layout, grid, 0)? {
        Board::U32(a) => {
            let mut b = gpu.zeros(a.len())?;
            if sparse {
                gpu.copy(&a, &mut b)?;
            }
            Boards::U32([a, b])
        }
        Board::U8(a) => {
            let b = gpu.zeros(a.len())?;
            Boards::U8([a, b])
        }
        Board::Bits32(a) => {
            let b = gpu.zeros(a.len())?;
            Boards::Bits32([a, b])
        }
        Board::Bits64(a) => {
            let b = gpu.zeros(a.len())?;
            Boards::Bits64([a, b])
        }
    })
}

/// Rows `first_row .. first_row + height` of `board`, a device board of `width` cells a row,
/// read back (waits for the GPU).
pub(crate) fn download(
    gpu: &Gpu,
    board: BoardRef<'_>,
    first_row: usize,
    width: usize,
    height: usize,
) -> Result<BitGrid> {
    let size = (width, height);
    match board {
        BoardRef::U32(b) => download_cells(gpu, (b, first_row), size, |c| c & 1 != 0),
        BoardRef::U8(b) => download_cells(gpu, (b, first_row), size, |c| c != 0),
        BoardRef::Bits32(b) if width.is_multiple_of(64) => download_words(gpu, (b, first_row), size),
        BoardRef::Bits32(b) => download_chunked(gpu, (b, first_row), size, width / 32, |row, wx, word| {
            row[wx / 2] |= (word as u64) << (32 * (wx % 2))
        }),
        BoardRef::Bits64(b) => download_words(gpu, (b, first_row), size),
    }
}

/// Elements `first .. first + n` of a device board, or an error where it is shorter.
fn rows_of<T>(board: &CudaSlice<T>, first: usize, n: usize) -> Result<CudaView<'_, T>> {
    match first.checked_add(n) {
        Some(end) if end <= board.len() => Ok(board.slice(first..end)),
        _ => Err(Error::InvalidInput(format!("a device board of {} elements has no {n} from {first}", board.len()))),
    }
}

/// Rows `first_row ..` of a device board whose rows are whole 64-bit words, copied straight
/// into a board's words.
fn download_words<T: Pod>(
    gpu: &Gpu,
    (board, first_row): (&CudaSlice<T>, usize),
    (width, height): (usize, usize),
) -> Result<BitGrid> {
    // Elements of the board per 64-bit word of a row.
    let (row_words, per_word) = (width.div_ceil(64), 8 / size_of::<T>());
    let rows = rows_of(board, first_row * row_words * per_word, row_words * height * per_word)?;
    let mut words = zeroed_vec(row_words * height, "Life board")?;
    gpu.download_into(&rows, bytemuck::cast_slice_mut::<u64, T>(&mut words))?;
    BitGrid::from_words(width, height, words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_split_rows_anywhere_and_cover_everything() {
        let got: Vec<_> = chunks(3 * CHUNK + 5, CHUNK + 1).collect();
        assert_eq!(
            got,
            [
                (0, CHUNK, 0, 0),
                (CHUNK, CHUNK, 0, CHUNK),
                (2 * CHUNK, CHUNK, 1, CHUNK - 1),
                (3 * CHUNK, 5, 2, CHUNK - 2)
            ]
        );
        assert_eq!(chunks(10, 3).collect::<Vec<_>>(), [(0, 10, 0, 0)]);
        assert_eq!(chunks(0, 3).count(), 0);
        let mut seen = Vec::new();
        walk(&mut [0u8; 5], 3, (1, 2), |y, x, _| seen.push((y, x)));
        assert_eq!(seen, [(1, 2), (2, 0), (2, 1), (2, 2), (3, 0)]);
        assert!(matches!(host_buffer::<u64>(usize::MAX / 8), Err(Error::OutOfMemory { .. })));
    }

    #[test]
    fn words32_are_the_halves_of_words64() {
        let g = BitGrid::random(96, 3, 0.5, 1).unwrap();
        for y in 0..3 {
            let row: &[u32] = bytemuck::cast_slice(g.row(y));
            for (wx, &word) in row.iter().enumerate() {
                assert_eq!(word32(&g, y, wx), word, "little-endian halves");
            }
        }
    }
}
