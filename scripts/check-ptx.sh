#!/usr/bin/env bash
# Validates shipped PTX with ptxas for every architecture each module claims, and fails if any
# kernel spills to local memory or needs a stack frame (every kernel here is hot), or if a block
# barrier was duplicated onto divergent paths (see `barriers` below).
#   scripts/check-ptx.sh PTXAS            # every shipped module: ptx/, demos/*/kernels, examples/*/kernels
#   scripts/check-ptx.sh PTXAS FILE...    # these modules only
# A module's name ends in its target: `*_sm_70.ptx` is checked for sm_70, sm_80 and sm_90 (it runs
# on every GPU from compute capability 7.0), `*_sm_90.ptx` for sm_90 and sm_100. A compressed
# module (`*.ptx.zst`, as ptx/ ships them) is checked as the text `zstd -d` gives.
set -euo pipefail
cd "$(dirname "$0")/.."
ptxas="${1:?usage: check-ptx.sh PATH_TO_PTXAS [MODULE.ptx...]}"
shift
if [ $# -eq 0 ]; then
  set -- ptx/*.ptx.zst demos/*/kernels/*_sm_*.ptx examples/*/kernels/*_sm_*.ptx
fi
texts=$(mktemp -d)
trap 'rm -rf "$texts"' EXIT
fail=0
check() { # module arch name-shown
  local report shown=$3
  if ! report=$("$ptxas" -arch="$2" -v "$1" -o /dev/null 2>&1); then
    echo "$report"; echo "FAIL: ptxas rejected $shown for $2"; fail=1; return
  fi
  # ptxas prints, per kernel: "Compiling entry function 'NAME'", then "N bytes stack frame,
  # N bytes spill stores, N bytes spill loads".
  local bad
  bad=$(echo "$report" | awk -v arch="$2" '
    /Compiling entry function/ { name = $0; sub(/.*function ./, "", name); sub(/. for .*/, "", name) }
    /bytes stack frame/ { if ($1 != 0 || $5 != 0 || $9 != 0) print arch ": " name ": " $0 }')
  local kernels
  kernels=$(echo "$report" | grep -c "Compiling entry function" || true)
  if [ -n "$bad" ]; then
    echo "$bad"; echo "FAIL: stack frame or spills in $shown for $2"; fail=1
  else
    echo "ok: $shown assembles for $2 ($kernels kernels, no stack, no spills)"
  fi
}
# `bar.sync` is `.aligned`: every thread of a warp must reach the *same* barrier instruction.
# LLVM can merge `if tid == 0 {..}` blocks on both sides of a barrier into two copies of the
# barrier on divergent paths (one then ends with a jump past the other), which deadlocks on the
# GPU. A barrier followed by an unconditional jump is that shape.
barriers() { # module name-shown
  local n shown=$2
  n=$(grep -A1 -E "^\s*bar\.sync" "$1" | grep -c -E "^\s*bra\.uni" || true)
  if [ "$n" != 0 ]; then
    echo "FAIL: $shown has $n barrier(s) duplicated onto divergent paths (bar.sync then bra.uni)"; fail=1
  else
    echo "ok: $shown has no duplicated barriers"
  fi
}
for module in "$@"; do
  [ -f "$module" ] || { echo "FAIL: no module $module"; fail=1; continue; }
  shown=$module
  case "$module" in
    *.ptx.zst) module="$texts/$(basename "${module%.zst}")"; zstd -q -d -c "$shown" >"$module" ;;
  esac
  barriers "$module" "$shown"
  case "$module" in
    *_sm_70.ptx) archs="sm_70 sm_80 sm_90" ;;
    *_sm_90.ptx) archs="sm_90 sm_100" ;;
    *) echo "FAIL: $shown: the name does not say its target (…_sm_70.ptx or …_sm_90.ptx)"; fail=1; continue ;;
  esac
  for arch in $archs; do check "$module" "$arch" "$shown"; done
done
exit $fail
