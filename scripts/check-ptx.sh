#!/usr/bin/env bash
# Validates the shipped PTX with ptxas for every architecture each module claims, and fails if
# any kernel spills to local memory or needs a stack frame (all of warpwork's kernels are hot),
# or if a block barrier was duplicated onto divergent paths (see `barriers` below).
#   scripts/check-ptx.sh PTXAS
set -euo pipefail
cd "$(dirname "$0")/.."
ptxas="${1:?usage: check-ptx.sh PATH_TO_PTXAS}"
fail=0
check() { # module arch
  local report
  if ! report=$("$ptxas" -arch="$2" -v "ptx/$1" -o /dev/null 2>&1); then
    echo "$report"; echo "FAIL: ptxas rejected $1 for $2"; fail=1; return
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
    echo "$bad"; echo "FAIL: stack frame or spills in $1 for $2"; fail=1
  else
    echo "ok: $1 assembles for $2 ($kernels kernels, no stack, no spills)"
  fi
}
# `bar.sync` is `.aligned`: every thread of a warp must reach the *same* barrier instruction.
# LLVM can merge `if tid == 0 {..}` blocks on both sides of a barrier into two copies of the
# barrier on divergent paths (one then ends with a jump past the other), which deadlocks on the
# GPU. A barrier followed by an unconditional jump is that shape.
barriers() { # module
  local n
  n=$(grep -A1 -E "^\s*bar\.sync" "ptx/$1" | grep -c -E "^\s*bra\.uni" || true)
  if [ "$n" != 0 ]; then
    echo "FAIL: $1 has $n barrier(s) duplicated onto divergent paths (bar.sync then bra.uni)"; fail=1
  else
    echo "ok: $1 has no duplicated barriers"
  fi
}
# One module per kernel family (warpwork_abi::modules), each as sm_70 and sm_90 PTX. The cubins
# are compiled from these by the same ptxas, so they carry what is checked here.
for f in ptx/*_sm_70.ptx; do
  m=$(basename "$f" _sm_70.ptx)
  barriers "${m}_sm_70.ptx"
  barriers "${m}_sm_90.ptx"
  check "${m}_sm_70.ptx" sm_70
  check "${m}_sm_70.ptx" sm_80
  check "${m}_sm_70.ptx" sm_90
  check "${m}_sm_90.ptx" sm_90
  check "${m}_sm_90.ptx" sm_100
done
exit $fail
