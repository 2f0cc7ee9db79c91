//! Moving a [`BitGrid`] to and from the device in a kernel's [`Layout`]. Boards are converted a
//! few rows at a time through a small host buffer, so a board of `u32` cells never needs a
//! `u32`-per-cell copy on the host (32 times the packed board).

use super::{grid::zeroed_words, BitGrid, Layout, Limits};
use crate::{DeviceBuffer, Error, Gpu, Result};
use bytemuck::Pod;

/// The two device boards (current and next generation) in a kernel's layout.
pub(super) enum Boards {
    U32([DeviceBuffer<u32>; 2]),
    U8([DeviceBuffer<u8>; 2]),
    Bits32([DeviceBuffer<u32>; 2]),
    Bits64([DeviceBuffer<u64>; 2]),
}

/// Cells converted per host-to-device (or back) copy: 4 MiB of `u32` cells.
const CHUNK_CELLS: usize = 1 << 20;

/// A host buffer of `n` default values, or [`Error::OutOfMemory`].
fn host_buffer<T: Pod>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::OutOfMemory {
        what: "Life transfer buffer",
        bytes: (n as u64).saturating_mul(size_of::<T>() as u64),
    })?;
    v.resize(n, T::zeroed());
    Ok(v)
}

/// Rows per chunk and the chunk's host buffer for a board `width` cells wide.
fn chunks<T: Pod>(width: usize, height: usize) -> Result<(usize, Vec<T>)> {
    let rows = (CHUNK_CELLS / width.max(1)).clamp(1, height.max(1));
    Ok((rows, host_buffer(rows * width)?))
}

/// `grid` as one `T` per cell (`alive` or zero) on the device, converted `CHUNK_CELLS` at a time.
fn upload_cells<T: Pod>(gpu: &Gpu, grid: &BitGrid, alive: T) -> Result<DeviceBuffer<T>> {
    let (w, h) = (grid.width(), grid.height());
    let mut board = gpu.zeros::<T>(w * h)?;
    let (rows, mut host) = chunks::<T>(w, h)?;
    for y0 in (0..h).step_by(rows) {
        let n = rows.min(h - y0);
        for (r, out) in host[..n * w].chunks_mut(w).enumerate() {
            let row = grid.row(y0 + r);
            for (x, c) in out.iter_mut().enumerate() {
                *c = if row[x / 64] >> (x % 64) & 1 != 0 { alive } else { T::zeroed() };
            }
        }
        let bytes = size_of::<T>();
        let mut dst = board.raw_mut().slice_mut(y0 * w * bytes..(y0 + n) * w * bytes);
        gpu.stream().memcpy_htod(bytemuck::cast_slice::<T, u8>(&host[..n * w]), &mut dst)?;
    }
    Ok(board)
}

/// Reads one `T` per cell back into a board (`is_alive` decides), `CHUNK_CELLS` at a time.
fn download_cells<T: Pod>(
    gpu: &Gpu,
    board: &DeviceBuffer<T>,
    width: usize,
    height: usize,
    is_alive: impl Fn(T) -> bool,
) -> Result<BitGrid> {
    let mut grid = readback_grid(width, height)?;
    let (rows, mut host) = chunks::<T>(width, height)?;
    let bytes = size_of::<T>();
    for y0 in (0..height).step_by(rows) {
        let n = rows.min(height - y0);
        let src = board.raw().slice(y0 * width * bytes..(y0 + n) * width * bytes);
        gpu.stream().memcpy_dtoh(&src, bytemuck::cast_slice_mut::<T, u8>(&mut host[..n * width]))?;
        for (r, cells) in host[..n * width].chunks(width).enumerate() {
            let row = grid.row_mut(y0 + r);
            for (x, &c) in cells.iter().enumerate() {
                row[x / 64] |= (is_alive(c) as u64) << (x % 64);
            }
        }
    }
    Ok(grid)
}

/// An empty board to read a device board back into. The device board was made from a board
/// that passed its limits, so the copy needs no second check (the caller's limits are not
/// known here); its allocation can still fail, as [`Error::OutOfMemory`].
fn readback_grid(width: usize, height: usize) -> Result<BitGrid> {
    BitGrid::with_limits(width, height, &Limits { max_cells: u64::MAX, max_bytes: u64::MAX })
}

