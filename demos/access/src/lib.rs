//! # warpwork-access
//!
//! Memory access patterns on the GPU: warp broadcast loads and list partitioning, each a
//! workload around one of `warpwork-kernels`' device building blocks, measured against its naive
//! form (see `docs/access.md` in the repository). A demonstration built on warpwork's public API
//! the way a user's crate is: its kernels are its own crate (`kernels/`), shipped as PTX that
//! [`Access::new`] loads into the [`Gpu`]'s context; it launches them with
//! [`Gpu::kernel_args`]. Errors are warpwork's [`Error`].
//!
//! ```no_run
//! use warpwork::Gpu;
//! use warpwork_access::{Access, Partition, Step};
//! let gpu = Gpu::new(0)?;
//! let access = Access::new(&gpu)?; // loads the module once
//! let mut pos = gpu.upload(&[[0.0f32, 10.0, 0.0, 1.0]; 1000])?;
//! let mut vel = gpu.zeros::<[f32; 4]>(1000)?;
//! access.update_particles(&mut pos, &mut vel, Step { dt: 0.01, gravity: [0.0, -9.81, 0.0] }, Partition::GroupWise, 4)?;
//! # Ok::<(), warpwork::Error>(())
//! ```
//!
//! **Tiled lighting** ([`Access::shade_tiles`]): 8×8-pixel tiles, each with a list of lights
//! ([`TileLights`]) into one [`Light`] array; every pixel of a tile accumulates every light of
//! its list. The [`LightingKernel`] picks how a warp walks the (warp-uniform) list:
//!
//! | [`LightingKernel`] | loads per 32 lights and warp | then per light |
//! |---|---|---|
//! | `Naive` | 32 × 2 (every lane, same address) | — |
//! | `Broadcast` | 2 (one light per lane) | 8 `shfl.sync.idx` (one per word) |
//! | `Staged` | 2, stored to shared memory | 2 shared loads at a uniform address |
//!
//! **Particle update** ([`Access::update_particles`]): one Euler step of `n` particles (a position
//! and a velocity of four `f32`s each: 32 bytes read and 32 written per particle), with the list
//! split between threads in one of three [`Partition`] orders.
//!
//! [`cpu`] holds the CPU references the tests check every kernel against (rayon, written
//! independently of the kernels) and the seeded generators of lights, tiles and particles.

#[path = "../kernels/src/abi/mod.rs"]
pub mod abi;
pub mod cpu;
mod module;

use abi::{kernels, lighting, particles};
use warpwork::cudarc::driver::{CudaSlice, LaunchConfig};
use warpwork::{DeviceRead, DeviceWrite, Error, Gpu, Kernels, Result};

pub use abi::lighting::{tile_grid, Light, Shading, TileLights, TILE};
pub use abi::particles::Step;

/// Largest grid y dimension CUDA allows: the most tile rows one launch can shade.
const MAX_GRID_Y: u32 = 65_535;
/// Largest grid x dimension CUDA allows (2^31 − 1): the most particle blocks of one launch.
const MAX_GRID_X: u64 = i32::MAX as u64;

/// Returns [`Error::InvalidInput`] built from a format string when `cond` is false (warpwork's
/// own helper is private: a demo uses the public API only).
macro_rules! ensure_input {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(Error::InvalidInput(format!($($msg)+)));
        }
    };
}

/// How the warps of a lighting tile walk its light list; see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LightingKernel {
    /// Every lane loads every light (a warp-uniform address per load).
    Naive,
    /// One coalesced load per 32 lights, then `shfl.sync.idx` broadcasts (sebbbi's "WaveLane").
    Broadcast,
    /// One coalesced load per 32 lights into shared memory, then uniform-address shared loads.
    Staged,
}

impl LightingKernel {
    /// Every kernel, the baseline first.
    pub const ALL: [LightingKernel; 3] = [LightingKernel::Naive, LightingKernel::Broadcast, LightingKernel::Staged];

    /// Lower-case name, as in kernel names and bench tables.
    ///
    /// # Examples
    /// ```
    /// assert_eq!(warpwork_access::LightingKernel::Broadcast.name(), "broadcast");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            LightingKernel::Naive => "naive",
            LightingKernel::Broadcast => "broadcast",
            LightingKernel::Staged => "staged",
        }
    }

    /// The kernel of this walk with `shading`.
    fn kernel(self, shading: Shading) -> &'static str {
        match (shading, self) {
            (Shading::Point, LightingKernel::Naive) => kernels::LIGHTING_NAIVE,
            (Shading::Point, LightingKernel::Broadcast) => kernels::LIGHTING_BROADCAST,
            (Shading::Point, LightingKernel::Staged) => kernels::LIGHTING_STAGED,
            (Shading::Raw, LightingKernel::Naive) => kernels::LIGHTING_RAW_NAIVE,
            (Shading::Raw, LightingKernel::Broadcast) => kernels::LIGHTING_RAW_BROADCAST,
            (Shading::Raw, LightingKernel::Staged) => kernels::LIGHTING_RAW_STAGED,
        }
    }
}

