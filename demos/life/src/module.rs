//! The Life kernels' PTX module, loaded into a `warpwork::Gpu`'s context.
//!
//! The kernels are this crate's own (`kernels/`, built to `kernels/warpwork_life_sm_70.ptx`,
//! which is shipped so that building this crate needs no kernel toolchain). One module serves
//! every GPU warpwork supports: the driver compiles the sm_70 PTX for the device at hand, and
//! the Life kernels use nothing that warpwork-kernels builds differently for sm_90.

use warpwork::DeviceCode;

/// The shipped PTX of `kernels/`.
pub(crate) const PTX: &str = include_str!("../kernels/warpwork_life_sm_70.ptx");

/// The crate's device code, as `warpwork::Gpu::kernels` takes it: loaded once per context.
pub(crate) static DEVICE_CODE: DeviceCode = DeviceCode { name: "warpwork-life", ptx: &[("sm_70", PTX)], cubins: &[] };

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_shipped_module_exports_exactly_the_listed_kernels() {
        let listed: BTreeSet<&str> = crate::abi::kernels::KERNELS.into_iter().collect();
        assert_eq!(listed.len(), crate::abi::kernels::KERNELS.len(), "a name is listed twice");
        assert_eq!(DEVICE_CODE.entries(), listed, "kernels/warpwork_life_sm_70.ptx against abi::kernels::KERNELS");
        assert!(PTX.contains(".target sm_70"), "one module for every GPU from compute capability 7.0");
    }
}
