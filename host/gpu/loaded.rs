//! warpwork in one context: the device's facts, and its kernel modules, each loaded the first time
//! one of its kernels is needed. Every [`super::Gpu`] handle on that context shares it: a second
//! handle on the same context loads nothing.

use super::code::{check_cubin, Code, ModuleInfo, PtxReason, Shipped};
use crate::{Error, Result};
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Instant;
use warpwork_abi::modules::{ptx_arch, Family};

/// Facts about the device that kernels are sized by.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct DeviceInfo {
    /// Marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Device memory in bytes.
    pub total_memory: usize,
    /// The device code this device is given: the cubin of its architecture, or PTX and why (no
    /// cubin for it, `WARPWORK_CODE=ptx`, or a shipped cubin that failed its checks when the
    /// handle opened). A module whose cubin the driver then refuses falls back to the PTX;
    /// [`super::Gpu::modules`] says what each loaded module came from.
    pub code: Code,
}

/// One family's module, loaded: its functions, each looked up the first time it is needed (the
/// driver loads a kernel's code when it is looked up, so a process that runs three kernels of
/// a family does not wait for all seventy).
pub(super) struct FamilyModule {
    module: Arc<CudaModule>,
    functions: HashMap<&'static str, OnceLock<CudaFunction>>,
    pub(super) info: ModuleInfo,
}

impl FamilyModule {
    /// Kernel `name` (one of the family's), looked up on first use.
    fn function(&self, name: &str) -> Result<&CudaFunction> {
        let slot = self.functions.get(name).expect("a family's module has every kernel of its family");
        if let Some(f) = slot.get() {
            return Ok(f);
        }
        // Looking a kernel up may load its code, which a global-mode capture forbids (as `load`).
        let _relaxed = RelaxedCapture::new();
        let f = self.module.load_function(name)?;
        // Two threads may both look it up: the first stored wins, and both are the same kernel.
        Ok(slot.get_or_init(|| f))
    }
}

/// What every handle on one context shares: the device's facts, the modules loaded so far, and
/// the timing hold's host flag (behind a lock: one timing at a time per context, since the flag
/// is one pair of host words).
pub(crate) struct Loaded {
    /// The context the modules are loaded into (the first handle's cudarc object for it).
    ctx: Arc<CudaContext>,
    pub(super) info: DeviceInfo,
    modules: [OnceLock<FamilyModule>; Family::ALL.len()],
    /// Held while a module loads, so that two threads never load the same one.
    loading: Mutex<()>,
    /// Modules of users' crates ([`super::own::DeviceCode`]) loaded so far, by the address of
    /// their `DeviceCode`.
    pub(super) own: Mutex<Vec<(usize, Arc<CudaModule>)>>,
    /// Modules of PTX made at run time ([`super::Gpu::ptx_kernels`]), by their text.
    pub(super) made: Mutex<Vec<(String, Arc<CudaModule>)>>,
    pub(crate) hold: Mutex<Option<crate::timing::HoldFlag>>,
}

/// The `Loaded` of every context with a live handle, by context: `Gpu::from_stream` on a
/// context that already has one shares it.
static CONTEXTS: Mutex<Vec<(usize, Weak<Loaded>)>> = Mutex::new(Vec::new());

/// Which family exports each kernel name (built once).
fn family_of(name: &str) -> Option<Family> {
    static FAMILIES: OnceLock<HashMap<&'static str, Family>> = OnceLock::new();
    let map = FAMILIES.get_or_init(|| Family::ALL.into_iter().flat_map(|f| f.kernels().map(move |k| (k, f))).collect());
    map.get(name).copied()
}

impl Loaded {
    /// The context's shared state: the live one if a handle on `ctx` exists, otherwise a new one
    /// (which loads nothing yet). [`Error::UnsupportedDevice`] below compute capability 7.0.
    pub(super) fn for_context(ctx: Arc<CudaContext>) -> Result<Arc<Loaded>> {
        let key = ctx.cu_ctx() as usize;
        let mut contexts = CONTEXTS.lock().unwrap_or_else(|e| e.into_inner());
        contexts.retain(|(_, weak)| weak.strong_count() > 0);
        // A live entry holds its context, so the key cannot have been reused by another one.
        if let Some(live) = contexts.iter().find(|(k, _)| *k == key).and_then(|(_, weak)| weak.upgrade()) {
            return Ok(live);
        }
        let loaded = Arc::new(Loaded::new(ctx)?);
        contexts.push((key, Arc::downgrade(&loaded)));
        Ok(loaded)
    }

