//! Device code of a crate of your own, loaded once per context the way warpwork loads its own
//! modules: the cubin of the device's exact architecture if you ship one, otherwise the newest
//! PTX the device runs.

use super::code::{check_cubin, Code};
use super::loaded::{Loaded, RelaxedCapture};
use crate::{Error, Result};
use cudarc::driver::{CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use std::collections::BTreeSet;
use std::sync::Arc;

/// The kernels a crate of your own ships, for [`crate::Gpu::load`]: PTX for one or more targets
/// and, optionally, cubins. Declare it as a `static` (its address is what the per-context cache
/// knows it by).
///
/// # Examples
/// ```
/// use warpwork::DeviceCode;
/// // In your crate: the PTX (and cubins) your kernel crate builds, shipped with your crate.
/// static MY_KERNELS: DeviceCode = DeviceCode {
///     name: "my-kernels",
///     ptx: &[("sm_70", ".version 6.0\n.target sm_70\n.address_size 64\n")],
///     cubins: &[],
/// };
/// assert_eq!(MY_KERNELS.ptx_for(9, 0), Some(MY_KERNELS.ptx[0].1));
/// assert_eq!(MY_KERNELS.ptx_for(6, 1), None);
/// ```
#[derive(Debug)]
pub struct DeviceCode {
    /// A name for error messages.
    pub name: &'static str,
    /// PTX by target (`"sm_70"`, `"sm_90"`, …): a device loads the newest whose target is not
    /// above its compute capability.
    pub ptx: &'static [(&'static str, &'static str)],
    /// Cubins by architecture (`"sm_90"`, …): a device loads the one of its exact architecture,
    /// when there is one, and falls back to the PTX if it fails to load.
    pub cubins: &'static [(&'static str, &'static [u8])],
}

/// `"sm_86"` → 86.
fn arch_number(arch: &str) -> Option<u32> {
    arch.strip_prefix("sm_")?.trim_end_matches(|c: char| c.is_ascii_alphabetic()).parse().ok()
}

impl DeviceCode {
    /// The PTX a device of compute capability `major.minor` loads: the newest target not above it.
    pub fn ptx_for(&self, major: u32, minor: u32) -> Option<&'static str> {
        let device = 10 * major + minor;
        self.ptx
            .iter()
            .filter_map(|&(arch, text)| Some((arch_number(arch)?, text)))
            .filter(|&(n, _)| n <= device)
            .max_by_key(|&(n, _)| n)
            .map(|(_, text)| text)
    }

    /// The kernels its PTX defines (the names after `.entry`, over every target): for a test that
    /// the kernel list a crate looks up is exactly what it ships.
    ///
    /// ```
    /// static CODE: warpwork::DeviceCode = warpwork::DeviceCode {
    ///     name: "demo",
    ///     ptx: &[("sm_70", ".version 6.0\n.target sm_70\n.visible .entry blur(\n.param .u64 a\n)\n{ ret; }\n")],
    ///     cubins: &[],
    /// };
    /// assert_eq!(CODE.entries(), std::collections::BTreeSet::from(["blur"]));
    /// ```
    pub fn entries(&self) -> BTreeSet<&'static str> {
        self.ptx.iter().flat_map(|&(_, text)| ptx_entries(text)).collect()
    }

    /// The cubin of architecture `sm_{major}{minor}` exactly, if shipped.
    pub fn cubin_for(&self, major: u32, minor: u32) -> Option<&'static [u8]> {
        let device = 10 * major + minor;
        self.cubins.iter().find(|&&(arch, _)| arch_number(arch) == Some(device)).map(|&(_, bytes)| bytes)
    }
}

/// The kernels a PTX text defines: the names after `.entry`.
pub(super) fn ptx_entries(ptx: &str) -> BTreeSet<&str> {
    ptx.lines()
        .filter_map(|l| {
            l.trim_start().strip_prefix(".visible .entry ").or_else(|| l.trim_start().strip_prefix(".entry "))
        })
        .map(|rest| rest.split(|c: char| c == '(' || c.is_whitespace()).next().unwrap_or(""))
        .collect()
}

/// Kernels of a [`DeviceCode`] in one context, each looked up once by name (never per launch),
/// from [`crate::Gpu::kernels`]. Holds the module, so it stays loaded while the kernels are used.
#[derive(Clone)]
pub struct Kernels {
    /// The code's name, for error messages.
    name: &'static str,
    _module: Arc<CudaModule>,
    functions: Vec<(&'static str, CudaFunction)>,
}

impl std::fmt::Debug for Kernels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<_> = self.functions.iter().map(|(n, _)| *n).collect();
        write!(f, "Kernels({}: {names:?})", self.name)
    }
}

