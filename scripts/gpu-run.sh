#!/usr/bin/env bash
# The GPU suite, run from a bundle made by scripts/gpu-bundle.sh (see there).
#   run.sh tests     every test, GPU ones included (--include-ignored), and the examples (meshlet-cull,
#                    custom-scan, cust-interop)
#   run.sh sanitize  the GPU tests under compute-sanitizer memcheck, racecheck and synccheck,
#                    with small inputs (WARPWORK_SMALL=1) to keep it short
#   run.sh bench     the CLI's benchmark tables (BENCHES="compact expand" picks some; BENCH_ARGS
#                    are passed on, e.g. "--reps 5" for a quick look), with CUB's
#                    times beside warpwork's where nvcc can build the CUB peer (peers/cub)
#                    (BENCHES=multi: the multi-GPU bench, which takes --size and --reps, not --max-log2)
#   run.sh criterion the criterion benches, with short measurement times
#   run.sh all       tests, sanitize and bench (default)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
what="${1:-all}"
filter="${2:-}"
status=0
summary=()

# The multi-GPU tests and `bench multi` (BENCHES=multi) need NCCL as libnccl.so on the loader path; the
# nvidia-nccl-cu12/cu13 wheels ship only libnccl.so.2, so link it here where a wheel is installed
# (NCCL_LIB_DIR names another directory holding libnccl.so). NVLink SHARP stays off: warpwork's
# collectives are a few bytes. Without NCCL those tests print "skipped: ..." and pass.
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
nccl_dir="${NCCL_LIB_DIR:-}"
if [ -z "$nccl_dir" ]; then
  wheel=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)
  if [ -n "$wheel" ] && [ -e "$wheel/lib/libnccl.so.2" ]; then
    nccl_dir="$here/nccl"
    mkdir -p "$nccl_dir" && ln -sf "$wheel/lib/libnccl.so.2" "$nccl_dir/libnccl.so"
  fi
fi
[ -n "$nccl_dir" ] && export LD_LIBRARY_PATH="$nccl_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

run_tests() {
  for t in "$here"/tests/*; do
    name=$(basename "$t")
    out=$("$t" --include-ignored --test-threads=1 $filter 2>&1)
    rc=$?
    echo "$out" | tail -n 30
    line=$(echo "$out" | grep -E "^test result" | tail -n 1)
    summary+=("tests     $name: ${line:-no result} (rc=$rc)")
    [ $rc -eq 0 ] || status=1
  done
}

run_example() {
  for ex in meshlet-cull custom-scan cust-interop; do
    [ -x "$here/$ex" ] || { summary+=("example   $ex: missing from the bundle"); status=1; continue; }
    out=$("$here/$ex" 2>&1)
    rc=$?
    echo "$out" | tail -n 5
    summary+=("example   $ex: rc=$rc")
    [ $rc -eq 0 ] || status=1
  done
}

run_criterion() {
  # Short measurement times: this checks that every criterion bench runs on the GPU and gives
  # ballpark numbers; the CLI tables (run.sh bench) are the reported ones.
  for b in "$here"/benches/*; do
    name=$(basename "$b")
    "$b" --bench --warm-up-time 0.2 --measurement-time 0.5 --sample-size 10 2>&1 | grep -E "^[a-z_0-9]+/|time:|thrpt:|panicked" | tail -n 60
    rc=${PIPESTATUS[0]}
    summary+=("criterion $name: rc=$rc")
    [ $rc -eq 0 ] || status=1
  done
}

run_sanitize() {
  for tool in memcheck racecheck synccheck; do
    for t in "$here"/tests/*gpu*; do
      [ -e "$t" ] || continue
      name=$(basename "$t")
      # NCCL's initialization probes the CUDA runtime and gets errors it expects (peer access
      # already enabled, no kernel image for other architectures), which memcheck reports as API
      # errors, and racecheck reports hazards inside NCCL's own send/receive kernel between two
      # ranks: for the tests that use NCCL (multi_gpu, Life's bands_gpu), memcheck reports
      # memory errors only and racecheck leaves NCCL's kernels (ncclDevKernel_*) out.
      api=()
      if [[ "$name" == multi_gpu* || "$name" == bands_gpu* ]]; then
        [ "$tool" = memcheck ] && api=(--report-api-errors no)
        [ "$tool" = racecheck ] && api=(--kernel-name-exclude kns=nccl)
      fi
      out=$(WARPWORK_SMALL=1 timeout "${SANITIZE_TIMEOUT:-300}" compute-sanitizer --tool "$tool" "${api[@]}" \
            --error-exitcode 3 "$t" --include-ignored --test-threads=1 $filter 2>&1)
      rc=$?
      echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|========= (Invalid|Race|Barrier)" | head -n 5
      errs=$(echo "$out" | grep -E "(ERROR|RACECHECK) SUMMARY" | tail -n 1)
      [ $rc -eq 124 ] && errs="timed out after ${SANITIZE_TIMEOUT:-300} s"
      summary+=("$tool $name: ${errs:-no summary} (rc=$rc)")
      [ $rc -eq 0 ] || status=1
    done
  done
}

# The CUB peer (peers/cub/cub_peer.cu) for the benchmarks' CUB columns, built here with nvcc
# into libwarpwork_cub_peer.so next to the CLI (where it looks) and named in WARPWORK_CUB_PEER.
# Without nvcc the CUB columns read "—". A WARPWORK_CUB_PEER already set is used as it is.
build_peer() {
  if [ -n "${WARPWORK_CUB_PEER:-}" ]; then
    summary+=("peer      CUB: $WARPWORK_CUB_PEER (given)")
    return
  fi
  command -v nvcc >/dev/null || [ ! -x /usr/local/cuda/bin/nvcc ] || PATH="$PATH:/usr/local/cuda/bin"
  if ! command -v nvcc >/dev/null; then
    summary+=("peer      CUB: no nvcc, not built (the CUB columns read —)")
    return
  fi
  if "$here/peers/cub/build.sh" "$here/libwarpwork_cub_peer.so"; then
    export WARPWORK_CUB_PEER="$here/libwarpwork_cub_peer.so"
    summary+=("peer      CUB: built with $(nvcc --version | tail -n 1)")
  else
    summary+=("peer      CUB: nvcc failed (the CUB columns read —)")
    status=1
  fi
}

run_bench() {
  for what in ${BENCHES:-compact access life expand scan reduce}; do
    "$here/warpwork" bench "$what" ${BENCH_ARGS:-} || status=1
  done
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
case "$what" in
  tests) build_peer; run_tests; run_example ;;
  sanitize) run_sanitize ;;
  bench) build_peer; run_bench ;;
  criterion) run_criterion ;;
  all) build_peer; run_tests; run_example; run_sanitize; run_bench ;;
  *) echo "usage: run.sh [tests|sanitize|bench|criterion|all] [test filter]"; exit 2 ;;
esac
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
exit $status
