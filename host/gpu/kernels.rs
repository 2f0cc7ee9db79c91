//! The [`Gpu`] handle's kernels: warpwork's by name and family, and users' own device code
//! loaded into the same context and launched the same way.

use super::{DeviceCode, Gpu, Kernels, ModuleInfo};
use crate::launch::KernelArgs;
use crate::Result;
use cudarc::driver::CudaFunction;
use std::sync::Arc;
use warpwork_abi::modules::Family;

impl Gpu {
    /// A kernel of warpwork's by its exported name (the names are in [`crate::abi::kernels`]),
    /// loading its family's module into the context first if no handle on this context has
    /// used that family yet. [`Error::InvalidInput`](crate::Error::InvalidInput) for a name warpwork has no kernel of.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let f = gpu.function("scan_exclusive_sum_u32")?;
    /// assert!(gpu.function("no_such_kernel").is_err());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn function(&self, name: &str) -> Result<&CudaFunction> {
        self.loaded.function(name)
    }

    /// Loads the modules of `families` now rather than on first use: to keep the loading time
    /// out of a timed region or a latency-sensitive first call. Modules already loaded are not
    /// loaded again.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::abi::modules::Family;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// gpu.preload(&[Family::Select, Family::Scan])?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn preload(&self, families: &[Family]) -> Result<()> {
        for &f in families {
            self.loaded.module(f)?;
        }
        Ok(())
    }

    /// The module of `code` (kernels of your own crate) in this handle's context: loaded the
    /// first time any handle on the context asks — from the cubin of the device's exact
    /// architecture if `code` has one (unless `WARPWORK_CODE=ptx`), otherwise from the newest PTX
    /// the device runs — and shared from then on, so that objects made per call (a board, a
    /// pipeline stage) need not each load it. [`Error::InvalidInput`](crate::Error::InvalidInput) when `code` has nothing
    /// the device runs.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::DeviceCode;
    /// static MY_KERNELS: DeviceCode = DeviceCode {
    ///     name: "my-kernels",
    ///     ptx: &[("sm_70", ".version 6.0\n.target sm_70\n.address_size 64\n")],
    ///     cubins: &[],
    /// };
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let module = gpu.load(&MY_KERNELS)?;
    /// let again = gpu.load(&MY_KERNELS)?; // the same module: nothing is loaded twice
    /// assert!(std::sync::Arc::ptr_eq(&module, &again));
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn load(&self, code: &'static DeviceCode) -> Result<Arc<cudarc::driver::CudaModule>> {
        self.context().bind_to_thread()?;
        self.loaded.own_module(code)
    }

    /// The kernels `names` of `code` ([`Gpu::load`]'s module), looked up once: what an object of
    /// your crate keeps to launch from, with [`Kernels::get`] per launch.
    ///
    /// # Examples
    /// ```no_run
    /// use warpwork::DeviceCode;
    /// static MY_KERNELS: DeviceCode = DeviceCode {
    ///     name: "my-kernels",
    ///     ptx: &[("sm_70", ".version 6.0\n.target sm_70\n.address_size 64\n.visible .entry noop()\n{ ret; }\n")],
    ///     cubins: &[],
    /// };
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let kernels = gpu.kernels(&MY_KERNELS, &["noop"])?;
    /// let noop = kernels.get("noop")?;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn kernels(&self, code: &'static DeviceCode, names: &[&'static str]) -> Result<Kernels> {
        self.context().bind_to_thread()?;
        self.loaded.own_kernels(code, names)
    }

    /// The kernels `names` of PTX made at run time (a shipped module with constants written
    /// into its text, for example), loaded into this handle's context the first time any handle
    /// on it passes this exact text, and shared from then on (the context keeps one module per
    /// distinct text until it is dropped). The driver compiles the PTX when it loads: keep such
    /// modules small. `name` is for error messages.
    ///
    /// # Examples
    /// ```no_run
    /// const TEMPLATE: &str = ".version 6.0\n.target sm_70\n.address_size 64\n\
    ///     .visible .entry fill(.param .u64 p)\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<1>;\n\
    ///     ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd1, %rd1;\nmov.u32 %r0, VALUE;\n\
    ///     st.global.u32 [%rd1], %r0;\nret;\n}\n";
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let seven = gpu.ptx_kernels("fill", &TEMPLATE.replace("VALUE", "7"), &["fill"])?;
    /// let again = gpu.ptx_kernels("fill", &TEMPLATE.replace("VALUE", "7"), &["fill"])?; // loaded once
    /// let fill = seven.get("fill")?;
    /// # let _ = (again, fill);
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn ptx_kernels(&self, name: &'static str, ptx: &str, names: &[&'static str]) -> Result<Kernels> {
        self.context().bind_to_thread()?;
        self.loaded.ptx_kernels(name, ptx, names)
    }

    /// The modules loaded into this handle's context so far: each family's, what it was loaded
    /// from (cubin or PTX, and why) and how long loading took.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let _ = gpu.function("scan_exclusive_sum_u32")?;
    /// for m in gpu.modules() {
    ///     println!("{:?}: {} in {:?}", m.family, m.code, m.load_time);
    /// }
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn modules(&self) -> Vec<ModuleInfo> {
        self.loaded.loaded_modules()
    }

    /// An empty argument list for a launch of **your own** kernel on this handle's stream,
    /// with warpwork's binding of buffers (context check, cudarc stream events); see
    /// [`KernelArgs`].
    ///
    /// # Examples
    /// ```no_run
    /// use cudarc::driver::LaunchConfig;
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let mut v = gpu.zeros::<u32>(256)?;
    /// let f = gpu.function("hold_stream")?; // stands in for a kernel of your own module
    /// let mut l = gpu.kernel_args();
    /// l.write(&mut v);
    /// // unsafe { l.launch(f, LaunchConfig::for_num_elems(256))? } — when the arguments match f
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn kernel_args(&self) -> KernelArgs<'_> {
        KernelArgs::new(self)
    }

    /// Blocks per multiprocessor at which kernel `name` is resident with `threads` per block:
    /// for sizing persistent grids.
    ///
    /// # Examples
    /// ```no_run
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let per_sm = gpu.occupancy("scan_exclusive_sum_u32", 256, 0)?;
    /// let persistent_grid = per_sm * gpu.info().sm_count;
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn occupancy(&self, name: &str, threads: u32, shared_bytes: usize) -> Result<u32> {
        Ok(self.function(name)?.occupancy_max_active_blocks_per_multiprocessor(threads, shared_bytes, None)?)
    }
}
