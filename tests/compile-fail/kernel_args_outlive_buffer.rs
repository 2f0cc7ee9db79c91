// A buffer pushed into an argument list, then freed before the launch.
use warpwork::cudarc::driver::LaunchConfig;
use warpwork::Gpu;

fn main() -> warpwork::Result<()> {
    let gpu = Gpu::new(0)?;
    let f = gpu.function("hold_stream")?;
    let mut l = gpu.kernel_args();
    {
        let v = gpu.zeros::<u32>(4)?;
        l.read(&v);
    }
    unsafe { l.launch(f, LaunchConfig::for_num_elems(4))? };
    Ok(())
}
