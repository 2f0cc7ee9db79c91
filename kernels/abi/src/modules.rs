//! How warpwork's kernels are shipped and loaded: one module per [`Family`], each as PTX for two
//! targets and as cubins (machine code) for the architectures in [`CUBIN_ARCHS`].
//!
//! A module loads only when one of its kernels is first needed, so an application that only
//! scans never loads the select kernels. A cubin loads in milliseconds; PTX must first be
//! compiled by the driver (seconds for a large module, unless the driver's cache already holds
//! it), which is why the PTX is only the fallback: for devices without a cubin they can run
//! (see [`CUBIN_ARCHS`]), or when a cubin fails to load.
//!
//! The kernel crate builds a family's module with the cargo feature of the family's
//! [`name`](Family::name) (plus `sm90` for the sm_90 PTX); the shipped files are
//! `{name}_{arch}.ptx` and `{name}_{arch}.cubin`.

use crate::kernels;

/// A module of warpwork's kernels: built, shipped and loaded on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Stream compaction: [`kernels::SELECT_KERNELS`], [`kernels::SELECT_ORDERED_KERNELS`],
    /// [`kernels::SELECT_SUPPORT_KERNELS`], [`kernels::PARTITION_KERNELS`],
    /// [`kernels::UNIQUE_KERNELS`], [`kernels::RUN_LENGTH_KERNELS`],
    /// [`kernels::RUN_BOUNDS_KERNELS`] and [`kernels::UNIQUE_BY_KEY_KERNELS`].
    Select,
    /// Device-wide scans: [`kernels::SCAN_KERNELS`], [`kernels::SCAN_SMALL_KERNELS`],
    /// [`kernels::SCAN_MEDIUM_KERNELS`], [`kernels::SCAN_BASED_KERNELS`] and
    /// [`kernels::SCAN_SUPPORT_KERNELS`].
    Scan,
    /// Work expansion: [`kernels::EXPAND_KERNELS`].
    Expand,
    /// The stream hold behind event timing: [`kernels::TIMING_KERNELS`].
    Timing,
    /// Reductions: [`kernels::REDUCE_KERNELS`], [`kernels::SEGMENTED_REDUCE_KERNELS`],
    /// [`kernels::ARG_FOLD_KERNELS`] and [`kernels::REDUCE_SUPPORT_KERNELS`].
    Reduce,
}

impl Family {
    /// Every family, in the order of their indices ([`Family::index`]).
    pub const ALL: [Family; 5] = [Family::Select, Family::Scan, Family::Expand, Family::Timing, Family::Reduce];

    /// The family's name: the kernel crate's cargo feature that exports its kernels, and the
    /// stem of its shipped files.
    pub const fn name(self) -> &'static str {
        match self {
            Family::Select => "select",
            Family::Scan => "scan",
            Family::Expand => "expand",
            Family::Timing => "timing",
            Family::Reduce => "reduce",
        }
    }

    /// The family's position in [`Family::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kernels the family's module exports.
    pub fn kernels(self) -> impl Iterator<Item = &'static str> {
        let lists: &[&'static [&'static str]] = match self {
            Family::Select => &[
                &kernels::SELECT_KERNELS,
                &kernels::SELECT_ORDERED_KERNELS,
                kernels::SELECT_SUPPORT_KERNELS,
                &kernels::PARTITION_KERNELS,
                &kernels::UNIQUE_KERNELS,
                &kernels::RUN_LENGTH_KERNELS,
                &kernels::RUN_BOUNDS_KERNELS,
                &kernels::UNIQUE_BY_KEY_KERNELS,
            ],
            Family::Scan => &[
                &kernels::SCAN_KERNELS,
                &kernels::SCAN_SMALL_KERNELS,
                &kernels::SCAN_MEDIUM_KERNELS,
                &kernels::SCAN_BASED_KERNELS,
                kernels::SCAN_SUPPORT_KERNELS,
            ],
            Family::Expand => &[kernels::EXPAND_KERNELS],
            Family::Timing => &[kernels::TIMING_KERNELS],
            Family::Reduce => &[
                &kernels::REDUCE_KERNELS,
                &kernels::SEGMENTED_REDUCE_KERNELS,
                &kernels::ARG_FOLD_KERNELS,
                kernels::REDUCE_SUPPORT_KERNELS,
            ],
        };
        lists.iter().flat_map(|l| l.iter().copied())
    }

    /// The family whose module exports `kernel`.
    pub fn of(kernel: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.kernels().any(|k| k == kernel))
    }
}

