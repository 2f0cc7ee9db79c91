//! warpwork's module loaded into one context: the shipped PTX that suits the device, its kernels
//! looked up once, and the device's facts. Every [`super::Gpu`] handle on that context shares it.

use crate::{Error, Result};
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use warpwork_abi::kernels::all_kernels;

/// warpwork's kernels for every GPU of compute capability 7.0 or newer.
const PTX_SM70: &str = include_str!(concat!(env!("OUT_DIR"), "/warpwork_sm_70.ptx"));
/// The same kernels built for sm_90, using instructions of newer GPUs; picked on CC ≥ 9.0.
const PTX_SM90: &str = include_str!(concat!(env!("OUT_DIR"), "/warpwork_sm_90.ptx"));

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
    /// Which PTX module was loaded: "sm_70" or "sm_90".
    pub ptx_arch: &'static str,
}

/// What every handle on one context shares: the loaded module and its functions (looked up once,
/// when the module is loaded), the device's facts, and the timing hold's host flag (behind a
/// lock: one timing at a time per context, since the flag is one pair of host words).
pub(crate) struct Loaded {
    pub(super) ctx: Arc<CudaContext>,
    _module: Arc<CudaModule>,
    pub(super) functions: HashMap<&'static str, CudaFunction>,
    pub(super) info: DeviceInfo,
    pub(crate) hold: Mutex<Option<crate::timing::HoldFlag>>,
}

impl Loaded {
    /// Loads the module into `ctx` (the driver compiles the PTX: slow) and looks up every kernel
    /// of [`all_kernels`]. [`Error::UnsupportedDevice`] below compute capability 7.0.
    pub(super) fn load(ctx: Arc<CudaContext>) -> Result<Loaded> {
        let (major, minor) = ctx.compute_capability()?;
        let name = ctx.name()?;
        if major < 7 {
            return Err(Error::UnsupportedDevice { name, major, minor });
        }
        let (ptx, ptx_arch) = if major >= 9 { (PTX_SM90, "sm_90") } else { (PTX_SM70, "sm_70") };
        let module = ctx.load_module(Ptx::from_src(ptx))?;
        let functions =
            all_kernels().map(|name| Ok((name, module.load_function(name)?))).collect::<Result<HashMap<_, _>>>()?;
        let sm_count = ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let info =
            DeviceInfo { name, compute_capability: (major, minor), sm_count, total_memory: ctx.total_mem()?, ptx_arch };
        Ok(Loaded { ctx, _module: module, functions, info, hold: Mutex::new(None) })
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
mod tests {
    use super::*;

    /// The kernels a PTX module defines: the names after `.entry`.
    fn entries(ptx: &str) -> std::collections::BTreeSet<&str> {
        ptx.lines()
            .filter_map(|l| {
                l.trim_start().strip_prefix(".visible .entry ").or_else(|| l.trim_start().strip_prefix(".entry "))
            })
            .map(|rest| rest.split(|c: char| c == '(' || c.is_whitespace()).next().unwrap_or(""))
            .collect()
    }

    #[test]
    fn both_modules_export_exactly_the_abi_kernel_list() {
        let listed: std::collections::BTreeSet<&str> = all_kernels().collect();
        assert_eq!(listed.len(), all_kernels().count(), "a name is listed twice in warpwork_abi::kernels");
        for (arch, ptx) in [("sm_70", PTX_SM70), ("sm_90", PTX_SM90)] {
            let exported = entries(ptx);
            let unlisted: Vec<_> = exported.difference(&listed).collect();
            let missing: Vec<_> = listed.difference(&exported).collect();
            assert!(
                unlisted.is_empty(),
                "{arch}: kernels missing from warpwork_abi::kernels::all_kernels(): {unlisted:?}"
            );
            assert!(missing.is_empty(), "{arch}: listed in warpwork_abi::kernels but not in the PTX: {missing:?}");
        }
    }

    /// The kernel names the docs' examples pass to `Gpu::function` and `Gpu::occupancy` are real
    /// (the examples do not run without a GPU, so nothing else would notice a stale one).
    #[test]
    fn kernels_named_in_doc_examples_exist() {
        fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
                if e.is_dir() {
                    sources(&e, out);
                } else if e.extension().is_some_and(|x| x == "rs") {
                    out.push(e);
                }
            }
        }
        let mut files = Vec::new();
        sources(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("host"), &mut files);
        let known: std::collections::BTreeSet<&str> = all_kernels().collect();
        let mut named = 0;
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for line in text.lines().filter(|l| l.trim_start().starts_with("///")) {
                for call in ["function(\"", "occupancy(\""] {
                    // `module.load_function("…")` names a kernel of the caller's own module.
                    let own = |i: usize| line[..i].ends_with("load_");
                    for (i, _) in line.match_indices(call).filter(|&(i, _)| !own(i)) {
                        let name = line[i + call.len()..].split('"').next().unwrap();
                        named += 1;
                        assert!(
                            known.contains(name) || name == "no_such_kernel",
                            "{}: a doc example names {name:?}, which is no kernel of warpwork's",
                            f.display()
                        );
                    }
                }
            }
        }
        assert!(named >= 4, "the scan found the examples ({named} names)");
    }

    #[test]
    fn entry_names_are_read_from_ptx() {
        let ptx = ".version 6.0\n.visible .entry scan_x(\n\t.param .u64 a\n)\n.entry other (\n.func helper(";
        assert_eq!(entries(ptx), std::collections::BTreeSet::from(["scan_x", "other"]));
    }
}
