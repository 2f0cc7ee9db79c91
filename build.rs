//! Compiles `kernels/` to PTX, once per target architecture, and hands the host the result.
//!
//! The kernels need rustc's `nvptx64-nvidia-cuda` target with `-Zbuild-std=core`, which means a
//! pinned toolchain with the `rust-src` and `llvm-bitcode-linker` components. A user on plain
//! stable Rust without them still gets working kernels: the repository ships the generated PTX in
//! `kernels/ptx/`, and this script falls back to it. `WARPWORK_PTX` chooses:
//!
//! * `auto` (default): build if the pinned toolchain is installed, else use the shipped PTX;
//! * `shipped`: always use the shipped PTX;
//! * `build`: build, and fail if that is impossible;
//! * `update`: build and also rewrite `kernels/ptx/` (what CI compares against the repository).

use std::{
    env, fs,
    path::{Path, PathBuf},
    process::Command,
};

/// The toolchain the shipped PTX is built with: pinned so that the PTX is reproducible.
const KERNEL_TOOLCHAIN: &str = "1.95.0";

/// (architecture, kernel-crate features): sm_70 runs everywhere warpwork supports; the sm_90
/// module adds instructions of newer GPUs and is picked by the host on compute capability ≥ 9.0.
const TARGETS: [(&str, &str); 2] = [("sm_70", "kernels"), ("sm_90", "kernels,sm90")];

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    let kernels = manifest.join("kernels");
    for p in ["src", "Cargo.toml", "ptx"] {
        println!("cargo:rerun-if-changed={}", kernels.join(p).display());
    }
    // The kernels' shared definitions (layouts, codes, constants) are part of their source.
    println!("cargo:rerun-if-changed={}", manifest.join("abi").display());
    println!("cargo:rerun-if-env-changed=WARPWORK_PTX");

    let mode = env::var("WARPWORK_PTX").unwrap_or_else(|_| "auto".into());
    let build = match mode.as_str() {
        "shipped" => false,
        "build" | "update" => true,
        "auto" => toolchain_present(),
        other => panic!("WARPWORK_PTX={other}: expected auto, shipped, build or update"),
    };
    // Kernel builds go next to the host's own build products, one target directory per arch.
    let kernel_target = out.ancestors().nth(3).unwrap_or(&out).join("warpwork-kernels");

    for (arch, features) in TARGETS {
        let file = format!("warpwork_{arch}.ptx");
        let shipped = kernels.join("ptx").join(&file);
        let ptx = if build {
            let ptx = build_ptx(&kernels, &kernel_target.join(arch), arch, features);
            if mode == "update" {
                fs::write(&shipped, &ptx).expect("write shipped PTX");
            } else if fs::read_to_string(&shipped).ok().as_deref() != Some(ptx.as_str()) {
                println!(
                    "cargo:warning=kernels/ptx/{file} differs from the kernels just built: \
                     run `WARPWORK_PTX=update cargo build` and commit it"
                );
            }
            ptx
        } else {
            fs::read_to_string(&shipped)
                .unwrap_or_else(|e| panic!("{}: {e} (no kernel toolchain and no shipped PTX)", shipped.display()))
        };
        fs::write(out.join(&file), ptx).expect("write PTX to OUT_DIR");
    }
}

/// Whether the pinned toolchain and its `rust-src` are installed (through rustup).
fn toolchain_present() -> bool {
    let sysroot = clean(Command::new("rustup")).args(["run", KERNEL_TOOLCHAIN, "rustc", "--print", "sysroot"]).output();
    match sysroot {
        Ok(o) if o.status.success() => {
            let root = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
            root.join("lib/rustlib/src/rust/library/core").is_dir()
        }
        _ => false,
    }
}

fn build_ptx(kernels: &Path, target_dir: &Path, arch: &str, features: &str) -> String {
    let status = clean(Command::new("rustup"))
        .args(["run", KERNEL_TOOLCHAIN, "cargo", "rustc", "--release", "--locked"])
        .args(["--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core", "--crate-type", "cdylib"])
        .args(["--features", features])
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(kernels)
        // The kernel crate uses nightly features (`abi_ptx`, inline PTX) on the pinned stable.
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_ENCODED_RUSTFLAGS", format!("-Ctarget-cpu={arch}"))
        .status()
        .unwrap_or_else(|e| panic!("running rustup for the kernel build: {e}"));
    assert!(status.success(), "building kernels/ for {arch} failed (see the errors above)");
    let ptx = target_dir.join("nvptx64-nvidia-cuda/release/warpwork_kernels.ptx");
    fs::read_to_string(&ptx).unwrap_or_else(|e| panic!("{}: {e}", ptx.display()))
}

/// A command without the outer build's cargo and rustc variables, so that the nested kernel
/// build uses its own toolchain, flags and target.
fn clean(mut cmd: Command) -> Command {
    const OUTER: [&str; 9] =
        ["RUSTC", "RUSTDOC", "RUSTFLAGS", "RUSTUP_TOOLCHAIN", "TARGET", "HOST", "OUT_DIR", "PROFILE", "OPT_LEVEL"];
    for (k, _) in env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if (k.starts_with("CARGO") && k != "CARGO_HOME") || OUTER.iter().any(|o| k.starts_with(o)) {
            cmd.env_remove(&k);
        }
    }
    cmd
}
