//! Device code of a crate of your own, loaded once per context the way warpwork loads its own
//! modules: the cubin of the device's exact architecture if you ship one, otherwise the newest
//! PTX the device runs.

use super::code::{check_cubin, Code};
use super::loaded::{Loaded, RelaxedCapture};
use crate::{Error, Result};
use cudarc::driver::CudaModule;
use cudarc::nvrtc::Ptx;
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

    /// The cubin of architecture `sm_{major}{minor}` exactly, if shipped.
    pub fn cubin_for(&self, major: u32, minor: u32) -> Option<&'static [u8]> {
        let device = 10 * major + minor;
        self.cubins.iter().find(|&&(arch, _)| arch_number(arch) == Some(device)).map(|&(_, bytes)| bytes)
    }
}

impl Loaded {
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
}
