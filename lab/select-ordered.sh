#!/usr/bin/env bash
# Builds the lab PTX (see lab/README.md) into ptx/warpwork_sm_90.ptx.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
(cd kernels && RUSTC_BOOTSTRAP=1 CARGO_ENCODED_RUSTFLAGS=-Ctarget-cpu=sm_90 \
  cargo rustc --release --target nvptx64-nvidia-cuda -Zbuild-std=core --crate-type cdylib \
  --features kernels,sm90,lab --target-dir "$out")
python3 - "$out/nvptx64-nvidia-cuda/release/warpwork_kernels.ptx" ptx/warpwork_sm_90.ptx <<'PY'
import re, sys
src, dst = sys.argv[1], sys.argv[2]
ptx = open(src).read()
def capped(entry, regs, name):
    m = re.search(r'\.visible \.entry ' + entry + r'\(.*?\n\}\n', ptx, re.S)
    body = m.group(0).replace(entry, name)
    return body.replace('\n)', '\n)\n.maxnreg %d' % regs, 1)
extra = [capped('select_ordered_u32', 40, 'lab_ordered_8x8_r40'),
         capped('lab_ordered_4x16', 40, 'lab_ordered_4x16_r40'),
         capped('lab_ordered_16x4', 40, 'lab_ordered_16x4_r40')]
open(dst, 'w').write(ptx + '\n' + '\n'.join(extra))
PY
echo "lab PTX in ptx/warpwork_sm_90.ptx ($(grep -c '^.visible .entry lab_' ptx/warpwork_sm_90.ptx) lab kernels)"
