//! The halo exchange: every rank's first `d` rows to the rank above, its last `d` rows to the
//! rank below, through NCCL's send and receive, all ranks in one group.

use crate::board::CurrentRows;
use crate::{Error, Life, Result};
use warpwork::cudarc::driver::{CudaSlice, DeviceRepr};
use warpwork::cudarc::nccl::{result as nccl, Comm, NcclType};
use warpwork::multi::Gpus;
use warpwork::Gpu;

/// An NCCL failure as warpwork's error.
fn nccl_error(e: nccl::NcclError) -> Error {
    Error::Nccl(e.0)
}

/// A band's board of `h + 2d` rows as the exchange writes it: the device board holding the
/// current generation, its elements per row, and its GPU.
pub(super) trait BandRows {
    fn band_rows(&mut self) -> (CurrentRows<'_>, usize, &Gpu);
}

impl BandRows for Life<'_> {
    fn band_rows(&mut self) -> (CurrentRows<'_>, usize, &Gpu) {
        self.current_rows()
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
        let (rows, per_row, gpu) = band.band_rows();
        result = gpu.context().bind_to_thread().map_err(Error::from).and_then(|()| match rows {
            CurrentRows::U32(b) => issue(comm, b, per_row, heights[rank], d, up, down),
            CurrentRows::U8(b) => issue(comm, b, per_row, heights[rank], d, up, down),
            CurrentRows::U64(b) => issue(comm, b, per_row, heights[rank], d, up, down),
        });
        if result.is_err() {
            break;
        }
    }
    // The group is closed even after a failure, so that NCCL is not left inside it.
    let end = nccl::group_end().map_err(nccl_error);
    result.and(end.map(|_| ()))
}

/// One rank's part of the exchange on its board of `h + 2d` rows of `per_row` elements: sends
/// rows `d .. 2d` to `up` and `h .. h + d` to `down`, receives into rows `h + d .. h + 2d` from
/// `down` and `0 .. d` from `up`. With two ranks `up` and `down` are the same peer, and NCCL
/// matches the messages between two ranks in the order they are issued: the first send (the
/// top rows) meets the peer's first receive (its bottom halo), as it must.
fn issue<T: NcclType + DeviceRepr>(
    comm: &Comm,
    board: &mut CudaSlice<T>,
    per_row: usize,
    h: usize,
    d: usize,
    up: i32,
    down: i32,
) -> Result<()> {
    let (mut top_halo, mut rest) = board.split_at_mut(d * per_row);
    let (own, mut bottom_halo) = rest.split_at_mut(h * per_row);
    comm.send(&own.slice(..d * per_row), up).map_err(nccl_error)?;
    comm.send(&own.slice((h - d) * per_row..), down).map_err(nccl_error)?;
    comm.recv(&mut bottom_halo, down).map_err(nccl_error)?;
    comm.recv(&mut top_halo, up).map_err(nccl_error)?;
    Ok(())
}

/// The exchange of a single rank, its own upper and lower neighbour: two copies on its device.
fn wrap_in_place(band: &mut impl BandRows, h: usize, d: usize) -> Result<()> {
    let (rows, per_row, gpu) = band.band_rows();
    fn copy<T: DeviceRepr>(
        gpu: &warpwork::Gpu,
        board: &mut CudaSlice<T>,
        per_row: usize,
        h: usize,
        d: usize,
    ) -> Result<()> {
        let (mut top_halo, mut rest) = board.split_at_mut(d * per_row);
        let (own, mut bottom_halo) = rest.split_at_mut(h * per_row);
        gpu.stream().memcpy_dtod(&own.slice(..d * per_row), &mut bottom_halo)?;
        gpu.stream().memcpy_dtod(&own.slice((h - d) * per_row..), &mut top_halo)?;
        Ok(())
    }
    match rows {
        CurrentRows::U32(b) => copy(gpu, b, per_row, h, d),
        CurrentRows::U8(b) => copy(gpu, b, per_row, h, d),
        CurrentRows::U64(b) => copy(gpu, b, per_row, h, d),
    }
}
