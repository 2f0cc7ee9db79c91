//! What a band of a board split over several GPUs ([`crate::BandedLife`]) needs of its [`Life`]:
//! the device rows of the current generation, to exchange halos in place.

use super::Life;
use crate::transfer::Boards;
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
