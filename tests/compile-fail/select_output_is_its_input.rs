// A select writing into the buffer it reads (the output aliased with the input).
use warpwork::select::{state_len, Keep, Predicate, Variant};
use warpwork::Gpu;

fn main() -> warpwork::Result<()> {
    let gpu = Gpu::new(0)?;
    let mut items = gpu.upload(&[1u32, 2, 3])?;
    let mut state = gpu.zeros::<u64>(state_len::<u32>(Variant::Ordered, 3))?;
    gpu.select_into(&items, Keep::If(Predicate::Less(2)), Variant::Ordered, &mut items, &mut state)?;
    Ok(())
}