/// The PTX targets every family is shipped for, oldest first: sm_70 runs on every GPU warpwork
/// supports (compute capability 7.0 and newer); sm_90 adds instructions of newer GPUs (e.g.
/// programmatic dependent launch) and is taken from compute capability 9.0 on.
pub const PTX_ARCHS: [&str; 2] = ["sm_70", "sm_90"];

/// An architecture a cubin is shipped for: its name and compute capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubinArch {
    /// ptxas's name for it, e.g. `sm_90`.
    pub name: &'static str,
    /// Compute capability, major.
    pub major: u32,
    /// Compute capability, minor.
    pub minor: u32,
}

const fn arch(name: &'static str, major: u32, minor: u32) -> CubinArch {
    CubinArch { name, major, minor }
}

/// The architectures a cubin is shipped for: A100 (and from it RTX 30xx, RTX 40xx, L4, L40),
/// H100/H200 and B200. A cubin built for `sm_XY` runs on every device of compute capability X.Z
/// with Z ≥ Y (CUDA's binary compatibility within a major version), so a device loads the
/// shipped cubin of its major version with the highest minor not above its own
/// ([`cubin_arch`]), otherwise the PTX, which the driver compiles once and keeps in its cache
/// (RTX 50xx, compute capability 12.0, among others). The package must stay under crates.io's
/// 10 MB: cubins of their own for sm_86 and sm_89 (which the sm_80 one serves) and for sm_120
/// were shipped once and dropped.
pub const CUBIN_ARCHS: [CubinArch; 3] = [arch("sm_80", 8, 0), arch("sm_90", 9, 0), arch("sm_100", 10, 0)];

/// The PTX target a device of compute capability `major`.x runs, and the one its cubin is
/// compiled from.
pub const fn ptx_arch(major: u32) -> &'static str {
    if major >= 9 {
        PTX_ARCHS[1]
    } else {
        PTX_ARCHS[0]
    }
}

/// The shipped cubin architecture a device of compute capability `major.minor` runs, if any:
/// the one of the same major version with the highest minor not above `minor`.
pub fn cubin_arch(major: u32, minor: u32) -> Option<CubinArch> {
    CUBIN_ARCHS.into_iter().filter(|a| a.major == major && a.minor <= minor).max_by_key(|a| a.minor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_in_exactly_one_family() {
        for k in kernels::all_kernels() {
            let homes = Family::ALL.into_iter().filter(|f| f.kernels().any(|n| n == k)).count();
            assert_eq!(homes, 1, "{k}");
            assert!(Family::of(k).is_some());
        }
        assert_eq!(Family::of("no_such_kernel"), None);
    }

    #[test]
    fn indices_follow_all() {
        for (i, f) in Family::ALL.into_iter().enumerate() {
            assert_eq!(f.index(), i);
            assert!(f.kernels().next().is_some(), "{f:?} has kernels");
        }
    }

    #[test]
    fn cubins_are_compiled_from_the_ptx_their_device_would_run() {
        assert_eq!(ptx_arch(7), "sm_70");
        assert_eq!(ptx_arch(8), "sm_70");
        assert_eq!(ptx_arch(9), "sm_90");
        assert_eq!(ptx_arch(12), "sm_90");
        assert_eq!(cubin_arch(9, 0).map(|a| a.name), Some("sm_90"));
        assert_eq!(cubin_arch(8, 6).map(|a| a.name), Some("sm_80"));
        assert_eq!(cubin_arch(8, 9).map(|a| a.name), Some("sm_80"));
        assert_eq!(cubin_arch(10, 3).map(|a| a.name), Some("sm_100"));
        assert!(cubin_arch(7, 5).is_none() && cubin_arch(12, 0).is_none());
        for a in CUBIN_ARCHS {
            assert_eq!(a.name, std::format!("sm_{}{}", a.major, a.minor));
        }
    }
}
