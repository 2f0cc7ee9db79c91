//! Unit tests of `gpu` (no GPU needed).

use super::*;

#[test]
fn handles_move_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Gpu>();
    send_sync::<crate::expand::Expander>();
}

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
        assert!(unlisted.is_empty(), "{arch}: kernels missing from warpwork_abi::kernels::all_kernels(): {unlisted:?}");
        assert!(missing.is_empty(), "{arch}: listed in warpwork_abi::kernels but not in the PTX: {missing:?}");
    }
}

#[test]
fn entry_names_are_read_from_ptx() {
    let ptx = ".version 6.0\n.visible .entry scan_x(\n\t.param .u64 a\n)\n.entry other (\n.func helper(";
    assert_eq!(entries(ptx), std::collections::BTreeSet::from(["scan_x", "other"]));
}