/// Which indices of the particle list each thread processes (warpwork-kernels'
/// `device::partition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Partition {
    /// Thread `g` takes items `g·k .. g·k + k` (contiguous per thread: the CPU habit).
    ThreadWise,
    /// A block takes a tile of `k · 256` items and walks it together: step `j` of thread `t` is
    /// `tile + j·256 + t` (coalesced; 256 is [`abi::particles::THREADS`]).
    GroupWise,
    /// The grid walks the list together (grid-stride loop), with `ceil(n / (k · 256))` blocks.
    GridStride,
}

impl Partition {
    /// Every partition, the CPU-style one first.
    pub const ALL: [Partition; 3] = [Partition::ThreadWise, Partition::GroupWise, Partition::GridStride];

    /// Snake-case name, as in kernel names and bench tables.
    ///
    /// # Examples
    /// ```
    /// assert_eq!(warpwork_access::Partition::GroupWise.name(), "group_wise");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Partition::ThreadWise => "thread_wise",
            Partition::GroupWise => "group_wise",
            Partition::GridStride => "grid_stride",
        }
    }

    /// The particle-update kernel of this partition.
    fn kernel(self) -> &'static str {
        match self {
            Partition::ThreadWise => kernels::PARTICLES_THREAD_WISE,
            Partition::GroupWise => kernels::PARTICLES_GROUP_WISE,
            Partition::GridStride => kernels::PARTICLES_GRID_STRIDE,
        }
    }
}

/// The access-pattern kernels loaded into one [`Gpu`]'s context, launched on that handle's
/// stream. Make one per handle and keep it: [`Access::new`] looks up the kernels (the first on a
/// context loads the module, and the driver compiles its PTX), every call after that only launches.
pub struct Access<'g> {
    gpu: &'g Gpu,
    kernels: Kernels,
}

impl std::fmt::Debug for Access<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Access").field("gpu", self.gpu).finish_non_exhaustive()
    }
}

impl<'g> Access<'g> {
    /// Loads the kernels into `gpu`'s context; calls on the result are issued to `gpu`'s stream.
    ///
    /// # Examples
    /// ```no_run
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let access = warpwork_access::Access::new(&gpu)?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn new(gpu: &'g Gpu) -> Result<Self> {
        Ok(Access { gpu, kernels: gpu.kernels(&module::DEVICE_CODE, &kernels::KERNELS)? })
    }