    fn new(ctx: Arc<CudaContext>) -> Result<Loaded> {
        let (major, minor) = ctx.compute_capability()?;
        let name = ctx.name()?;
        if major < 7 {
            return Err(Error::UnsupportedDevice { name, major, minor });
        }
        let sm_count = ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let code = Code::for_device(major as u32, minor as u32);
        let info =
            DeviceInfo { name, compute_capability: (major, minor), sm_count, total_memory: ctx.total_mem()?, code };
        Ok(Loaded {
            ctx,
            info,
            modules: Default::default(),
            loading: Mutex::new(()),
            own: Mutex::new(Vec::new()),
            made: Mutex::new(Vec::new()),
            hold: Mutex::new(None),
        })
    }

    /// Kernel `name`, loading its family's module first if this is the first use.
    pub(super) fn function(&self, name: &str) -> Result<&CudaFunction> {
        let family =
            family_of(name).ok_or_else(|| Error::InvalidInput(format!("warpwork has no kernel named {name:?}")))?;
        self.module(family)?.function(name)
    }

    /// The family's module, loaded on first use.
    pub(super) fn module(&self, family: Family) -> Result<&FamilyModule> {
        let slot = &self.modules[family.index()];
        if let Some(m) = slot.get() {
            return Ok(m);
        }
        let _loading = self.loading.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = slot.get() {
            return Ok(m);
        }
        let m = load(&self.ctx, family, &self.info.code, Shipped::of(family).cubin_for(&self.info.code))?;
        Ok(slot.get_or_init(|| m))
    }

    /// The context the modules are loaded into.
    pub(super) fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The modules loaded so far.
    pub(super) fn loaded_modules(&self) -> Vec<ModuleInfo> {
        self.modules.iter().filter_map(|m| m.get().map(|m| m.info.clone())).collect()
    }
}

impl Shipped {
    /// The cubin `code` names (empty for PTX).
    fn cubin_for(&self, code: &Code) -> &'static [u8] {
        match code {
            Code::Cubin { arch } => self.cubin(arch),
            _ => &[],
        }
    }
}

/// Loads `family`'s module into `ctx` from `code` (`cubin` being its image), falling back to
/// the PTX when the cubin fails its checks or the driver refuses it, and looks up its kernels.
pub(super) fn load(ctx: &Arc<CudaContext>, family: Family, code: &Code, cubin: &[u8]) -> Result<FamilyModule> {
    let start = Instant::now();
    let shipped = Shipped::of(family);
    let (major, _) = ctx.compute_capability()?;
    let ptx = |why| Code::Ptx { arch: ptx_arch(major as u32), why };
    // Loading may allocate and synchronize, which a stream capture in the global mode (on any
    // thread) forbids; in the relaxed mode this thread may: a first use inside a capture works.
    let _relaxed = RelaxedCapture::new();
    let (module, code) = match code {
        Code::Cubin { .. } => match check_cubin(cubin)
            .and_then(|()| ctx.load_module(Ptx::from_binary(cubin.to_vec())).map_err(|e| e.to_string()))
        {
            Ok(m) => (m, code.clone()),
            Err(e) => {
                let code = ptx(PtxReason::CubinFailed(e));
                (ctx.load_module(Ptx::from_src(shipped.ptx(ptx_arch(major as u32))))?, code)
            }
        },
        Code::Ptx { arch, .. } => (ctx.load_module(Ptx::from_src(shipped.ptx(arch)))?, code.clone()),
    };
    // The module's kernels are looked up on first use; one now, so that a module the driver
    // accepted but cannot run fails here.
    let functions: HashMap<_, _> = family.kernels().map(|k| (k, OnceLock::new())).collect();
    let mut loaded =
        FamilyModule { module, functions, info: ModuleInfo { family, code, load_time: Default::default() } };
    if let Some(first) = family.kernels().next() {
        loaded.function(first)?;
    }
    loaded.info.load_time = start.elapsed();
    Ok(loaded)
}

/// This thread's stream-capture mode set to relaxed until dropped (the mode it replaced, if
/// the exchange worked).
pub(super) struct RelaxedCapture(Option<sys::CUstreamCaptureMode>);

impl RelaxedCapture {
    pub(super) fn new() -> RelaxedCapture {
        let mut mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
        // SAFETY: exchanges this thread's mode; a failure leaves it as it was.
        let exchanged = unsafe { sys::cuThreadExchangeStreamCaptureMode(&mut mode) }.result().is_ok();
        RelaxedCapture(exchanged.then_some(mode))
    }
}

impl Drop for RelaxedCapture {
    fn drop(&mut self) {
        if let Some(mut mode) = self.0 {
            // SAFETY: restores the mode `new` found.
            let _ = unsafe { sys::cuThreadExchangeStreamCaptureMode(&mut mode) };
        }
    }
}

/// [`Error::NoDriver`] unless `libcuda` can be loaded. cudarc loads the driver lazily and panics
/// when it is missing; asking first turns that into an error.
pub(super) fn driver_present() -> Result<()> {
    // SAFETY: only tries to open the library.
    if unsafe { sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Error::NoDriver)
    }
}

#[cfg(test)]
mod tests;
