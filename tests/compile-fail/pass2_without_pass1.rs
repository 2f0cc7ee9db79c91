// Pass 2 before any pass 1: the expander has no pass 2; only the `Planned` that pass 1 returns.
use warpwork::expand::{Dispatch, Strategy};
use warpwork::Gpu;

fn main() -> warpwork::Result<()> {
    let gpu = Gpu::new(0)?;
    let mut out = gpu.zeros::<[u32; 2]>(8)?;
    let mut e = gpu.expander(Strategy::ScanFused, 3, 8)?;
    e.pass2(&gpu, &mut out, Dispatch::Persistent)?;
    Ok(())
}
