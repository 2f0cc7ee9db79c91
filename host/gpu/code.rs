//! The device code warpwork ships (one module per kernel family, as PTX and as cubins), which of
//! it a device is given, and the checks a cubin passes before the driver sees it.

use std::io::Read;
use std::sync::OnceLock;
use std::time::Duration;
use warpwork_abi::modules::{cubin_arch, ptx_arch, Family, CUBIN_ARCHS, PTX_ARCHS};

/// One family's shipped files: PTX (zstd-compressed) in the order of [`PTX_ARCHS`], cubins in the
/// order of [`CUBIN_ARCHS`].
pub(super) struct Shipped {
    family: Family,
    ptx: [&'static [u8]; PTX_ARCHS.len()],
    cubins: [&'static [u8]; CUBIN_ARCHS.len()],
}

/// Every family's files, in the order of [`Family::ALL`] (written by `build.rs`).
static SHIPPED: [Shipped; Family::ALL.len()] = include!(concat!(env!("OUT_DIR"), "/shipped.rs"));

/// The PTX texts decompressed so far, by family and target: only a device that loads PTX (no
/// cubin for it, or `WARPWORK_CODE=ptx`) needs one, and the driver's compilation of it takes far
/// longer than the decompression (tens of milliseconds for the largest module).
static PTX_TEXT: [[OnceLock<String>; PTX_ARCHS.len()]; Family::ALL.len()] =
    [const { [const { OnceLock::new() }; PTX_ARCHS.len()] }; Family::ALL.len()];

impl Shipped {
    pub(super) fn of(family: Family) -> &'static Shipped {
        let shipped = &SHIPPED[family.index()];
        debug_assert_eq!(shipped.family, family, "build.rs writes the families in the order of Family::ALL");
        shipped
    }

    pub(super) fn ptx(&self, arch: &str) -> &'static str {
        let at = PTX_ARCHS.iter().position(|a| *a == arch).expect("a PTX target");
        PTX_TEXT[self.family.index()][at].get_or_init(|| {
            // The shipped bytes are compiled into the library, and a unit test decompresses every one.
            let mut text = String::new();
            ruzstd::decoding::StreamingDecoder::new(self.ptx[at])
                .map_err(|e| e.to_string())
                .and_then(|mut d| d.read_to_string(&mut text).map_err(|e| e.to_string()))
                .unwrap_or_else(|e| panic!("the shipped PTX of {:?} for {arch} does not decompress: {e}", self.family));
            text
        })
    }

    pub(super) fn cubin(&self, arch: &str) -> &'static [u8] {
        self.cubins[CUBIN_ARCHS.iter().position(|a| a.name == arch).expect("a cubin architecture")]
    }
}

/// Which of warpwork's device code a module is loaded from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Code {
    /// Machine code the device runs as it is (built for `sm_90` on a 9.0 device, for `sm_80`
    /// on 8.0, 8.6 and 8.9 ones): loads in milliseconds.
    Cubin {
        /// The architecture, e.g. `sm_90`.
        arch: &'static str,
    },
    /// PTX, which the driver compiles for the device when the module loads (seconds for a large
    /// module, unless the driver's cache at `~/.nv/ComputeCache` already holds it).
    Ptx {
        /// The PTX target, `sm_70` or `sm_90`.
        arch: &'static str,
        /// Why not a cubin.
        why: PtxReason,
    },
}

/// Why a module is loaded from PTX rather than a cubin.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PtxReason {
    /// No cubin is shipped for the device's architecture (see
    /// [`crate::abi::modules::CUBIN_ARCHS`]).
    NoCubin,
    /// `WARPWORK_CODE=ptx` was set when the handle was opened.
    Forced,
    /// The cubin failed its checks (when the handle opened: in [`super::DeviceInfo::code`]) or the
    /// driver refused it (when the module loaded: in [`super::Gpu::modules`]); the reason.
    CubinFailed(String),
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Code::Cubin { arch } => write!(f, "cubin {arch}"),
            Code::Ptx { arch, why: PtxReason::NoCubin } => write!(f, "PTX {arch} (no cubin for this device)"),
            Code::Ptx { arch, why: PtxReason::Forced } => write!(f, "PTX {arch} (WARPWORK_CODE=ptx)"),
            Code::Ptx { arch, why: PtxReason::CubinFailed(e) } => write!(f, "PTX {arch} (the cubin failed: {e})"),
        }
    }
}

/// The environment variable that makes every module load from PTX (read when a context's first
/// handle opens): for testing the fallback, and for comparing the two.
pub const FORCE_PTX_VAR: &str = "WARPWORK_CODE";

impl Code {
    /// What a device of compute capability `major.minor` is given: its cubin, unless none is
    /// shipped for it or `WARPWORK_CODE=ptx` is set.
    ///
    /// The cubins' ELF structure is checked here, for every family (microseconds, nothing is
    /// loaded): a damaged file makes the device take the PTX with the reason, in
    /// [`super::DeviceInfo::code`]. A cubin the driver refuses when it loads shows in
    /// [`super::Gpu::modules`].
    pub(super) fn for_device(major: u32, minor: u32) -> Code {
        let forced = std::env::var(FORCE_PTX_VAR).is_ok_and(|v| v.eq_ignore_ascii_case("ptx"));
        Code::choose(major, minor, forced, |family, arch| Shipped::of(family).cubin(arch))
    }