impl Kernels {
    /// The kernel named `name`: [`Error::InvalidInput`] for one that was not looked up.
    ///
    /// # Examples
    /// ```no_run
    /// # static CODE: warpwork::DeviceCode = warpwork::DeviceCode { name: "demo", ptx: &[], cubins: &[] };
    /// # let gpu = warpwork::Gpu::new(0)?;
    /// let kernels = gpu.kernels(&CODE, &["blur"])?;
    /// let blur = kernels.get("blur")?;
    /// assert!(kernels.get("sharpen").is_err());
    /// # Ok::<(), warpwork::Error>(())
    /// ```
    pub fn get(&self, name: &str) -> Result<&CudaFunction> {
        self.functions
            .iter()
            .find_map(|(n, f)| (*n == name).then_some(f))
            .ok_or_else(|| Error::InvalidInput(format!("{}: no kernel named {name:?} was looked up", self.name)))
    }
}

impl Loaded {
    /// `code` in this context, loaded on first use and shared after, with `names` looked up.
    pub(super) fn own_kernels(&self, code: &'static DeviceCode, names: &[&'static str]) -> Result<Kernels> {
        Self::look_up(code.name, self.own_module(code)?, names)
    }

    fn look_up(name: &'static str, module: Arc<CudaModule>, names: &[&'static str]) -> Result<Kernels> {
        let functions = names.iter().map(|&n| Ok((n, module.load_function(n)?))).collect::<Result<_>>()?;
        Ok(Kernels { name, _module: module, functions })
    }

    /// PTX text made at run time in this context, loaded the first time this text is passed and
    /// shared after, with `names` looked up.
    pub(super) fn ptx_kernels(&self, name: &'static str, ptx: &str, names: &[&'static str]) -> Result<Kernels> {
        let mut made = self.made.lock().unwrap_or_else(|e| e.into_inner());
        let module = match made.iter().find(|(text, _)| text == ptx) {
            Some((_, m)) => m.clone(),
            None => {
                let _relaxed = RelaxedCapture::new();
                let m = self.context().load_module(Ptx::from_src(ptx))?;
                made.push((ptx.to_owned(), m.clone()));
                m
            }
        };
        drop(made);
        Self::look_up(name, module, names)
    }

    /// `code` in this context, loaded on first use and shared after.
    pub(super) fn own_module(&self, code: &'static DeviceCode) -> Result<Arc<CudaModule>> {
        let key = code as *const DeviceCode as usize;
        let mut own = self.own.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, m)) = own.iter().find(|(k, _)| *k == key) {
            return Ok(m.clone());
        }
        let (major, minor) = (self.info.compute_capability.0 as u32, self.info.compute_capability.1 as u32);
        let _relaxed = RelaxedCapture::new();
        // A cubin first (unless the handle's device code is forced to PTX), then the PTX.
        let forced_ptx = matches!(self.info.code, Code::Ptx { why: super::PtxReason::Forced, .. });
        let cubin = code.cubin_for(major, minor).filter(|_| !forced_ptx);
        let from_cubin = cubin.and_then(|image| {
            check_cubin(image).ok()?;
            self.context().load_module(Ptx::from_binary(image.to_vec())).ok()
        });
        let module = match from_cubin {
            Some(m) => m,
            None => {
                let ptx = code.ptx_for(major, minor).ok_or_else(|| {
                    Error::InvalidInput(format!(
                        "{}: no PTX for compute capability {major}.{minor} (targets: {:?})",
                        code.name,
                        code.ptx.iter().map(|p| p.0).collect::<Vec<_>>()
                    ))
                })?;
                self.context().load_module(Ptx::from_src(ptx))?
            }
        };
        own.push((key, module.clone()));
        Ok(module)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static CODE: DeviceCode = DeviceCode {
        name: "test",
        ptx: &[("sm_70", "seventy"), ("sm_90", "ninety")],
        cubins: &[("sm_86", b"eighty-six"), ("sm_90a", b"ninety-a")],
    };

    #[test]
    fn devices_get_the_newest_ptx_they_run_and_their_exact_cubin() {
        assert_eq!(CODE.ptx_for(7, 5), Some("seventy"));
        assert_eq!(CODE.ptx_for(8, 9), Some("seventy"));
        assert_eq!(CODE.ptx_for(9, 0), Some("ninety"));
        assert_eq!(CODE.ptx_for(12, 0), Some("ninety"));
        assert_eq!(CODE.ptx_for(6, 0), None);
        assert_eq!(CODE.cubin_for(8, 6), Some(&b"eighty-six"[..]));
        assert_eq!(CODE.cubin_for(8, 0), None);
        assert_eq!(CODE.cubin_for(9, 0), Some(&b"ninety-a"[..]));
        assert_eq!(arch_number("compute_90"), None);
    }

    #[test]
    fn entry_names_are_read_from_ptx() {
        let ptx = ".version 6.0\n.visible .entry scan_x(\n\t.param .u64 a\n)\n.entry other (\n.func helper(";
        assert_eq!(ptx_entries(ptx), BTreeSet::from(["scan_x", "other"]));
    }
}