/// The two boards of `layout` holding `grid`. `sparse` needs both equal at the start (its
/// skipped writes rely on it); the other kernels overwrite the second before reading it.
pub(super) fn upload(gpu: &Gpu, layout: Layout, sparse: bool, grid: &BitGrid) -> Result<Boards> {
    let (w, h) = (grid.width(), grid.height());
    Ok(match layout {
        Layout::U32 => {
            let a = upload_cells(gpu, grid, 1u32)?;
            let mut b = gpu.zeros(a.len())?;
            if sparse {
                gpu.copy(&a, &mut b)?;
            }
            Boards::U32([a, b])
        }
        Layout::U8 => {
            let a = upload_cells(gpu, grid, 1u8)?;
            let b = gpu.zeros(a.len())?;
            Boards::U8([a, b])
        }
        Layout::Bits32 if w % 64 == 0 => {
            // Rows of whole 64-bit words are rows of whole 32-bit words: no conversion.
            let a = gpu.upload::<u32>(bytemuck::cast_slice(grid.words()))?;
            let b = gpu.zeros(a.len())?;
            Boards::Bits32([a, b])
        }
        Layout::Bits32 => {
            // Each row ends with half a 64-bit word: drop the padding half, a chunk at a time.
            let per_row = w / 32;
            let mut a = gpu.zeros::<u32>(per_row * h)?;
            let (rows, mut host) = chunks::<u32>(per_row, h)?;
            for y0 in (0..h).step_by(rows) {
                let n = rows.min(h - y0);
                for (r, out) in host[..n * per_row].chunks_mut(per_row).enumerate() {
                    out.copy_from_slice(&bytemuck::cast_slice::<u64, u32>(grid.row(y0 + r))[..per_row]);
                }
                let mut dst = a.raw_mut().slice_mut(y0 * per_row * 4..(y0 + n) * per_row * 4);
                gpu.stream().memcpy_htod(bytemuck::cast_slice::<u32, u8>(&host[..n * per_row]), &mut dst)?;
            }
            let b = gpu.zeros(a.len())?;
            Boards::Bits32([a, b])
        }
        Layout::Bits64 => Boards::Bits64([gpu.upload(grid.words())?, gpu.zeros(grid.words().len())?]),
    })
}

/// Board `cur` of `boards`, read back (waits for the GPU).
pub(super) fn download(gpu: &Gpu, boards: &Boards, cur: usize, width: usize, height: usize) -> Result<BitGrid> {
    match boards {
        Boards::U32(b) => download_cells(gpu, &b[cur], width, height, |c| c & 1 != 0),
        Boards::U8(b) => download_cells(gpu, &b[cur], width, height, |c| c != 0),
        Boards::Bits32(b) if width % 64 == 0 => download_words(gpu, b[cur].raw(), width, height),
        Boards::Bits32(b) => {
            let per_row = width / 32;
            let mut grid = readback_grid(width, height)?;
            let (rows, mut host) = chunks::<u32>(per_row, height)?;
            for y0 in (0..height).step_by(rows) {
                let n = rows.min(height - y0);
                let src = b[cur].raw().slice(y0 * per_row * 4..(y0 + n) * per_row * 4);
                gpu.stream().memcpy_dtoh(&src, bytemuck::cast_slice_mut::<u32, u8>(&mut host[..n * per_row]))?;
                for (r, words) in host[..n * per_row].chunks(per_row).enumerate() {
                    bytemuck::cast_slice_mut::<u64, u32>(grid.row_mut(y0 + r))[..per_row].copy_from_slice(words);
                }
            }
            Ok(grid)
        }
        Boards::Bits64(b) => download_words(gpu, b[cur].raw(), width, height),
    }
}

/// A board whose rows are whole 64-bit words on the device, copied straight into its words.
fn download_words(gpu: &Gpu, raw: &cudarc::driver::CudaSlice<u8>, width: usize, height: usize) -> Result<BitGrid> {
    let n = width.div_ceil(64) * height;
    let mut words = zeroed_words(n, "Life board")?;
    if raw.len() != n * 8 {
        return Err(Error::InvalidInput(format!("device board of {} bytes is not {width}x{height}", raw.len())));
    }
    gpu.stream().memcpy_dtoh(raw, bytemuck::cast_slice_mut::<u64, u8>(&mut words))?;
    BitGrid::from_words(width, height, words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_wide_narrow_and_empty_boards() {
        let (rows, host) = chunks::<u32>(3, 10).unwrap();
        assert_eq!((rows, host.len()), (10, 30));
        let (rows, host) = chunks::<u8>(CHUNK_CELLS * 3, 2).unwrap();
        assert_eq!((rows, host.len()), (1, CHUNK_CELLS * 3));
        let (rows, _) = chunks::<u32>(1000, 1 << 20).unwrap();
        assert_eq!(rows, CHUNK_CELLS / 1000);
        assert!(matches!(host_buffer::<u64>(usize::MAX / 8), Err(Error::OutOfMemory { .. })));
    }
}
