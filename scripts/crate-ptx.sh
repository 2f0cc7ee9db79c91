#!/usr/bin/env bash
# Rebuilds the shipped PTX of a crate with kernels of its own (a demo or an example), the way CI
# does before it compares the result with the committed file:
#   scripts/crate-ptx.sh demos/life       # -> demos/life/kernels/warpwork_life_sm_70.ptx
# DIR/kernels is a `#![no_std]` kernel crate on warpwork-kernels, outside warpwork's workspace.
# It is built for sm_70 with warpwork's pinned kernel toolchain (kernels/rust-toolchain.toml:
# 1.95.0 with rust-src, llvm-tools and llvm-bitcode-linker), so that the PTX is reproducible; the
# module is named after the crate without its `-kernels` suffix. Prints the module's path.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:?usage: crate-ptx.sh DIR (a crate with a kernels/ crate, e.g. demos/life)}"
dir=${dir%/}
toolchain=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' kernels/rust-toolchain.toml)
name=$(sed -n 's/^name *= *"\(.*\)"/\1/p' "$dir/kernels/Cargo.toml" | head -n 1) # e.g. warpwork-life-kernels
lib=${name//-/_}     # the PTX cargo writes: warpwork_life_kernels.ptx
stem=${lib%_kernels} # the shipped module: warpwork_life_sm_70.ptx
# The kernel crates use nightly features (`abi_ptx`, inline PTX) on the pinned stable toolchain.
(cd "$dir/kernels" &&
  RUSTC_BOOTSTRAP=1 CARGO_ENCODED_RUSTFLAGS="-Ctarget-cpu=sm_70" \
    cargo +"$toolchain" build --locked --release --target nvptx64-nvidia-cuda -Zbuild-std=core >&2 &&
  cp "target/nvptx64-nvidia-cuda/release/$lib.ptx" "${stem}_sm_70.ptx")
echo "$dir/kernels/${stem}_sm_70.ptx"
