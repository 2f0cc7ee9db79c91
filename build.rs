//! Hands the host the PTX of warpwork's kernels: the shipped PTX in `ptx/` by default, or PTX
//! built from `kernels/` when warpwork's own development asks for it.
//!
//! Building the kernels needs rustc's `nvptx64-nvidia-cuda` target with `-Zbuild-std=core`: the
//! pinned toolchain of `kernels/rust-toolchain.toml` with its `rust-src` and
//! `llvm-bitcode-linker` components, and nightly features enabled on it. A crate that depends on
//! warpwork must never need any of that (nor run rustup, nor wait a minute for it), so the build
//! is opt-in. `WARPWORK_PTX` chooses:
//!
//! * unset or `shipped` (default): use the PTX shipped in `ptx/`; runs nothing;
//! * `build`: build `kernels/` (a checkout of the repository, not the published package) with the
//!   pinned toolchain, and fail if that is impossible;
//! * `update`: build and also rewrite `ptx/` (what CI compares against the repository).

use std::{
    env, fs,
    path::{Path, PathBuf},
    process::Command,
};

/// (architecture, kernel-crate features): sm_70 runs everywhere warpwork supports; the sm_90
/// module adds instructions of newer GPUs and is picked by the host on compute capability ≥ 9.0.
const TARGETS: [(&str, &str); 2] = [("sm_70", "kernels"), ("sm_90", "kernels,sm90")];

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    let shipped_dir = manifest.join("ptx");
    println!("cargo:rerun-if-env-changed=WARPWORK_PTX");
    println!("cargo:rerun-if-changed={}", shipped_dir.display());

    let mode = env::var("WARPWORK_PTX").unwrap_or_default();
    let build = match mode.as_str() {
        "" | "shipped" => false,
        "build" | "update" => true,
        other => panic!("WARPWORK_PTX={other}: expected shipped (the default), build or update"),
    };
    let kernels = manifest.join("kernels");
    let toolchain = if build { Some(kernel_toolchain(&kernels)) } else { None };
    // Kernel builds go next to the host's own build products, one target directory per arch.
    let kernel_target = out.ancestors().nth(3).unwrap_or(&out).join("warpwork-kernels");

    for (arch, features) in TARGETS {
        let file = format!("warpwork_{arch}.ptx");
        let shipped = shipped_dir.join(&file);
        let ptx = if let Some(toolchain) = &toolchain {
            let ptx = build_ptx(toolchain, &kernels, &kernel_target.join(arch), arch, features);
            let current = fs::read_to_string(&shipped).ok().as_deref() == Some(ptx.as_str());
            if mode == "update" && !current {
                // Written only when changed: `ptx/` is watched, so a rewrite would rerun this.
                fs::write(&shipped, &ptx).expect("write shipped PTX");
            } else if !current {
                println!(
                    "cargo:warning=ptx/{file} differs from the kernels just built: \
                     run `WARPWORK_PTX=update cargo build` and commit it"
                );
            }
            ptx
        } else {
            fs::read_to_string(&shipped).unwrap_or_else(|e| panic!("{}: {e} (the shipped PTX)", shipped.display()))
        };
        fs::write(out.join(&file), ptx).expect("write PTX to OUT_DIR");
    }
}

/// The pinned kernel toolchain, read from `kernels/rust-toolchain.toml` (its one source), after
/// registering the kernel sources for rebuilds.
fn kernel_toolchain(kernels: &Path) -> String {
    let file = kernels.join("rust-toolchain.toml");
    let text = fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "WARPWORK_PTX asks for a kernel build, but {}: {e}. The kernel sources are in the \
             repository, not in the published package: build from a checkout",
            file.display()
        )
    });
    // abi/ holds the layouts, codes and constants the kernels are compiled with.
    for p in
        ["src", "Cargo.toml", "Cargo.lock", "rust-toolchain.toml", ".cargo/config.toml", "abi/src", "abi/Cargo.toml"]
    {
        println!("cargo:rerun-if-changed={}", kernels.join(p).display());
    }
    let channel = text.lines().find_map(|l| {
        let (key, value) = l.split_once('=')?;
        (key.trim() == "channel").then(|| value.trim().trim_matches('"').to_owned())
    });
    channel.unwrap_or_else(|| panic!("{}: no `channel = \"…\"` line", file.display()))
}

/// Builds the exported kernels for `arch` and returns the PTX. The flags repeat what
/// `kernels/.cargo/config.toml` records for a build by hand, with the architecture set per module.
fn build_ptx(toolchain: &str, kernels: &Path, target_dir: &Path, arch: &str, features: &str) -> String {
    let status = clean(Command::new("rustup"))
        .args(["run", toolchain, "cargo", "rustc", "--release", "--locked"])
        .args(["--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core", "--crate-type", "cdylib"])
        .args(["--features", features])
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(kernels)
        // The kernel crate uses nightly features (`abi_ptx`, inline PTX) on the pinned stable.
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_ENCODED_RUSTFLAGS", format!("-Ctarget-cpu={arch}"))
        .status()
        .unwrap_or_else(|e| panic!("running rustup for the kernel build (WARPWORK_PTX is set): {e}"));
    assert!(
        status.success(),
        "building kernels/ for {arch} failed (see the errors above; the toolchain needs \
         `rustup component add --toolchain {toolchain} rust-src llvm-tools llvm-bitcode-linker`)"
    );
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
