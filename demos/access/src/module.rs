//! The access-pattern kernels' PTX module, loaded into a [`Gpu`]'s context.
//!
//! The kernels are this crate's own (`kernels/`, built to `kernels/warpwork_access_sm_70.ptx`,
//! which is shipped so that building this crate needs no kernel toolchain). One module serves
//! every GPU warpwork supports: the driver compiles the sm_70 PTX for the device at hand, and
//! these kernels use nothing that warpwork-kernels builds differently for sm_90.

use std::sync::Arc;
use warpwork::cudarc::driver::{CudaFunction, CudaModule};
use warpwork::cudarc::nvrtc::Ptx;
use warpwork::{Error, Gpu, Result};

/// The shipped PTX of `kernels/`.
pub(crate) const PTX: &str = include_str!("../kernels/warpwork_access_sm_70.ptx");

/// The module in one context, with every kernel of [`crate::abi::kernels::KERNELS`] looked up
/// once (never per launch).
pub(crate) struct Kernels {
    /// Keeps the module loaded while its functions are used.
    _module: Arc<CudaModule>,
    functions: Vec<(&'static str, CudaFunction)>,
}

impl Kernels {
    /// Loads the module into `gpu`'s context and looks up its kernels. The driver compiles the
    /// PTX here (it caches the result on disk, so later loads are quicker).
    ///
    /// This is the one place the module is loaded: a cache of modules per context, shared by
    /// every `Access` of that context, would replace this function and nothing else.
    pub(crate) fn load(gpu: &Gpu) -> Result<Kernels> {
        let module = gpu.context().load_module(Ptx::from_src(PTX))?;
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
