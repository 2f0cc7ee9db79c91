#!/usr/bin/env bash
# Builds and runs a fresh crate that depends on warpwork (by path) the way a user's crate does,
# and fails if that build runs rustup, e.g. to build the kernels:
#   scripts/check-dependent-build.sh [WARPWORK_DIR] [TARGET_DIR]
# The build gets a plain cargo and rustc (resolved here through rustup, which is then out of
# reach: a stand-in `rustup` first on PATH only records being called), no WARPWORK_PTX and no
# RUSTUP_* or CARGO_* variables, whatever toolchain components are installed. The crate has its
# own cudarc 0.19 with another CUDA version feature, warpwork's default one turned off. It prints
# the device count, or the error without a driver.
set -euo pipefail
warpwork=$(cd "${1:-$(dirname "$0")/..}" && pwd)
target_dir=${2:-$warpwork/target/dependent}
real_cargo=$(rustup which cargo)
dependent=$(mktemp -d)
trap 'rm -rf "$dependent"' EXIT
mkdir -p "$dependent/src" "$dependent/bin"
cat >"$dependent/Cargo.toml" <<EOF
[package]
name = "warpwork-dependent"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
warpwork = { path = "$warpwork", default-features = false }
cudarc = { version = "0.19", default-features = false, features = ["std", "driver", "dynamic-loading", "cuda-13000"] }

[workspace]
EOF
cat >"$dependent/src/main.rs" <<'EOF'
/// warpwork's context is the application's own cudarc type: one cudarc in the build.
#[allow(dead_code)]
fn same_cudarc(gpu: &warpwork::Gpu) -> &std::sync::Arc<cudarc::driver::CudaContext> {
    gpu.context()
}

fn main() {
    match warpwork::Gpu::device_count() {
        Ok(n) => println!("warpwork sees {n} CUDA device(s)"),
        Err(e) => println!("warpwork: {e}"),
    }
}
EOF
printf '#!/bin/sh\necho "rustup $*" >>"%s/rustup-called"\nexit 1\n' "$dependent" >"$dependent/bin/rustup"
chmod +x "$dependent/bin/rustup"
# The same dependency versions as warpwork's workspace, where it has a lock file.
if [ -f "$warpwork/Cargo.lock" ]; then cp "$warpwork/Cargo.lock" "$dependent/"; fi
status=0
output=$(cd "$dependent" && env -i HOME="$HOME" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" \
  PATH="$dependent/bin:$(dirname "$real_cargo"):/usr/local/bin:/usr/bin:/bin" \
  cargo run --quiet --target-dir "$target_dir") || status=$?
echo "$output"
if [ -e "$dependent/rustup-called" ]; then
  echo "FAIL: building a crate that depends on warpwork ran rustup:"
  cat "$dependent/rustup-called"
  exit 1
fi
[ "$status" = 0 ] || { echo "FAIL: the dependent crate did not build or run (exit $status)"; exit 1; }
case "$output" in
  "warpwork: no CUDA driver"* | "warpwork sees "*) echo "ok: a dependent crate builds without rustup" ;;
  *) echo "FAIL: unexpected output from the dependent crate"; exit 1 ;;
esac