    /// [`Code::for_device`] with the cubins from `cubin`.
    fn choose(major: u32, minor: u32, forced: bool, cubin: impl Fn(Family, &str) -> &'static [u8]) -> Code {
        let arch = ptx_arch(major);
        if forced {
            return Code::Ptx { arch, why: PtxReason::Forced };
        }
        let Some(c) = cubin_arch(major, minor) else {
            return Code::Ptx { arch, why: PtxReason::NoCubin };
        };
        let damaged = Family::ALL.into_iter().find_map(|f| check_cubin(cubin(f, c.name)).err().map(|e| (f, e)));
        match damaged {
            Some((f, e)) => Code::Ptx { arch, why: PtxReason::CubinFailed(format!("{} {}: {e}", f.name(), c.name)) },
            None => Code::Cubin { arch: c.name },
        }
    }

    /// Whether this is machine code.
    pub fn is_cubin(&self) -> bool {
        matches!(self, Code::Cubin { .. })
    }
}

/// One of warpwork's modules as loaded into a context.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ModuleInfo {
    /// The kernel family.
    pub family: Family,
    /// What it was loaded from.
    pub code: Code,
    /// How long loading took (for PTX, its decompression and the driver's compilation included).
    pub load_time: Duration,
}

/// Checks that `image` is a whole 64-bit ELF file before the driver sees it: the driver takes a
/// bare pointer and reads as far as the ELF headers say, so a truncated image would be read past
/// its end. The driver itself checks the architecture.
pub(super) fn check_cubin(image: &[u8]) -> Result<(), String> {
    let u16_at = |at: usize| image.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]) as u64);
    let u32_at = |at: usize| image.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()) as u64);
    let u64_at = |at: usize| image.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap()));
    let len = image.len() as u64;
    if image.len() < 64 || &image[..4] != b"\x7fELF" || image[4] != 2 || image[5] != 1 {
        return Err(format!("not a little-endian 64-bit ELF file ({len} bytes)"));
    }
    let fits = |offset: u64, size: u64| offset.checked_add(size).is_some_and(|end| end <= len);
    let table = |off: usize, entsize: usize, num: usize| -> Option<(u64, u64, u64)> {
        Some((u64_at(off)?, u16_at(entsize)?, u16_at(num)?))
    };
    // Program headers (e_phoff, e_phentsize, e_phnum) and section headers (e_shoff, …).
    let (phoff, phentsize, phnum) = table(32, 54, 56).ok_or("short ELF header")?;
    let (shoff, shentsize, shnum) = table(40, 58, 60).ok_or("short ELF header")?;
    if !fits(phoff, phentsize * phnum) || !fits(shoff, shentsize * shnum) || shentsize < 64 {
        return Err(format!("truncated: its header tables end past its {len} bytes"));
    }
    for i in 0..shnum {
        let at = (shoff + i * shentsize) as usize;
        let (kind, offset, size) = (u32_at(at + 4), u64_at(at + 24), u64_at(at + 32));
        let (Some(kind), Some(offset), Some(size)) = (kind, offset, size) else {
            return Err("truncated section header".into());
        };
        // SHT_NOBITS (8) takes no room in the file.
        if kind != 8 && !fits(offset, size) {
            return Err(format!("truncated: section {i} ends past its {len} bytes"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_cubin_passes_the_check_and_truncations_fail() {
        for family in Family::ALL {
            let shipped = Shipped::of(family);
            assert_eq!(shipped.family, family);
            for arch in CUBIN_ARCHS {
                let cubin = shipped.cubin(arch.name);
                assert_eq!(check_cubin(cubin), Ok(()), "{family:?} {}", arch.name);
                for cut in [0, 3, 63, cubin.len() / 2, cubin.len() - 1] {
                    assert!(check_cubin(&cubin[..cut]).is_err(), "{family:?} {} cut at {cut}", arch.name);
                }
            }
            for arch in PTX_ARCHS {
                assert!(shipped.ptx(arch).contains(&format!(".target {arch}")), "{family:?} {arch}");
            }
        }
        assert!(check_cubin(b".version 8.0\n.target sm_90\n").is_err());
    }

    #[test]
    fn devices_get_the_cubin_of_their_major_version_or_the_ptx() {
        // (Assumes WARPWORK_CODE is not set for the unit tests.)
        if std::env::var_os(FORCE_PTX_VAR).is_some() {
            return;
        }
        assert_eq!(Code::for_device(9, 0), Code::Cubin { arch: "sm_90" });
        assert_eq!(Code::for_device(8, 6), Code::Cubin { arch: "sm_80" });
        assert_eq!(Code::for_device(7, 5), Code::Ptx { arch: "sm_70", why: PtxReason::NoCubin });
        assert_eq!(Code::for_device(10, 3), Code::Cubin { arch: "sm_100" });
        assert_eq!(Code::for_device(12, 0), Code::Ptx { arch: "sm_90", why: PtxReason::NoCubin });
        assert_eq!(Code::for_device(9, 0).to_string(), "cubin sm_90");
    }

    #[test]
    fn a_damaged_cubin_sends_the_device_to_the_ptx_with_the_reason() {
        let shipped = |f: Family, arch: &str| Shipped::of(f).cubin(arch);
        assert_eq!(Code::choose(9, 0, false, shipped), Code::Cubin { arch: "sm_90" });
        let truncated = |f: Family, arch: &str| {
            let c = Shipped::of(f).cubin(arch);
            if f == Family::Scan {
                &c[..c.len() / 2]
            } else {
                c
            }
        };
        match Code::choose(9, 0, false, truncated) {
            Code::Ptx { arch: "sm_90", why: PtxReason::CubinFailed(reason) } => {
                assert!(reason.starts_with("scan sm_90: truncated"), "{reason}")
            }
            c => panic!("{c:?}"),
        }
        assert_eq!(Code::choose(9, 0, true, shipped), Code::Ptx { arch: "sm_90", why: PtxReason::Forced });
    }
}
