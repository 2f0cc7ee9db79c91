// A pass-2 argument that lives only inside the closure: it would be freed before the launch.
use warpwork::expand::Strategy;
use warpwork::Gpu;

fn main() -> warpwork::Result<()> {
    let gpu = Gpu::new(0)?;
    let counts = gpu.upload(&[3u32, 1, 4])?;
    let f = gpu.function("expand_for_each_histogram")?;
    let mut e = gpu.expander(Strategy::ScanBinarySearch, 3, 8)?;
    let mut p = e.pass1(&gpu, &counts)?;
    unsafe {
        p.pass2_with(&gpu, f, |l| {
            let mut hits = gpu.zeros::<u32>(3).unwrap();
            l.write(&mut hits);
        })?
    };
    Ok(())
}
