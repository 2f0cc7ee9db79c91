//! The Life kernels' PTX module, loaded into a `warpwork::Gpu`'s context, and the bit kernels'
//! modules per rule.
//!
//! The kernels are this crate's own (`kernels/`, built to `kernels/warpwork_life_sm_70.ptx`,
//! which is shipped so that building this crate needs no kernel toolchain). One module serves
//! every GPU warpwork supports: the driver compiles the sm_70 PTX for the device at hand, and
//! the Life kernels use nothing that warpwork-kernels builds differently for sm_90.
//!
//! The bit kernels have the rule in the truth tables of four `lop3` instructions
//! ([`crate::abi::rule_luts`]), built with B3/S23's and marked in the PTX; [`rule_ptx`] cuts them
//! out of the module and writes a rule's tables in, and `Life` loads that text with
//! `Gpu::ptx_kernels` (once per context and rule).

use crate::abi::{kernels::LUT_KERNELS, rule_luts, LUT_MARKER, LUT_TABLES};
use crate::{Error, Result};
use warpwork::DeviceCode;

/// The shipped PTX of `kernels/`.
pub(crate) const PTX: &str = include_str!("../kernels/warpwork_life_sm_70.ptx");

/// The crate's device code, as `warpwork::Gpu::kernels` takes it: loaded once per context.
pub(crate) static DEVICE_CODE: DeviceCode = DeviceCode { name: "warpwork-life", ptx: &[("sm_70", PTX)], cubins: &[] };

/// The names of the kernels of [`rule_ptx`]'s module.
pub(crate) const RULE_KERNELS: [&str; LUT_KERNELS.len()] = {
    let mut names = [""; LUT_KERNELS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = LUT_KERNELS[i].0;
        i += 1;
    }
    names
};

/// The bit kernels ([`LUT_KERNELS`]) with the tables of `rule` ([`crate::abi::pack_rule`]): the
/// shipped module without its other kernels, each marked `lop3` given the rule's table. A small
/// module, which the driver compiles in a fraction of a second.
pub(crate) fn rule_ptx(rule: u32) -> Result<String> {
    patch(PTX, rule_luts(rule))
}

