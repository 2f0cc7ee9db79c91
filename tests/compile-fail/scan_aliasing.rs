// A scan whose output is its own input, mutably aliased.
use warpwork::Gpu;

fn main() -> warpwork::Result<()> {
    let gpu = Gpu::new(0)?;
    let mut v = gpu.upload(&[1u32, 2, 3])?;
    gpu.exclusive_scan(&v, &mut v)?;
    Ok(())
}
