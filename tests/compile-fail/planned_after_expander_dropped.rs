// A `Planned` used after its expander (and the workspace its kernels use) is dropped.
use warpwork::expand::{Dispatch, Strategy};
use warpwork::Gpu;

fn main() -> warpwork::Result<()> {
    let gpu = Gpu::new(0)?;
    let counts = gpu.upload(&[3u32, 1, 4])?;
    let mut out = gpu.zeros::<[u32; 2]>(8)?;
    let mut e = gpu.expander(Strategy::ScanFused, 3, 8)?;
    let mut p = e.pass1(&gpu, &counts)?;
    drop(e);
    p.pass2(&gpu, &mut out, Dispatch::Persistent)?;
    Ok(())
}
