// A raw device pointer wrapped without `unsafe`: the address and length are the caller's word.
use warpwork::{RawSlice, RawSliceMut};

fn main() -> warpwork::Result<()> {
    let _r = RawSlice::<u32>::from_raw_parts(0x1000, 4)?;
    let _w = RawSliceMut::<u32>::from_raw_parts(0x1000, 4)?;
    Ok(())
}
