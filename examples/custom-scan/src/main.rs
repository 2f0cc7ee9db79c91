//! A scan with a type and an operator of its own — affine maps `x ↦ a·x + b` (mod 2^32) under
//! composition, which is associative but not commutative — from this example's kernel
//! (`kernels/`, built on warpwork-kernels' warp and block building blocks), launched through
//! warpwork's `Gpu` on the caller's buffers, and checked against the same scan on the CPU.

use bytemuck::{Pod, Zeroable};
use warpwork::cudarc::driver::LaunchConfig;
use warpwork::cudarc::nvrtc::Ptx;
use warpwork::Gpu;

/// Built by `kernels/` (see README.md) and checked in, like warpwork's own PTX.
const PTX: &str = include_str!("../kernels/custom_scan_sm_70.ptx");
/// `THREADS` and `SEGMENT` of the kernels: a block of 256 threads scans 1024 maps.
const THREADS: u32 = 256;
const SEGMENT: usize = 1024;

/// `x ↦ a·x + b (mod 2^32)`, laid out as the kernel's `Affine`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
struct Affine {
    a: u32,
    b: u32,
}

impl Affine {
    const IDENTITY: Affine = Affine { a: 1, b: 0 };

    /// `self`, then `next`.
    fn then(self, next: Affine) -> Affine {
        Affine { a: next.a.wrapping_mul(self.a), b: next.a.wrapping_mul(self.b).wrapping_add(next.b) }
    }
}

/// The CPU reference: each segment composed left to right.
fn scan_segments(maps: &[Affine]) -> Vec<Affine> {
    let mut out = Vec::with_capacity(maps.len());
    for segment in maps.chunks(SEGMENT) {
        let mut acc = Affine::IDENTITY;
        for &m in segment {
            acc = acc.then(m);
            out.push(acc);
        }
    }
    out
}

/// A small deterministic generator (no extra dependencies).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 32) as u32
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::new(0)?;
    let module = gpu.context().load_module(Ptx::from_src(PTX))?;
    let scan = module.load_function("affine_scan_segments")?;

    let mut rng = Lcg(7);
    for n in [1usize, 31, 1000, 1024, 1025, 1 << 20, (1 << 22) + 17] {
        let maps: Vec<Affine> = (0..n).map(|_| Affine { a: rng.next() | 1, b: rng.next() }).collect();
        let input = gpu.upload(&maps)?;
        let mut out = gpu.filled::<Affine>(n + 1, 0xAB)?; // one poisoned map past the end
        let n32 = n as u32;
        let cfg = LaunchConfig {
            grid_dim: (n.div_ceil(SEGMENT) as u32, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut l = gpu.kernel_args();
        l.read(&input).write(&mut out).value(&n32);
        // SAFETY: matches `affine_scan_segments(input, out, n)`: `input` holds `n` maps and `out`
        // more; one block per segment, 256 threads each.
        unsafe { l.launch(&scan, cfg)? };
        let got = gpu.download(&out)?;
        let want = scan_segments(&maps);
        if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
            return Err(format!("n = {n}: map {i} is {:?}, the CPU says {:?}", got[i], want[i]).into());
        }
        if got[n] != (Affine { a: 0xABAB_ABAB, b: 0xABAB_ABAB }) {
            return Err(format!("n = {n}: the kernel wrote past the end").into());
        }
    }
    println!("custom scan (affine maps under composition, segments of {SEGMENT}): matches the CPU");
    Ok(())
}
