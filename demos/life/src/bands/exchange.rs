//! The halo exchange: every rank's first `d` rows to the rank above, its last `d` rows to the
//! rank below, through NCCL's send and receive, all ranks in one group.

use crate::board::CurrentRows;
use crate::{Error, Life, Result};
use warpwork::cudarc::driver::{CudaSlice, CudaViewMut, DeviceRepr};
use warpwork::cudarc::nccl::{result as nccl, Comm, NcclType};
use warpwork::multi::Gpus;
use warpwork::Gpu;

/// An NCCL failure as warpwork's error.
fn nccl_error(e: nccl::NcclError) -> Error {
    Error::Nccl(e.0)
}

/// A band's board of `h + 2d` rows as the exchange writes it.
pub(super) struct BandBoard<'a> {
    /// The device board holding the current generation.
    pub(super) rows: CurrentRows<'a>,
    /// The board's row where the band starts (its first halo row).
    pub(super) first_row: usize,
    /// Elements per row.
    pub(super) per_row: usize,
    /// The board's GPU.
    pub(super) gpu: &'a Gpu,
}

/// What the exchange needs of a band: its board.
pub(super) trait BandRows {
    fn band_rows(&mut self) -> BandBoard<'_>;
}

impl BandRows for Life<'_> {
    fn band_rows(&mut self) -> BandBoard<'_> {
        let (rows, per_row, gpu) = self.current_rows();
        BandBoard { rows, first_row: 0, per_row, gpu }
    }
}

/// Refreshes every band's halos from its neighbours' rows (`heights[r]` rows of rank `r`,
/// halos of `d` rows, each band at least `d` rows: checked by the plan). Asynchronous on each
/// rank's stream, ordered after the steps issued before.
pub(super) fn exchange<B: BandRows>(gpus: &Gpus, bands: &mut [B], heights: &[usize], d: usize) -> Result<()> {
    let n = bands.len();
    if n == 1 {
        return wrap_in_place(&mut bands[0], heights[0], d);
    }
    nccl::group_start().map_err(nccl_error)?;
    let mut result = Ok(());
    for (rank, band) in bands.iter_mut().enumerate() {
        let (up, down) = (((rank + n - 1) % n) as i32, ((rank + 1) % n) as i32);
        let comm = gpus.comm(rank);
        let BandBoard { rows, first_row, per_row, gpu } = band.band_rows();
        let at = (first_row, per_row, heights[rank], d);
        result = gpu.context().bind_to_thread().map_err(Error::from).and_then(|()| match rows {
            CurrentRows::U32(b) => issue(comm, b, at, up, down),
            CurrentRows::U8(b) => issue(comm, b, at, up, down),
            CurrentRows::U64(b) => issue(comm, b, at, up, down),
        });
        if result.is_err() {
            break;
        }
    }
    // The group is closed even after a failure, so that NCCL is not left inside it.
    let end = nccl::group_end().map_err(nccl_error);
    result.and(end.map(|_| ()))
}

/// One rank's part of the exchange on its band of `h + 2d` rows of `per_row` elements from
/// row `first` of `board` (`at = (first, per_row, h, d)`): sends band rows `d .. 2d` to `up` and `h .. h + d` to `down`,
/// receives into rows `h + d .. h + 2d` from `down` and `0 .. d` from `up`. With two ranks
/// `up` and `down` are the same peer, and NCCL matches the messages between two ranks in the
/// order they are issued: the first send (the top rows) meets the peer's first receive (its
/// bottom halo), as it must.
fn issue<T: NcclType + DeviceRepr>(
    comm: &Comm,
    board: &mut CudaSlice<T>,
    at: (usize, usize, usize, usize),
    up: i32,
    down: i32,
) -> Result<()> {
    let (_, per_row, h, d) = at;
    with_band(board, at, |mut top_halo, own, mut bottom_halo| {
        comm.send(&own.slice(..d * per_row), up).map_err(nccl_error)?;
        comm.send(&own.slice((h - d) * per_row..), down).map_err(nccl_error)?;
        comm.recv(&mut bottom_halo, down).map_err(nccl_error)?;
        comm.recv(&mut top_halo, up).map_err(nccl_error)?;
        Ok(())
    })
}

/// The exchange of a single rank, its own upper and lower neighbour: two copies on its device.
fn wrap_in_place(band: &mut impl BandRows, h: usize, d: usize) -> Result<()> {
    let BandBoard { rows, first_row, per_row, gpu } = band.band_rows();
    fn copy<T: DeviceRepr>(gpu: &Gpu, board: &mut CudaSlice<T>, at: (usize, usize, usize, usize)) -> Result<()> {
        let (_, per_row, h, d) = at;
        with_band(board, at, |mut top_halo, own, mut bottom_halo| {
            gpu.stream().memcpy_dtod(&own.slice(..d * per_row), &mut bottom_halo)?;
            gpu.stream().memcpy_dtod(&own.slice((h - d) * per_row..), &mut top_halo)?;
            Ok(())
        })
    }
    let at = (first_row, per_row, h, d);
    match rows {
        CurrentRows::U32(b) => copy(gpu, b, at),
        CurrentRows::U8(b) => copy(gpu, b, at),
        CurrentRows::U64(b) => copy(gpu, b, at),
    }
}

/// `f(top halo, own rows, bottom halo)` of a band of `h + 2d` rows of `per_row` elements from
/// row `first` of `board`.
fn with_band<T, R>(
    board: &mut CudaSlice<T>,
    (first, per_row, h, d): (usize, usize, usize, usize),
    f: impl FnOnce(CudaViewMut<'_, T>, CudaViewMut<'_, T>, CudaViewMut<'_, T>) -> R,
) -> R {
    let (_, mut band) = board.split_at_mut(first * per_row);
    let (top_halo, mut rest) = band.split_at_mut(d * per_row);
    let (own, mut rest) = rest.split_at_mut(h * per_row);
    let (bottom_halo, _) = rest.split_at_mut(d * per_row);
    f(top_halo, own, bottom_halo)
}