    /// The handle whose context and stream this uses.
    ///
    /// # Examples
    /// ```no_run
    /// let gpu = warpwork::Gpu::new(0)?;
    /// let access = warpwork_access::Access::new(&gpu)?;
    /// assert_eq!(access.gpu().cu_stream(), gpu.cu_stream());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn gpu(&self) -> &'g Gpu {
        self.gpu
    }

    /// Shades a `width × height` image (row-major, one `[r, g, b, weight]` per pixel) from one
    /// light list per tile (`tile_grid(width, height)` tiles, row-major). A list reaching past the
    /// end of `lights` is cut at its end. **Allocates** the image; asynchronous; the CPU twin is
    /// [`cpu::lighting::shade`].
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork_access::{tile_grid, Access, Light, LightingKernel, TileLights};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let access = Access::new(&gpu)?;
    /// let (w, h) = (64, 32);
    /// let light = Light { position: [32.0, 16.0, 4.0], radius: 40.0, color: [1.0, 0.5, 0.2], intensity: 2.0 };
    /// let (tx, ty) = tile_grid(w, h); // 8×8-pixel tiles
    /// let lists = vec![TileLights { start: 0, count: 1 }; (tx * ty) as usize]; // every tile sees it
    /// let (lights, tiles) = (gpu.upload(&[light])?, gpu.upload(&lists)?);
    /// let image = access.shade_tiles(w, h, &lights, &tiles, LightingKernel::Broadcast)?;
    /// assert_eq!(gpu.download(&image)?.len(), 64 * 32);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn shade_tiles(
        &self,
        width: u32,
        height: u32,
        lights: &impl DeviceRead<Light>,
        tiles: &impl DeviceRead<TileLights>,
        kernel: LightingKernel,
    ) -> Result<CudaSlice<[f32; 4]>> {
        let mut out = self.gpu.zeros::<[f32; 4]>(width as usize * height as usize)?;
        self.shade_tiles_into(width, height, lights, tiles, Shading::Point, kernel, &mut out)?;
        Ok(out)
    }

    /// [`Access::shade_tiles`] into an existing image of `width · height` pixels, with a choice
    /// of [`Shading`]: `Point` lights, or `Raw` (the "WaveLane" microbenchmark: sum the
    /// light records; the CPU twin is [`cpu::lighting::shade_with`]). Allocates nothing; asynchronous;
    /// capturable into a CUDA graph (as warpwork's own launches are).
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork_access::{tile_grid, Access, Light, LightingKernel, Shading, TileLights};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let access = Access::new(&gpu)?;
    /// let (w, h) = (16, 16);
    /// let lights = gpu.upload(&[Light { position: [8.0, 8.0, 1.0], radius: 20.0, color: [1.0; 3], intensity: 1.0 }])?;
    /// let (tx, ty) = tile_grid(w, h);
    /// let tiles = gpu.upload(&vec![TileLights { start: 0, count: 1 }; (tx * ty) as usize])?;
    /// let mut image = gpu.zeros::<[f32; 4]>((w * h) as usize)?; // reused frame after frame
    /// access.shade_tiles_into(w, h, &lights, &tiles, Shading::Raw, LightingKernel::Staged, &mut image)?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn shade_tiles_into(
        &self,
        width: u32,
        height: u32,
        lights: &impl DeviceRead<Light>,
        tiles: &impl DeviceRead<TileLights>,
        shading: Shading,
        kernel: LightingKernel,
        out: &mut impl DeviceWrite<[f32; 4]>,
    ) -> Result<()> {
        let (tiles_x, tiles_y) = tile_grid(width, height);
        let pixels = width as u64 * height as u64;
        ensure_input!(
            tiles.len() as u64 == tiles_x as u64 * tiles_y as u64,
            "a {width}×{height} image has {tiles_x}×{tiles_y} tiles, but {} light lists were given",
            tiles.len()
        );
        ensure_input!(out.len() as u64 == pixels, "a {width}×{height} image needs {pixels} pixels, got {}", out.len());
        if tiles_y > MAX_GRID_Y {
            return Err(Error::CapacityExceeded {
                what: "tile rows per launch (grid y)",
                needed: tiles_y as u64,
                capacity: MAX_GRID_Y as u64,
            });
        }
        if lights.len() > u32::MAX as usize {
            return Err(Error::CapacityExceeded {
                what: "lights (u32 list indices)",
                needed: lights.len() as u64,
                capacity: u32::MAX as u64,
            });
        }
        if pixels == 0 {
            return Ok(());
        }
        let f = self.kernels.get(kernel.kernel(shading))?;
        let cfg =
            LaunchConfig { grid_dim: (tiles_x, tiles_y, 1), block_dim: (lighting::THREADS, 1, 1), shared_mem_bytes: 0 };
        let n_lights = lights.len() as u32;
        let mut l = self.gpu.kernel_args();
        l.read(lights).value(&n_lights).read(tiles).value(&tiles_x).value(&width).value(&height);
        l.write(out);
        // SAFETY: the arguments match `lighting_*` in `kernels/src/kernels.rs`: `lights`
        // holds `n_lights` lights (the kernel clamps every list to them), `tiles` one list per
        // tile, `out` `width · height` 16-byte aligned pixels.
        unsafe { l.launch(f, cfg) }
    }

    /// One Euler step of every particle, in place: `vel += g·dt; pos += vel·dt`, bouncing off
    /// the floor `y = 0` (`w` components unchanged). `items_per_thread` (≥ 1) sets the grid:
    /// `ceil(n / (items_per_thread · 256))` blocks. Asynchronous; capturable; the CPU twin is
    /// [`cpu::particles::update`].
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork_access::{Access, Partition, Step};
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let access = Access::new(&gpu)?;
    /// let mut pos = gpu.upload(&[[0.0f32, 10.0, 0.0, 1.0]; 1000])?;
    /// let mut vel = gpu.zeros::<[f32; 4]>(1000)?;
    /// let step = Step { dt: 0.01, gravity: [0.0, -9.81, 0.0] };
    /// access.update_particles(&mut pos, &mut vel, step, Partition::GroupWise, 4)?;
    /// assert!(gpu.download(&pos)?[0][1] < 10.0); // falling
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn update_particles(
        &self,
        pos: &mut impl DeviceWrite<[f32; 4]>,
        vel: &mut impl DeviceWrite<[f32; 4]>,
        step: Step,
        partition: Partition,
        items_per_thread: u32,
    ) -> Result<()> {
        let n = pos.len();
        ensure_input!(vel.len() == n, "{n} positions but {} velocities", vel.len());
        ensure_input!(items_per_thread >= 1, "items_per_thread must be at least 1");
        let blocks = (n as u64).div_ceil(items_per_thread as u64 * particles::THREADS as u64);
        if blocks > MAX_GRID_X {
            return Err(Error::CapacityExceeded {
                what: "particle blocks (grid x); raise items_per_thread",
                needed: blocks,
                capacity: MAX_GRID_X,
            });
        }
        if n == 0 {
            return Ok(());
        }
        let f = self.kernels.get(partition.kernel())?;
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (particles::THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let n = n as u64;
        let [gx, gy, gz] = step.gravity;
        let mut l = self.gpu.kernel_args();
        l.write(pos).write(vel).value(&n).value(&items_per_thread);
        l.value(&step.dt).value(&gx).value(&gy).value(&gz);
        // SAFETY: the arguments match `particles_*` in `kernels/src/kernels.rs`; `pos` and
        // `vel` hold `n` 16-byte aligned elements and the grid covers `n` items.
        unsafe { l.launch(f, cfg) }
    }
}

/// The README's example, compiled as a doctest so that it stays true to the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
