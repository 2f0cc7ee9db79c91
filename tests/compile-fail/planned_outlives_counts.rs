// The pattern: the counts freed between pass 1 and pass 2. `Planned` borrows them.
use warpwork::expand::{Dispatch, Strategy};
use warpwork::Gpu;

fn main() -> warpwork::Result<()> {
    let gpu = Gpu::new(0)?;
    let counts = gpu.upload(&[3u32, 1, 4])?;
    let mut out = gpu.zeros::<[u32; 2]>(8)?;
    let mut e = gpu.expander(Strategy::ScanFused, 3, 8)?;
    let mut p = e.pass1(&gpu, &counts)?;
    drop(counts);
    p.pass2(&gpu, &mut out, Dispatch::Persistent)?;
    Ok(())
}
