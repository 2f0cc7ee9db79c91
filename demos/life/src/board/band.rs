//! What a band of a board split over several GPUs ([`crate::BandedLife`]) needs of its [`Life`]:
//! the device rows of the current generation, to exchange halos in place, and for a band kept
//! once the launches on its windows.

use super::Life;
use crate::transfer::{BoardRef, Boards, SourceRows};
use crate::Result;
use warpwork::cudarc::driver::CudaSlice;
use warpwork::Gpu;

/// The current generation's device board of a [`Life`], in its element type.
pub(crate) enum CurrentRows<'a> {
    /// `u32` cells, or 32-bit words of bits.
    U32(&'a mut CudaSlice<u32>),
    /// Byte cells.
    U8(&'a mut CudaSlice<u8>),
    /// 64-bit words of bits.
    U64(&'a mut CudaSlice<u64>),
}

impl<'g> Life<'g> {
    /// The device board holding the current generation, its elements per row, and the GPU it
    /// lives on. Writing rows of it changes the board that the next step reads (the spare board
    /// is left as it is: `sparse` relies on it holding the generation before).
    pub(crate) fn current_rows(&mut self) -> (CurrentRows<'_>, usize, &'g Gpu) {
        let cur = self.cur;
        let w = self.width;
        match &mut self.boards {
            Boards::U32(b) => (CurrentRows::U32(&mut b[cur]), w, self.gpu),
            Boards::U8(b) => (CurrentRows::U8(&mut b[cur]), w, self.gpu),
            Boards::Bits32(b) => (CurrentRows::U32(&mut b[cur]), w / 32, self.gpu),
            Boards::Bits64(b) => (CurrentRows::U64(&mut b[cur]), w / 64, self.gpu),
        }
    }
}

/// What a band kept once ([`crate::Bands::with_window`]) needs of the [`Life`] that steps its
/// windows: launches on the first rows of its boards, the first of a round reading the band.
impl<'g> Life<'g> {
    /// The next launch of a round with `left ≥ 1` generations to go, on the first `height`
    /// rows: from `src` (the window's rows of the band) where given, else from the current
    /// board, into the spare board, which becomes the current one. Returns the generations it
    /// advances (the board's generation count is not kept: the band keeps it).
    pub(crate) fn launch_window(&mut self, left: u64, height: usize, src: Option<SourceRows<'_>>) -> Result<u64> {
        let gens = self.launch_generations(left);
        self.launch(gens, height, src)?;
        self.cur ^= 1;
        Ok(gens as u64)
    }

    /// The current board, or the spare one (the window stepped before the last launch, while
    /// the launch after it has not been issued).
    pub(crate) fn board(&self, spare: bool) -> BoardRef<'_> {
        self.boards.get(self.cur ^ usize::from(spare))
    }

    /// The GPU the board lives on.
    pub(crate) fn gpu(&self) -> &'g Gpu {
        self.gpu
    }
}
