#!/usr/bin/env bash
# Prints the path of the pinned ptxas (kernels/ptxas.toml), installing it first if missing: the
# CUDA compiler wheel from the Python package registry, unpacked (not installed) under
# ${WARPWORK_CI_TOOLS:-~/.cache/warpwork-ci}/ptxas-<version>. Needs python3 with pip.
#   ptxas=$(scripts/ptxas.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
wheel=$(sed -n 's/^wheel *= *"\(.*\)"/\1/p' kernels/ptxas.toml)
version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' kernels/ptxas.toml)
tools="${WARPWORK_CI_TOOLS:-$HOME/.cache/warpwork-ci}"
dir="$tools/ptxas-$version"
ptxas="$dir/nvidia/cuda_nvcc/bin/ptxas"
if [ ! -x "$ptxas" ]; then
  mkdir -p "$dir"
  python3 -m pip download --quiet --no-deps --dest "$dir/wheel" "$wheel" >&2
  python3 -m zipfile -e "$dir"/wheel/nvidia_cuda_nvcc_cu12-*.whl "$dir" >&2
  chmod +x "$ptxas"
fi
reported=$("$ptxas" --version)
grep -q -- "$version" <<<"$reported" || { echo "$ptxas is not ptxas $version: $reported" >&2; exit 1; }
echo "$ptxas"
