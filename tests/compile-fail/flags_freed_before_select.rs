// The flags of a `Keep::Flagged` freed before the select that reads them.
use warpwork::select::{state_len, Keep, Variant};
use warpwork::Gpu;

fn main() -> warpwork::Result<()> {
    let gpu = Gpu::new(0)?;
    let items = gpu.upload(&[1u32, 2, 3])?;
    let mut out = gpu.zeros::<u32>(3)?;
    let mut state = gpu.zeros::<u64>(state_len::<u32>(Variant::Block, 3))?;
    let keep = {
        let flags = gpu.upload(&[1u8, 0, 1])?;
        Keep::Flagged(&flags)
    };
    gpu.select_into(&items, keep, Variant::Block, &mut out, &mut state)?;
    Ok(())
}
