//! Counting a [`Life`] board's live cells on the device, all its rows or the first few (a band
//! of a board over several GPUs counts its own rows so).

use super::Life;
use crate::abi::kernels;
use crate::transfer::BoardRef;
use crate::Result;
use warpwork::cudarc::driver::LaunchConfig;

impl Life<'_> {
    /// Live cells of the first `rows` rows of the current generation (the board's memory from
    /// its start: no alignment to think of), counted on the device. Waits for the GPU.
    pub(crate) fn population_rows(&self, rows: usize) -> Result<u64> {
        self.count_rows(self.boards.get(self.cur), rows.min(self.height))
    }

    /// Live cells of the first `rows` rows of `board`, a board of this one's width and layout
    /// on its GPU (this board's, or a band's kept once), counted with this board's kernels.
    pub(crate) fn count_rows(&self, board: BoardRef<'_>, rows: usize) -> Result<u64> {
        // Which bits of each 32-bit word are cells: see `count_live` in the kernels.
        let mut total = self.gpu.zeros::<u64>(1)?;
        let w = self.width as u64;
        let (row_bytes, mask, len_bytes): (u64, u32, usize) = match board {
            BoardRef::U32(b) => (w * 4, 1, b.len() * 4),
            BoardRef::U8(b) => (w, 0x0101_0101, b.len()),
            BoardRef::Bits32(b) => (w / 32 * 4, u32::MAX, b.len() * 4),
            BoardRef::Bits64(b) => (w / 64 * 8, u32::MAX, b.len() * 8),
        };
        let n_bytes = (row_bytes * rows as u64).min(len_bytes as u64);
        let threads = 256u32;
        let blocks = n_bytes.div_ceil(4 * threads as u64).clamp(1, 8 * self.gpu.info().sm_count as u64) as u32;
        let f = self.kernels.get(kernels::POPULATION)?;
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 };
        let mut l = self.gpu.kernel_args();
        match board {
            BoardRef::U32(b) | BoardRef::Bits32(b) => l.read(b),
            BoardRef::U8(b) => l.read(b),
            BoardRef::Bits64(b) => l.read(b),
        };
        l.value(&n_bytes).value(&mask).write(&mut total);
        // SAFETY: `life_population(data, n_bytes, mask, total)`; the board holds at least
        // `n_bytes` bytes (a fresh allocation, so 4-byte aligned) and `total` one u64.
        unsafe { l.launch(f, cfg)? };
        Ok(self.gpu.download(&total)?[0])
    }
}
