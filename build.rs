//! Hands the host warpwork's device code, one module per kernel family (`warpwork_abi::modules`):
//! PTX for two targets and cubins for the architectures people run, shipped in `ptx/` by default,
//! or built from `kernels/` when warpwork's own development asks for it.
//!
//! Building the kernels needs rustc's `nvptx64-nvidia-cuda` target with `-Zbuild-std=core` (the
//! pinned toolchain of `kernels/rust-toolchain.toml` with its `rust-src` and
//! `llvm-bitcode-linker` components, nightly features enabled on it) and the pinned ptxas of
//! `kernels/ptxas.toml` for the cubins. A crate that depends on warpwork must never need any of
//! that, so the build is opt-in. `WARPWORK_PTX` chooses:
//!
//! * unset or `shipped` (default): use the files shipped in `ptx/`; runs nothing;
//! * `build`: build `kernels/` (a checkout of the repository, not the published package) and
//!   fail if that is impossible;
//! * `update`: build and also rewrite `ptx/` (what CI compares against the repository).
//!
//! `WARPWORK_PTXAS` names the ptxas to use; by default `scripts/ptxas.sh` finds (or installs)
//! the pinned one. Either way its version must be the pinned one: cubins are compared byte for
//! byte.
//!
//! The PTX is shipped compressed (`{family}_{arch}.ptx.zst`, zstd level 19: a seventh of the
//! text, where the package's own gzip keeps a third) and the host decompresses a module's PTX
//! only when a device loads it from PTX; cubins are shipped as they are. A kernel build
//! compresses with the `zstd` command, and compares and rewrites by the text, not by the
//! compressed bytes.
//!
//! The host includes the files through `OUT_DIR/shipped.rs`, which this script writes: one entry
//! per family, its PTX in the order of `PTX_ARCHS` and its cubins in the order of `CUBIN_ARCHS`.

use std::{
    env, fs,
    path::{Path, PathBuf},
    process::Command,
};
use warpwork_abi::modules::{ptx_arch, CubinArch, Family, CUBIN_ARCHS, PTX_ARCHS};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    let shipped_dir = manifest.join("ptx");
    println!("cargo:rerun-if-env-changed=WARPWORK_PTX");
    println!("cargo:rerun-if-env-changed=WARPWORK_PTXAS");
    println!("cargo:rerun-if-changed={}", shipped_dir.display());

    let mode = env::var("WARPWORK_PTX").unwrap_or_default();
    let build = match mode.as_str() {
        "" | "shipped" => false,
        "build" | "update" => true,
        other => panic!("WARPWORK_PTX={other}: expected shipped (the default), build or update"),
    };
    let files = if build { build_all(&manifest, &out) } else { read_shipped(&shipped_dir) };

    for (name, built) in files {
        let shipped = shipped_dir.join(&name);
        // A built PTX is text and the shipped one compressed: compared as text, and compressed
        // only when it changed (the shipped bytes are kept otherwise).
        let (current, bytes) = match (build, name.ends_with(ZST)) {
            (false, _) => (true, built),
            (true, true) => match fs::read(&shipped) {
                Ok(z) if zstd(&["-d"], &z) == built => (true, z),
                _ => (false, zstd(&["-19"], &built)),
            },
            (true, false) => (fs::read(&shipped).ok().as_ref() == Some(&built), built),
        };
        if !current && mode == "update" {
            // Written only when changed: `ptx/` is watched, so a rewrite would rerun this.
            fs::write(&shipped, &bytes).expect("write shipped device code");
        } else if !current {
            println!(
                "cargo:warning=ptx/{name} differs from the kernels just built: \
                 run `WARPWORK_PTX=update cargo build` and commit it"
            );
        }
        fs::write(out.join(&name), &bytes).expect("write device code to OUT_DIR");
    }
    fs::write(out.join("shipped.rs"), shipped_rs()).expect("write shipped.rs");
}

/// The suffix of a compressed file.
const ZST: &str = ".zst";

fn ptx_file(family: Family, arch: &str) -> String {
    format!("{}_{arch}.ptx{ZST}", family.name())
}

