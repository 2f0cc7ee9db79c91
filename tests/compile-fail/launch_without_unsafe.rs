// A launch of a kernel without `unsafe`: the arguments' match with the kernel is the caller's word.
use warpwork::cudarc::driver::LaunchConfig;
use warpwork::Gpu;

fn main() -> warpwork::Result<()> {
    let gpu = Gpu::new(0)?;
    let f = gpu.function("hold_stream")?;
    let mut v = gpu.zeros::<u32>(4)?;
    let mut l = gpu.kernel_args();
    l.write(&mut v);
    l.launch(f, LaunchConfig::for_num_elems(4))?;
    Ok(())
}
