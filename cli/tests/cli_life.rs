//! `warpwork life` as a user (or an attacker) runs it: every hostile argument (sizes, windows,
//! scales, densities, kernels, output paths) ends in a typed error and exit status 1, before any
//! work, and never in a panic. Runs the real binary; needs no GPU (runs are on the CPU reference
//! with `--cpu`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn warpwork(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpwork")).arg("life").args(args).output().expect("run warpwork")
}

/// Runs `args`, expects a clean refusal (status 1, `error: ...`, no panic) mentioning `needle`,
/// within `limit`.
fn refused(args: &[&str], needle: &str) {
    let t = Instant::now();
    let out = warpwork(args);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stdout}{stderr}");
    assert!(stderr.starts_with("error: ") && stderr.contains(needle), "{args:?}: {stderr}");
    assert!(t.elapsed() < Duration::from_secs(20), "{args:?} took {:?}", t.elapsed());
}

/// A scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpwork-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn huge_and_zero_numbers_are_refused_not_wrapped() {
    refused(&["--cpu", "--window", "18446744073709551615,0,1x1"], "--png");
    refused(&["--cpu", "--png", "/dev/null", "--window", "18446744073709551615,0,1x1"], "window");
    refused(&["--cpu", "--png", "/dev/null", "--scale", "2305843009213693953"], "pixels");
    refused(&["--cpu", "--png", "/dev/null", "--scale", "0"], "scale");
    refused(&["--cpu", "--size", "18446744073709551615x64"], "limit");
    refused(&["--cpu", "--size", "18446744073709551615x64", "--png", "/dev/null"], "limit");
    refused(&["--cpu", "--size", "2147483648x2147483648"], "limit");
    refused(&["--cpu", "--size", "0x64"], "1x1");
    refused(&["--cpu", "--size", "64x64", "--max-cells", "0"], "limit");
    refused(&["--cpu", "--density", "NaN"], "density");
    // u64::MAX generations is a valid (endless) request: the bad output path ends it first.
    refused(&["--cpu", "-g", "18446744073709551615", "--rle", "/nonexistent/dir/x.rle"], "cannot be written");
}

#[test]
fn the_split_over_gpus_is_checked_without_a_gpu() {
    refused(&["--cpu", "--gpus", "2"], "--cpu and --gpus");
    refused(&["--gpus", "2", "--kernel", "bit64-t8", "--size", "64x15"], "shorter than the 8-row halo");
    refused(&["--gpus", "3", "--kernel", "tiled", "--size", "8x2"], "band 2 of 0 rows");
}

#[test]
fn kernels_are_checked_without_a_gpu() {
    refused(&["--cpu", "--kernel", "nope"], "unknown Life kernel");
    refused(&["--cpu", "--kernel", "bit64", "--size", "100x100"], "multiple of 64");
    refused(&["--cpu", "--kernel", "tiled", "--size", "2147483648x1"], "capacity");
}

#[test]
fn outputs_are_checked_before_the_run_and_removed_after_a_failure() {
    let d = scratch("outputs");
    refused(&["--cpu", "-g", "1000000000000", "--png", s(&d)], "directory");
    let png = d.join("new.png");
    refused(&["--cpu", "--png", s(&png), "--rle", s(&png)], "same file");
    assert!(!png.exists(), "created for a refused run: removed");
    refused(&["--cpu", s(&d.join("missing.rle")), "--png", s(&png)], "missing.rle");
    assert!(!png.exists(), "created for a failed run: removed");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn hostile_pattern_files_are_refused_and_names_are_printed_clean() {
    let d = scratch("patterns");
    let big = d.join("big.rle");
    std::fs::write(&big, "x = 1048576, y = 1048576\n!").unwrap();
    refused(&["--cpu", s(&big)], "limit");
    let mut cells = "\n".repeat(1 << 20);
    cells.push_str(&"O".repeat(1 << 20));
    let long = d.join("long.cells");
    std::fs::write(&long, cells).unwrap();
    refused(&["--cpu", s(&long)], "limit");
    refused(&["--cpu", s(&long), "--size", "8x8", "--max-bytes", "1000"], "pattern text");
    let wide = d.join("wide.rle");
    std::fs::write(&wide, "x = 20, y = 1\n20o!").unwrap();
    refused(&["--cpu", s(&wide), "--size", "16x16"], "does not fit");

    let evil = d.join("evil.rle");
    std::fs::write(&evil, "#N \u{1b}]0;owned\u{7}\u{1b}[2Jglider\nx = 3, y = 3\nbob$2bo$3o!").unwrap();
    let rle = d.join("out.rle");
    let out = warpwork(&["--cpu", s(&evil), "--size", "16x16", "-g", "4", "--rle", s(&rle)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(!stdout.chars().any(|c| c.is_control() && c != '\n'), "{stdout:?}");
    assert!(stdout.contains("]0;owned[2Jglider on a 16x16 torus"), "{stdout}");
    let written = std::fs::read_to_string(&rle).unwrap();
    assert!(written.starts_with("#N ]0;owned[2Jglider, generation 4\nx = 16, y = 16"), "{written}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_small_run_writes_both_outputs() {
    let d = scratch("run");
    let (png, rle) = (d.join("g.png"), d.join("g.rle"));
    let out = warpwork(&["glider", "--cpu", "--size", "16x16", "-g", "8", "--png", s(&png), "--rle", s(&rle)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("final population 5"), "{stdout}");
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    let text = std::fs::read_to_string(&rle).unwrap();
    let p = warpwork_life::pattern::parse(&text, &warpwork_life::Limits::DEFAULT).unwrap();
    assert_eq!((p.grid.width(), p.grid.population()), (16, 5));
    std::fs::remove_dir_all(&d).unwrap();
}