fn cubin_file(family: Family, arch: CubinArch) -> String {
    format!("{}_{}.cubin", family.name(), arch.name)
}

/// Every shipped file's name, in the order `shipped.rs` lists them.
fn file_names() -> Vec<String> {
    let mut names = Vec::new();
    for family in Family::ALL {
        names.extend(PTX_ARCHS.iter().map(|arch| ptx_file(family, arch)));
        names.extend(CUBIN_ARCHS.iter().map(|&cc| cubin_file(family, cc)));
    }
    names
}

fn read_shipped(dir: &Path) -> Vec<(String, Vec<u8>)> {
    file_names()
        .into_iter()
        .map(|name| {
            let path = dir.join(&name);
            let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (shipped device code)", path.display()));
            (name, bytes)
        })
        .collect()
}

/// The Rust source the host includes: the shipped modules as `include_str!`/`include_bytes!` of
/// the files in OUT_DIR.
fn shipped_rs() -> String {
    let include = |mac: &str, name: &str| format!("{mac}!(concat!(env!(\"OUT_DIR\"), \"/{name}\"))");
    let mut s = String::from("// Written by build.rs: one entry per `Family::ALL`.\n[\n");
    for family in Family::ALL {
        let ptx: Vec<_> = PTX_ARCHS.iter().map(|arch| include("include_bytes", &ptx_file(family, arch))).collect();
        let cubins: Vec<_> = CUBIN_ARCHS.iter().map(|&cc| include("include_bytes", &cubin_file(family, cc))).collect();
        s += &format!(
            "    Shipped {{ family: Family::{family:?}, ptx: [{}], cubins: [{}] }},\n",
            ptx.join(", "),
            cubins.join(", ")
        );
    }
    s + "]\n"
}

/// Builds every family's PTX with the pinned toolchain, then its cubins with the pinned ptxas;
/// the PTX as text, under its shipped (compressed) file's name.
fn build_all(manifest: &Path, out: &Path) -> Vec<(String, Vec<u8>)> {
    let kernels = manifest.join("kernels");
    let toolchain = kernel_toolchain(&kernels);
    let ptxas = pinned_ptxas(manifest);
    // Kernel builds go next to the host's own build products, one target directory per arch.
    let kernel_target = out.ancestors().nth(3).unwrap_or(out).join("warpwork-kernels");
    let mut files = Vec::new();
    for family in Family::ALL {
        let mut ptx = Vec::new();
        for arch in PTX_ARCHS {
            let features = if arch == "sm_90" { format!("{},sm90", family.name()) } else { family.name().to_owned() };
            let text = build_ptx(&toolchain, &kernels, &kernel_target.join(arch), arch, &features);
            // The text for ptxas; `main` writes the compressed file.
            ptx.push((arch, out.join(format!("{}_{arch}.ptx", family.name()))));
            fs::write(&ptx.last().unwrap().1, &text).expect("write PTX to OUT_DIR");
            files.push((ptx_file(family, arch), text.into_bytes()));
        }
        // ptxas is single-threaded: the architectures compile side by side.
        let cubins = std::thread::scope(|s| {
            let jobs: Vec<_> = CUBIN_ARCHS
                .iter()
                .map(|&cc| {
                    let source = &ptx.iter().find(|(a, _)| *a == ptx_arch(cc.major)).unwrap().1;
                    let ptxas = &ptxas;
                    s.spawn(move || (cubin_file(family, cc), compile_cubin(ptxas, source, cc)))
                })
                .collect();
            jobs.into_iter().map(|j| j.join().expect("ptxas thread")).collect::<Vec<_>>()
        });
        files.extend(cubins);
    }
    files
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
    for p in [
        "src",
        "Cargo.toml",
        "Cargo.lock",
        "rust-toolchain.toml",
        "ptxas.toml",
        ".cargo/config.toml",
        "abi/src",
        "abi/Cargo.toml",
    ] {
        println!("cargo:rerun-if-changed={}", kernels.join(p).display());
    }
    toml_string(&text, "channel").unwrap_or_else(|| panic!("{}: no `channel = \"…\"` line", file.display()))
}

