use super::*;
use crate::gpu::code::{Code, PtxReason};
use std::collections::BTreeSet;
use warpwork_abi::kernels::all_kernels;
use warpwork_abi::modules::{CUBIN_ARCHS, PTX_ARCHS};

use crate::gpu::own::ptx_entries as entries;

#[test]
fn every_module_exports_exactly_its_family() {
    let listed: BTreeSet<&str> = all_kernels().collect();
    assert_eq!(listed.len(), all_kernels().count(), "a name is listed twice in warpwork_abi::kernels");
    for family in Family::ALL {
        let expected: BTreeSet<&str> = family.kernels().collect();
        for arch in PTX_ARCHS {
            let exported = entries(Shipped::of(family).ptx(arch));
            let unlisted: Vec<_> = exported.difference(&expected).collect();
            let missing: Vec<_> = expected.difference(&exported).collect();
            assert!(unlisted.is_empty(), "{family:?} {arch}: kernels missing from its family's list: {unlisted:?}");
            assert!(missing.is_empty(), "{family:?} {arch}: listed but not in the PTX: {missing:?}");
        }
        for name in family.kernels() {
            assert_eq!(family_of(name), Some(family), "{name}");
        }
    }
    assert_eq!(family_of("no_such_kernel"), None);
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
    let known: BTreeSet<&str> = all_kernels().collect();
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

/// A cubin that is truncated, or built for another architecture, falls back to the PTX with the
/// reason, and the module works.
#[test]
#[ignore = "needs a GPU: run the GPU suite"]
fn a_bad_cubin_falls_back_to_the_ptx() {
    let gpu = crate::Gpu::new(0).unwrap();
    let (major, _) = gpu.info().compute_capability;
    let shipped = Shipped::of(Family::Timing);
    let here = gpu.info().code.clone();
    let cubin_code = |arch| Code::Cubin { arch };
    let other = CUBIN_ARCHS.iter().find(|a| a.major != major as u32).unwrap();
    let own = CUBIN_ARCHS.iter().find(|a| a.major == major as u32).unwrap_or(other);
    let truncated = &shipped.cubin(own.name)[..1000];
    for (image, what) in [(truncated, "truncated"), (shipped.cubin(other.name), "another architecture")] {
        let m = load(gpu.context(), Family::Timing, &cubin_code(own.name), image).unwrap();
        match &m.info.code {
            Code::Ptx { why: PtxReason::CubinFailed(reason), .. } => println!("{what}: {reason}"),
            c => panic!("{what}: loaded as {c:?}"),
        }
        assert!(m.functions.contains_key(warpwork_abi::kernels::HOLD_STREAM));
    }
    // The handle's own modules are unaffected.
    assert_eq!(gpu.info().code, here);
}
