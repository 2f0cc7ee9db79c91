//! What a band of a board split over several GPUs ([`crate::BandedLife`]) needs of its [`Life`]:
//! the device rows of the current generation, to exchange halos in place, and for a band kept
//! once the launches on its windows.

use super::{Life, WindowOut};
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
/// windows: launches on the first rows of its boards, the first of a round reading the band,
/// the last writing into it.
impl<'g> Life<'g> {
    /// The generations the next launch of a round advances when `left ≥ 1` remain.
    pub(crate) fn window_generations(&self, left: u64) -> u64 {
        self.launch_generations(left) as u64
    }

    /// The next launch of a round with `left ≥ 1` generations to go, on the first `height`
    /// rows: from `src` (the window's rows of the band) where given, else from the current
    /// board; into `out` where given (the round's last launch: [`Life::window_generations`]
    /// is `left`), else into the spare board, which becomes the current one. Returns the
    /// generations it advances (the board's generation count is not kept: the band keeps it).
    pub(crate) fn launch_window(
        &mut self,
        left: u64,
        height: usize,
        src: Option<SourceRows<'_>>,
        out: Option<WindowOut<'_>>,
    ) -> Result<u64> {
        let gens = self.launch_generations(left);
        let into_band = out.is_some();
        if into_band && gens as u64 != left {
            return Err(crate::Error::InvalidInput("a window writes into its band on its round's last launch".into()));
        }
        self.launch(gens, height, src, out)?;
        if !into_band {
            self.cur ^= 1;
        }
        Ok(gens as u64)
    }

    /// The current board (for a band kept once: the window just stepped, where its last
    /// launch did not write into the band).
    pub(crate) fn board(&self) -> BoardRef<'_> {
        self.boards.get(self.cur)
    }

    /// The GPU the board lives on.
    pub(crate) fn gpu(&self) -> &'g Gpu {
        self.gpu
    }
}