/// The value of a `key = "value"` line.
fn toml_string(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, value) = l.split_once('=')?;
        (k.trim() == key).then(|| value.trim().trim_matches('"').to_owned())
    })
}

/// The pinned ptxas: `WARPWORK_PTXAS`, or what `scripts/ptxas.sh` finds or installs; checked
/// against the version `kernels/ptxas.toml` pins.
fn pinned_ptxas(manifest: &Path) -> PathBuf {
    let pin = manifest.join("kernels/ptxas.toml");
    let text = fs::read_to_string(&pin).unwrap_or_else(|e| panic!("{}: {e}", pin.display()));
    let version = toml_string(&text, "version").unwrap_or_else(|| panic!("{}: no `version` line", pin.display()));
    let ptxas = match env::var_os("WARPWORK_PTXAS") {
        Some(p) => PathBuf::from(p),
        None => {
            let out = Command::new("bash")
                .arg(manifest.join("scripts/ptxas.sh"))
                .output()
                .unwrap_or_else(|e| panic!("running scripts/ptxas.sh: {e}"));
            assert!(
                out.status.success(),
                "scripts/ptxas.sh could not provide the pinned ptxas (set WARPWORK_PTXAS to it): {}",
                String::from_utf8_lossy(&out.stderr)
            );
            PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
        }
    };
    let reported =
        Command::new(&ptxas).arg("--version").output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    match reported {
        Ok(v) if v.contains(&version) => ptxas,
        Ok(v) => panic!("{} is not the pinned ptxas {version} (kernels/ptxas.toml): {v}", ptxas.display()),
        Err(e) => panic!("{}: {e} (the pinned ptxas; see kernels/ptxas.toml)", ptxas.display()),
    }
}

/// The cubin of `ptx` for `arch`.
fn compile_cubin(ptxas: &Path, ptx: &Path, arch: CubinArch) -> Vec<u8> {
    let cubin = ptx.with_extension(format!("{}.cubin", arch.name));
    let status = Command::new(ptxas)
        .arg(format!("-arch={}", arch.name))
        .arg(ptx)
        .arg("-o")
        .arg(&cubin)
        .status()
        .unwrap_or_else(|e| panic!("running {}: {e}", ptxas.display()));
    assert!(status.success(), "ptxas failed on {} for {}", ptx.display(), arch.name);
    fs::read(&cubin).unwrap_or_else(|e| panic!("{}: {e}", cubin.display()))
}

/// Builds the kernels of `features` for `arch` and returns the PTX. The flags repeat what
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
        "building kernels/ for {arch} ({features}) failed (see the errors above; the toolchain needs \
         `rustup component add --toolchain {toolchain} rust-src llvm-tools llvm-bitcode-linker`)"
    );
    let ptx = target_dir.join("nvptx64-nvidia-cuda/release/warpwork_kernels.ptx");
    without_comments(&fs::read_to_string(&ptx).unwrap_or_else(|e| panic!("{}: {e}", ptx.display())))
}

/// `ptx` without LLVM's `//` comments (loop headers, block names, inline-assembly markers) and
/// the lines they leave empty: a quarter of the text, which the package has no room for. PTX has
/// no string literals, so `//` always starts a comment.
fn without_comments(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.lines() {
        let code = line.find("//").map_or(line, |at| &line[..at]).trim_end();
        if !code.trim_start().is_empty() {
            out.push_str(code);
            out.push('\n');
        }
    }
    out
}

/// `input` through the `zstd` command with `args` (`-19` to compress, `-d` to decompress); a
/// kernel build needs it (it writes the shipped, compressed PTX).
fn zstd(args: &[&str], input: &[u8]) -> Vec<u8> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new("zstd")
        .args(args)
        .args(["-q", "-c"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("running zstd (a kernel build compresses the shipped PTX with it): {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Fed from a thread: zstd writes while it reads, and both pipes have bounded buffers.
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("zstd");
    feeder.join().unwrap().expect("feeding zstd");
    assert!(out.status.success(), "zstd {args:?} failed");
    out.stdout
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
