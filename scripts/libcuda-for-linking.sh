#!/usr/bin/env bash
# Prints a directory whose lib64/ holds a libcuda.so, for crates that link the CUDA driver at
# build time (cust, in examples/cust-interop: `CUDA_LIBRARY_PATH=$(scripts/libcuda-for-linking.sh)`).
#
# On a machine without a CUDA installation it unpacks Debian's driver library (package libcuda1,
# in the non-free component) under the tools cache, without installing it: only the linker reads
# it here; at run time the binary loads the GPU machine's own libcuda.so.1. The non-free
# component is added next to the machine's own Debian sources when apt does not know the
# package yet. Progress goes to stderr; stdout is the directory alone.
set -euo pipefail
tools="${WARPWORK_CI_TOOLS:-$HOME/.cache/warpwork-ci}"
root="$tools/libcuda"
if [ -e "$root/lib64/libcuda.so" ]; then
  echo "$root"
  exit 0
fi
{
  if ! apt-cache policy libcuda1 2>/dev/null | grep -q "Candidate: [0-9]"; then
    # The same archive as the machine's main component, non-free instead.
    src=$(grep -l "^Components:.*main" /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1 || true)
    if [ -n "$src" ]; then
      sed 's/^Components:.*/Components: non-free/' "$src" >/etc/apt/sources.list.d/warpwork-non-free.sources
    else
      sed -n 's/^\(deb .* \)main.*/\1non-free/p' /etc/apt/sources.list >/etc/apt/sources.list.d/warpwork-non-free.list
    fi
    apt-get update -qq
  fi
  rm -rf "$root" && mkdir -p "$root/deb"
  (cd "$root/deb" && apt-get download -qq libcuda1)
  dpkg-deb -x "$root"/deb/libcuda1_*.deb "$root/unpacked"
  lib=$(dirname "$(find "$root/unpacked" -name 'libcuda.so.1' | head -n 1)")
  ln -sfn "$lib" "$root/lib64"
  ln -sfn libcuda.so.1 "$root/lib64/libcuda.so" 2>/dev/null || true
  test -e "$root/lib64/libcuda.so"
} >&2
echo "$root"
