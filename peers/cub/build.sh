#!/usr/bin/env bash
# Builds warpwork's CUB peer (cub_peer.cu) into a shared library with nvcc, for the benchmarks'
# CUB columns (see README, "CUB beside warpwork").
#   peers/cub/build.sh [OUT.so]
# OUT defaults to target/release/libwarpwork_cub_peer.so, next to the `warpwork` binary, where
# `warpwork bench` looks when WARPWORK_CUB_PEER is unset. The architecture is the first GPU's
# (nvidia-smi), or CUB_PEER_ARCH (e.g. 90) where set or where no GPU answers.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../target/release/libwarpwork_cub_peer.so}"
arch="${CUB_PEER_ARCH:-}"
if [ -z "$arch" ]; then
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ') || true
fi
arch="${arch:-90}"
mkdir -p "$(dirname "$out")"
"${NVCC:-nvcc}" -O3 -std=c++17 -arch="sm_$arch" -shared -Xcompiler -fPIC -o "$out" "$here/cub_peer.cu"
echo "built $out (sm_$arch, $("${NVCC:-nvcc}" --version | tail -n 1))"
