#!/usr/bin/env bash
# Builds the lab module (see lab/README.md) into lab/out/lab_sm90.ptx: the kernel crate's sm_90
# PTX with its `lab` feature (the `lab_ordered_*` shapes), plus, for each `BASE=<commit>`, that
# commit's `select_ordered_u32` renamed `lab_base_8x8` (so that a change is timed against what
# it replaces in the same run).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mkdir -p lab/out
build() { # <kernel crate dir> <target dir> <features>
  (cd "$1" && RUSTC_BOOTSTRAP=1 CARGO_ENCODED_RUSTFLAGS=-Ctarget-cpu=sm_90 \
    cargo rustc --release --target nvptx64-nvidia-cuda -Zbuild-std=core --crate-type cdylib \
    --features "$3" --target-dir "$2" >&2)
  echo "$2/nvptx64-nvidia-cuda/release/warpwork_kernels.ptx"
}
lab=$(build kernels /tmp/warpwork-lab/current kernels,sm90,lab)
extra=()
if [ -n "${BASE:-}" ]; then
  rm -rf /tmp/warpwork-lab/base-src && git worktree add -f --detach /tmp/warpwork-lab/base-src "$BASE" >&2
  extra=("$(build /tmp/warpwork-lab/base-src/kernels /tmp/warpwork-lab/base kernels,sm90)")
  git worktree remove --force /tmp/warpwork-lab/base-src
fi
python3 - "$lab" lab/out/lab_sm90.ptx "${extra[@]}" <<'PY'
import re, sys
ptx = open(sys.argv[1]).read()
def renamed(src, entry, name):
    text = open(src).read()
    body = re.search(r'\.visible \.entry ' + entry + r'\(.*?\n\}\n', text, re.S).group(0)
    body = body.replace('.entry ' + entry + '(', '.entry ' + name + '(').replace(entry + '_param_', name + '_param_')
    body = body.replace('warpwork_smem_' + entry, 'warpwork_smem_' + name)
    decl = re.search(r'\.shared .*warpwork_smem_' + entry + r'\[\d+\];', text).group(0)
    return decl.replace(entry, name) + '\n' + body
extras = [renamed(src, 'select_ordered_u32', 'lab_base_8x8') for src in sys.argv[3:]]
open(sys.argv[2], 'w').write(ptx + '\n' + '\n'.join(extras))
PY
echo "lab/out/lab_sm90.ptx: $(grep -c '^.visible .entry lab_' lab/out/lab_sm90.ptx) lab kernels" >&2