/// [`rule_ptx`] on any module text: keeps everything but the entries not in [`LUT_KERNELS`],
/// writes `luts[k]` into each `lop3` marked `k`, and checks that each marker was found exactly
/// as often as the kernels have rule steps ([`Error::InvalidInput`] otherwise: a module built
/// differently from what this crate expects, which must not run with the placeholder tables).
fn patch(ptx: &str, luts: [u8; LUT_TABLES]) -> Result<String> {
    let bad = |what: String| Error::InvalidInput(format!("the Life kernels' PTX: {what}"));
    let mut out = String::with_capacity(ptx.len());
    let mut found = [0usize; LUT_TABLES];
    let mut lines = ptx.split_inclusive('\n');
    while let Some(line) = lines.next() {
        if let Some(rest) = line.trim_start().strip_prefix(".visible .entry ") {
            let name = rest.split(['(', ' ']).next().unwrap_or("");
            if !RULE_KERNELS.contains(&name) {
                // Skip the entry, through the line that closes its body.
                lines.by_ref().find(|l| l.trim_end() == "}");
                continue;
            }
        }
        let Some(at) = line.find(LUT_MARKER) else {
            out.push_str(line);
            continue;
        };
        let k = line[at + LUT_MARKER.len()..].trim_end().parse::<usize>().ok().filter(|&k| k < LUT_TABLES);
        let code = line[..at].trim_end().strip_suffix(';');
        let (Some(k), Some(code)) = (k, code) else {
            return Err(bad(format!("a marked line that is not a marked instruction: {:?}", line.trim())));
        };
        let Some((operands, _placeholder)) =
            code.rsplit_once(", ").filter(|(o, _)| o.trim_start().starts_with("lop3.b32 "))
        else {
            return Err(bad(format!("marker {k} is not on a lop3.b32: {:?}", line.trim())));
        };
        out.push_str(&format!("{operands}, 0x{:02x}; {LUT_MARKER}{k}\n", luts[k]));
        found[k] += 1;
    }
    let expected: usize = LUT_KERNELS.iter().map(|&(_, steps)| steps).sum();
    if let Some(k) = (0..LUT_TABLES).find(|&k| found[k] != expected) {
        return Err(bad(format!("marker {LUT_MARKER}{k} found {} times, expected {expected}", found[k])));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::{pack_rule, B3_S23, LUT_PLACEHOLDERS};
    use std::collections::BTreeSet;

    #[test]
    fn the_shipped_module_exports_exactly_the_listed_kernels() {
        let listed: BTreeSet<&str> = crate::abi::kernels::KERNELS.into_iter().collect();
        assert_eq!(listed.len(), crate::abi::kernels::KERNELS.len(), "a name is listed twice");
        assert_eq!(DEVICE_CODE.entries(), listed, "kernels/warpwork_life_sm_70.ptx against abi::kernels::KERNELS");
        assert!(PTX.contains(".target sm_70"), "one module for every GPU from compute capability 7.0");
    }

    /// The marked `lop3`s of `ptx`, per entry: (kernel, marker, table).
    fn marked(ptx: &str) -> Vec<(String, usize, String)> {
        let mut entry = String::new();
        let mut v = Vec::new();
        for line in ptx.lines() {
            if let Some(rest) = line.trim_start().strip_prefix(".visible .entry ") {
                entry = rest.split('(').next().unwrap().to_string();
            }
            if let Some(at) = line.find(LUT_MARKER) {
                let k = line[at + LUT_MARKER.len()..].trim().parse().unwrap();
                let table = line[..at].trim_end().trim_end_matches(';').rsplit(", ").next().unwrap().to_string();
                v.push((entry.clone(), k, table));
            }
        }
        v
    }

    #[test]
    fn every_marker_appears_once_per_rule_step_of_each_bit_kernel() {
        let marks = marked(PTX);
        for (kernel, steps) in LUT_KERNELS {
            for k in 0..LUT_TABLES {
                let n = marks.iter().filter(|(e, m, _)| e == kernel && *m == k).count();
                assert_eq!(n, steps, "{kernel}, marker {k}");
            }
        }
        let steps: usize = LUT_KERNELS.iter().map(|k| k.1).sum();
        assert_eq!(marks.len(), LUT_TABLES * steps, "markers outside the bit kernels");
        // The placeholders are B3/S23's tables, as the const operands print them (decimal).
        assert!(marks.iter().all(|(_, k, t)| *t == LUT_PLACEHOLDERS[*k].to_string()));
    }

    #[test]
    fn the_rule_module_holds_the_bit_kernels_with_the_rules_tables() {
        let conway = rule_ptx(B3_S23).unwrap();
        let marks = marked(&conway);
        assert_eq!(marks.len(), LUT_TABLES * 71);
        assert!(marks.iter().all(|(_, k, t)| *t == format!("0x{:02x}", LUT_PLACEHOLDERS[*k])), "B3/S23's tables");
        assert_eq!(entries(&conway), RULE_KERNELS.into_iter().collect(), "only the bit kernels");
        assert!(conway.len() < PTX.len() / 2, "a small module");
        for needed in [".version", ".target sm_70", ".address_size 64", ".func "] {
            assert!(conway.contains(needed), "{needed}");
        }
        // HighLife, B36/S23: other tables, and nothing else changes.
        let high_life = rule_luts(pack_rule(1 << 3 | 1 << 6, 1 << 2 | 1 << 3));
        assert_ne!(high_life, LUT_PLACEHOLDERS);
        let patched = patch(&conway, high_life).unwrap();
        assert!(marked(&patched).iter().all(|(_, k, t)| *t == format!("0x{:02x}", high_life[*k])));
        assert_eq!(patch(&patched, LUT_PLACEHOLDERS).unwrap(), conway, "nothing else changes");
    }

    fn entries(ptx: &str) -> BTreeSet<&str> {
        ptx.lines()
            .filter_map(|l| l.trim_start().strip_prefix(".visible .entry "))
            .map(|r| r.split('(').next().unwrap())
            .collect()
    }

    /// The rule modules assemble, without stack or spills, for sm_70 and sm_90: with the ptxas
    /// that `WARPWORK_PTXAS` names (CI sets it), else the test says so and passes.
    #[test]
    fn rule_modules_assemble_without_stack_or_spills() {
        let Some(ptxas) = std::env::var_os("WARPWORK_PTXAS") else {
            println!("WARPWORK_PTXAS is not set: the rule modules are not assembled");
            return;
        };
        let file = std::env::temp_dir().join(format!("warpwork-life-rule-{}.ptx", std::process::id()));
        for rule in ["B36/S23", "B3678/S34678", "B2/S", "B0/S8", "B3/S012345678"] {
            let rule: crate::Rule = rule.parse().unwrap();
            std::fs::write(&file, rule_ptx(rule.packed()).unwrap()).unwrap();
            for arch in ["sm_70", "sm_90"] {
                let out = std::process::Command::new(&ptxas)
                    .args([&format!("-arch={arch}"), "-v", "-o", "/dev/null"])
                    .arg(&file)
                    .output()
                    .unwrap();
                let log = String::from_utf8_lossy(&out.stderr);
                assert!(out.status.success(), "{rule} {arch}: {log}");
                let frames: Vec<_> = log.lines().filter(|l| l.contains("bytes stack frame")).collect();
                assert!(!frames.is_empty(), "{rule} {arch}: {log}");
                for l in frames {
                    assert!(
                        l.contains("0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"),
                        "{rule} {arch}: {l}"
                    );
                }
            }
        }
        std::fs::remove_file(&file).unwrap();
    }

    #[test]
    fn a_module_with_a_marker_missing_or_moved_is_refused() {
        let first = PTX.find(LUT_MARKER).unwrap();
        let line_end = first + PTX[first..].find('\n').unwrap();
        let missing = format!("{}{}", &PTX[..first], &PTX[line_end..]);
        let none = [0; LUT_TABLES];
        assert!(
            matches!(patch(&missing, none), Err(Error::InvalidInput(m)) if m.contains("found 70 times, expected 71"))
        );
        let twice = format!("{}\n\tlop3.b32 %r1, %r2, %r3, %r4, 0; {LUT_MARKER}3\n", PTX);
        assert!(patch(&twice, none).is_err());
        let unknown = format!("{}\n\tlop3.b32 %r1, %r2, %r3, %r4, 0; {LUT_MARKER}{LUT_TABLES}\n", PTX);
        assert!(patch(&unknown, none).is_err());
        let not_lop3 = PTX.replacen("lop3.b32 ", "and.b32 ", 1);
        assert!(patch(&not_lop3, none).is_err());
        assert!(patch(PTX, none).is_ok());
    }
}
