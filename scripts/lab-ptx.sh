#!/usr/bin/env bash
# Builds the tuning lab's kernels (kernel-crate feature `lab`; never shipped) for sm_90 and
# compiles them with the pinned ptxas: .gpu/lab_sm_90.cubin, which benches/lab_scan.rs loads
# when LAB_MODULE names it.
set -euo pipefail
cd "$(dirname "$0")/.."
toolchain=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' kernels/rust-toolchain.toml)
(cd kernels && RUSTC_BOOTSTRAP=1 CARGO_ENCODED_RUSTFLAGS=-Ctarget-cpu=sm_90 \
  cargo +"$toolchain" rustc --release --locked --target nvptx64-nvidia-cuda -Zbuild-std=core \
  --crate-type cdylib --features lab,sm90 --target-dir ../target/lab-kernels)
mkdir -p .gpu
cp target/lab-kernels/nvptx64-nvidia-cuda/release/warpwork_kernels.ptx .gpu/lab_sm_90.ptx
"$(scripts/ptxas.sh)" -arch=sm_90 .gpu/lab_sm_90.ptx -o .gpu/lab_sm_90.cubin
