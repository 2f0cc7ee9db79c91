//! The access-pattern kernels' PTX module, loaded into a [`Gpu`]'s context.
//!
//! The kernels are this crate's own (`kernels/`, built to `kernels/warpwork_access_sm_70.ptx`,
//! which is shipped so that building this crate needs no kernel toolchain). One module serves
//! every GPU warpwork supports: the driver compiles the sm_70 PTX for the device at hand, and
//! these kernels use nothing that warpwork-kernels builds differently for sm_90.

use std::sync::Arc;
use warpwork::cudarc::driver::{CudaFunction, CudaModule};
use warpwork::{DeviceCode, Error, Gpu, Result};

/// The shipped PTX of `kernels/`.
pub(crate) const PTX: &str = include_str!("../kernels/warpwork_access_sm_70.ptx");

/// The crate's device code, as [`Gpu::load`] takes it: loaded once per context.
pub(crate) static DEVICE_CODE: DeviceCode = DeviceCode { name: "warpwork-access", ptx: &[("sm_70", PTX)], cubins: &[] };

/// The module in one context, with every kernel of [`crate::abi::kernels::KERNELS`] looked up
/// once (never per launch).
pub(crate) struct Kernels {
    /// Keeps the module loaded while its functions are used.
    _module: Arc<CudaModule>,
    functions: Vec<(&'static str, CudaFunction)>,
}

impl Kernels {
    /// The module in `gpu`'s context (loaded by the first `Access` on the context, shared by
    /// every later one: [`Gpu::load`]) with its kernels looked up.
    pub(crate) fn load(gpu: &Gpu) -> Result<Kernels> {
        let module = gpu.load(&DEVICE_CODE)?;
        let functions = crate::abi::kernels::KERNELS
            .iter()
            .map(|&name| Ok((name, module.load_function(name)?)))
            .collect::<Result<_>>()?;
        Ok(Kernels { _module: module, functions })
    }

    /// The kernel named `name` (one of [`crate::abi::kernels`]).
    pub(crate) fn get(&self, name: &str) -> Result<&CudaFunction> {
        self.functions
            .iter()
            .find_map(|(n, f)| (*n == name).then_some(f))
            .ok_or_else(|| Error::InvalidInput(format!("the access module has no kernel named {name:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The kernels a PTX module defines: the names after `.entry`.
    fn entries(ptx: &str) -> BTreeSet<&str> {
        ptx.lines()
            .filter_map(|l| {
                l.trim_start().strip_prefix(".visible .entry ").or_else(|| l.trim_start().strip_prefix(".entry "))
            })
            .map(|rest| rest.split(|c: char| c == '(' || c.is_whitespace()).next().unwrap_or(""))
            .collect()
    }

    #[test]
    fn the_shipped_module_exports_exactly_the_listed_kernels() {
        let listed: BTreeSet<&str> = crate::abi::kernels::KERNELS.into_iter().collect();
        assert_eq!(listed.len(), crate::abi::kernels::KERNELS.len(), "a name is listed twice");
        assert_eq!(entries(PTX), listed, "kernels/warpwork_access_sm_70.ptx against abi::kernels::KERNELS");
        assert!(PTX.contains(".target sm_70"), "one module for every GPU from compute capability 7.0");
    }
}
