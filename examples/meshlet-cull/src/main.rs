//! Toy GPU-driven culling: meshes are culled against a plane (pass 1, `cull_meshes`); every
//! visible mesh spawns one pass-2 item per meshlet, and pass 2 (`cull_meshlets`) culls the
//! meshlets. Both kernels are this example's own (`kernels/`), built on warpwork-kernels'
//! expansion building blocks; the host drives them through `warpwork::expand::Expander`.
//! The result is checked against the same culling on the CPU.

use bytemuck::{Pod, Zeroable};
use cudarc::driver::LaunchConfig;
use cudarc::nvrtc::Ptx;
use warpwork::abi::expand::PUSH_ITEMS;
use warpwork::expand::{Strategy, THREADS};
use warpwork::Gpu;

/// Built by `kernels/` (see README.md) and checked in, like warpwork's own PTX.
const PTX: &str = include_str!("../kernels/meshlet_cull_sm_70.ptx");

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Mesh {
    center: [f32; 3],
    radius: f32,
    first_meshlet: u32,
    meshlets: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Meshlet {
    center: [f32; 3],
    radius: f32,
}

/// A small deterministic generator (no extra dependencies).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    fn unit(&mut self) -> f32 {
        self.next() as f32 / (1u32 << 31) as f32 * 2.0 - 1.0
    }
}

fn visible(p: [f32; 4], c: [f32; 3], r: f32) -> bool {
    p[0] * c[0] + p[1] * c[1] + p[2] * c[2] + p[3] + r >= 0.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::new(0)?;
    let module = gpu.context().load_module(Ptx::from_src(PTX))?;
    let cull_meshes = module.load_function("cull_meshes")?;
    let cull_meshlets = module.load_function("cull_meshlets")?;

    // 200k meshes of 1..=128 meshlets (a few of 4096), scattered in a cube; the plane x >= 0.
    let mut rng = Lcg(42);
    let n = 200_000usize;
    let (mut meshes, mut meshlets) = (Vec::with_capacity(n), Vec::new());
    for i in 0..n {
        let c = [rng.unit() * 100.0, rng.unit() * 100.0, rng.unit() * 100.0];
        let k = if i % 5000 == 0 { 4096 } else { 1 + rng.next() % 128 };
        meshes.push(Mesh { center: c, radius: 2.0, first_meshlet: meshlets.len() as u32, meshlets: k });
        for _ in 0..k {
            let d = [rng.unit() * 2.0, rng.unit() * 2.0, rng.unit() * 2.0];
            meshlets.push(Meshlet { center: [c[0] + d[0], c[1] + d[1], c[2] + d[2]], radius: 0.1 });
        }
    }
    let plane = [1.0f32, 0.0, 0.0, 0.0];

    let d_meshes = gpu.upload(&meshes)?;
    let d_meshlets = gpu.upload(&meshlets)?;
    let d_plane = gpu.upload(&plane)?;
    let mut out = gpu.zeros::<u32>(meshlets.len())?;
    let mut out_count = gpu.zeros::<u32>(1)?;

    for strategy in [Strategy::Po2Buckets] {
        let mut e = gpu.expander(strategy, n, meshlets.len())?;
        gpu.fill_bytes(&mut out_count, 0)?;
        // Pass 1: our own kernel, pushing into the expander's buckets.
        let mut planned = e.pass1_by_own_kernel(&gpu, n)?;
        let n32 = n as u32;
        let cfg = LaunchConfig {
            grid_dim: (n32.div_ceil(PUSH_ITEMS as u32 * THREADS), 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        // The view first, with the expander's workspace (which the kernel writes) bound.
        let mut l = planned.pass1_args(&gpu)?;
        l.read(&d_meshes).value(&n32).read(&d_plane);
        // SAFETY: matches `cull_meshes(view, meshes, n, plane)`.
        unsafe { l.launch(&cull_meshes, cfg)? };
        // Pass 2: our own kernel through the expander (persistent grid, count read on the device).
        // SAFETY: matches `cull_meshlets(view, meshes, meshlets, plane, out, out_count)`.
        unsafe {
            planned.pass2_with(&gpu, &cull_meshlets, |l| {
                l.read(&d_meshes).read(&d_meshlets).read(&d_plane);
                l.write(&mut out).write(&mut out_count);
            })?
        };
        let items = planned.count(&gpu)?;
        let kept = gpu.download(&out_count)?[0] as usize;
        let mut got = gpu.download_prefix(&out, kept)?;
        got.sort_unstable();

        let mut want = Vec::new();
        let mut want_items = 0;
        for m in &meshes {
            if visible(plane, m.center, m.radius) {
                want_items += m.meshlets as usize;
                for id in m.first_meshlet..m.first_meshlet + m.meshlets {
                    let s = meshlets[id as usize];
                    if visible(plane, s.center, s.radius) {
                        want.push(id);
                    }
                }
            }
        }
        assert_eq!(items, want_items, "pass-2 items");
        assert_eq!(got, want, "visible meshlets");
        println!(
            "{}: {} meshes, {} meshlets; {} pass-2 items (meshlets of visible meshes); {} visible meshlets — matches the CPU",
            strategy.name(),
            n,
            meshlets.len(),
            items,
            kept
        );
    }
    Ok(())
}
