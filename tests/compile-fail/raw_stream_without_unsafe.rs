// A raw `CUstream` handed over without `unsafe`: its validity is the caller's word.
use warpwork::Gpu;

fn main() -> warpwork::Result<()> {
    let gpu = Gpu::new(0)?;
    let s = gpu.context().new_stream()?;
    let _raw = gpu.on_raw_stream(s.cu_stream());
    Ok(())
}
