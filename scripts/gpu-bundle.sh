#!/usr/bin/env bash
# Builds every test binary and the `warpwork` CLI in release mode and packs them, with a runner,
# into .gpu/bundle/: for a GPU machine that has the driver but no Rust toolchain.
#   scripts/gpu-bundle.sh            # then, on the GPU machine:
#   .gpu/bundle/run.sh [tests|sanitize|bench|all]
# On a machine with both a GPU and Rust, `cargo test --release -- --include-ignored` runs the
# same GPU suite directly.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.gpu/bundle
rm -rf "$dest" && mkdir -p "$dest/tests"
cargo build --release --bin warpwork
cp target/release/warpwork "$dest/"
# The examples (their own workspaces; same target directory so dependencies are shared). Each
# binary is named after its crate.
examples=(meshlet-cull custom-scan cust-interop)
for ex in "${examples[@]}"; do
  # cust links libcuda at build time (see examples/cust-interop/README.md); only it is given one.
  link=()
  if [ "$ex" = cust-interop ]; then link=("CUDA_LIBRARY_PATH=$(scripts/libcuda-for-linking.sh)"); fi
  env "${link[@]}" cargo build --release --manifest-path "examples/$ex/Cargo.toml" --target-dir target
  cp "target/release/$ex" "$dest/"
done
cargo test --release --workspace --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' |
  while read -r exe; do
    # The compile-fail tests run the compiler (trybuild), and the CLI's tests run the CLI binary
    # at its build path: CI runs both; a GPU machine has no Rust and no build tree.
    case "$(basename "$exe")" in compile_fail-* | cli_life-* | cli_life_rules-* | cli_bench-*) continue ;; esac
    cp "$exe" "$dest/tests/"
  done
# criterion benches (run on the GPU machine with short times: run.sh criterion)
mkdir -p "$dest/benches"
cargo bench --workspace --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and "bench" in m["target"]["kind"]:
        print(m["executable"])' |
  while read -r exe; do cp "$exe" "$dest/benches/"; done
cp scripts/gpu-run.sh "$dest/run.sh"
# The CUB peer's source and build script: run.sh builds it with nvcc there (no nvcc here).
mkdir -p "$dest/peers/cub"
cp peers/cub/*.cu peers/cub/build.sh "$dest/peers/cub/"
# Symbols are not needed there, and the folder must stay small enough to travel.
strip "$dest/warpwork" "${examples[@]/#/$dest/}" "$dest"/tests/* "$dest"/benches/*
ls -la "$dest" "$dest/tests"
