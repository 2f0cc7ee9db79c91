// Writing the counts while a `Planned` (whose kernels read them) lives.
use warpwork::expand::{Dispatch, Strategy};
use warpwork::Gpu;

fn main() -> warpwork::Result<()> {
    let gpu = Gpu::new(0)?;
    let mut counts = gpu.upload(&[3u32, 1, 4])?;
    let mut out = gpu.zeros::<[u32; 2]>(8)?;
    let mut e = gpu.expander(Strategy::ScanBinarySearch, 3, 8)?;
    let mut p = e.pass1(&gpu, &counts)?;
    gpu.upload_into(&[9, 9, 9], &mut counts)?;
    p.pass2(&gpu, &mut out, Dispatch::Persistent)?;
    Ok(())
}
