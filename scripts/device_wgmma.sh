#!/usr/bin/env bash
# The H200 checks of conv.igemm.wgmma (Hopper warpgroup MMA), graded so the first failing stage
# isolates the fault, then its tuning sweep. At most ~4 minutes. Run from the repository root on the
# device machine, with binaries made here by
#   scripts/device_build.sh hiprim test_gpu_igemm_sm90 test_gpu_igemm_sm90_plan
# Stages (each prints PASS/FAIL and, on failure, the test's diagnosis: first wrong element, wrong
# rows/cols, whether the values are a permutation, i.e. a layout/fragment-map fault):
#   0 sass      HGMMA in the binary (cuobjdump), the device and clocks
#   1 probe     one warpgroup, one stage: unswizzled K-major, 128B K-major, B MN-major, both MN-major
#   2 gemm      the pipelined kernels as plain GEMMs (every tile x stages 3,4 x split 1..3, sizes up
#               to 2048x512x1024) against a reference GEMM on the GPU
#   3 conv      every direction on small problems vs the CPU reference (exact), determinism
#   4 check     hiprim check, exact tier: smoke + edge + resnet50 (batch 2), fp16/bf16, NHWC; then the
#               bounded tier (real-valued data, the factor-2 tensor-core bound) over smoke + edge
#   5 memcheck  compute-sanitizer memcheck on the probes and a small run of every variant/direction
#   6 sweep     every ResNet-50 layer x direction at N=32: configs verified against conv.naive, then
#               timed by CUDA-graph replay over rotating inputs; pick vs best, TFLOP/s, % of 790
#   7 ncu       (if time is left) ncu --clock-control none on c1024 k256 14x14 1x1 and c256 k256 14x14 3x3 fwd
# Files in $OUT (default out/device_wgmma, flat, 6): wgmma.log (this output), conformance_wgmma.json,
# conformance_wgmma_bounded.json, sweep_wgmma.csv, ncu_wgmma.txt, stages.tar.gz (each stage's output). SKIP_SWEEP=1 / SKIP_NCU=1
# leave those stages out; SWEEP_TOTAL_S (default 200) is the second at which the sweep stops starting problems
# (HIPRIM_IGEMM_SWEEP_DIRS, e.g. bwd-data, passes through to the sweep).
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-devbin}
OUT=${OUT:-out/device_wgmma}
mkdir -p "$OUT"
log="$OUT/wgmma.log"
T="$BIN/test_gpu_igemm_sm90"
[ -f "$BIN/tests.tar.xz" ] && [ ! -x "$T" ] && tar -xJf "$BIN/tests.tar.xz" -C "$BIN"
start=$(date +%s)
work=$(mktemp -d /tmp/device_wgmma.XXXXXX)
declare -A result
stage() {  # stage NAME TIMEOUT CMD...: runs CMD, records PASS/FAIL/TIMEOUT, shows the failures
  local name=$1 limit=$2
  shift 2
  echo "== $name ($(date -u +%T))"
  timeout "$limit" "$@" > "$work/$name.out" 2>&1
  local rc=$?
  if [ $rc -eq 0 ]; then result[$name]=PASS
  elif [ $rc -eq 124 ]; then result[$name]="TIMEOUT (${limit}s)"
  else result[$name]="FAIL (rc $rc)"; fi
  # A stage that ran nothing is not green: skipped tests, or a conformance run with no passed case.
  if [ $rc -eq 0 ] && grep -q '^\[  SKIPPED \]' "$work/$name.out"; then
    result[$name]="SKIPPED: $(grep -m1 -A1 ': Skipped' "$work/$name.out" | tail -1)"
  fi
  if [ $rc -eq 0 ] && grep -qE '^total +0 ' "$work/$name.out"; then result[$name]="NOTHING PASSED (all unsupported?)"; fi
  if grep -q 'Running 0 tests' "$work/$name.out"; then result[$name]="NO TEST RAN (filter?)"; fi
  grep -E "Failure|FAILED|Expected|Which is|wrong|diagnos|error|Skipped|SKIPPED" "$work/$name.out" | head -40
  tail -4 "$work/$name.out"
  echo "-- $name: ${result[$name]}"
}
{
  echo "device_wgmma: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader
  echo "== sass"
  if command -v cuobjdump >/dev/null; then
    n=$(cuobjdump --dump-sass "$T" 2>/dev/null | grep -c HGMMA)
    echo "HGMMA instructions in $T: $n"
    [ "$n" -gt 0 ] && result[sass]=PASS || result[sass]="FAIL (no HGMMA)"
  else
    result[sass]="not run (no cuobjdump)"
  fi
  stage probe 60 "$T" --gtest_filter='*WgmmaProbe.*'
  stage gemm 90 "$T" --gtest_filter='IgemmGemm.*'
  stage conv 90 "$T" --gtest_filter='IgemmConv.*:-IgemmConv.SanitizerSubset'
  stage check 100 "$BIN/hiprim" check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp16,bf16 --layout nhwc \
    --solver conv.igemm.wgmma --report "$OUT/conformance_wgmma.json"
  stage bounded 50 "$BIN/hiprim" check --require-gpu --suite smoke,edge --dtype fp16,bf16 --layout nhwc --fill bounded \
    --solver conv.igemm.wgmma --report "$OUT/conformance_wgmma_bounded.json"
  if command -v compute-sanitizer >/dev/null; then
    stage memcheck 50 compute-sanitizer --tool memcheck --error-exitcode 3 "$T" \
      --gtest_filter='*WgmmaProbe.*:IgemmConv.SanitizerSubset'
  fi
  if [ "${SKIP_SWEEP:-0}" != 1 ]; then
    elapsed=$(( $(date +%s) - start ))
    budget=$(( ${SWEEP_TOTAL_S:-200} - elapsed )); [ $budget -lt 45 ] && budget=45
    export HIPRIM_IGEMM_SWEEP=1 HIPRIM_IGEMM_SWEEP_OUT="$OUT/sweep_wgmma.csv" HIPRIM_IGEMM_SWEEP_SECONDS=$(( budget - 15 ))
    stage sweep "$budget" "$T" --gtest_filter='IgemmSweep.ResNet50Layers'
    unset HIPRIM_IGEMM_SWEEP HIPRIM_IGEMM_SWEEP_OUT HIPRIM_IGEMM_SWEEP_SECONDS
    grep -E "pick|whole net|  (fwd|bwd)|refused" "$work/sweep.out" | head -90
  fi
  elapsed=$(( $(date +%s) - start ))
  if [ "${SKIP_NCU:-0}" != 1 ] && command -v ncu >/dev/null && [ $elapsed -lt 205 ]; then
    echo "== ncu"
    for prob in "conv fwd bf16 nhwc n32 c1024 k256 in14x14 f1x1" "conv fwd bf16 nhwc n32 c256 k256 in14x14 f3x3 pad1x1"; do
      echo "-- $prob"
      HIPRIM_IGEMM_PROFILE="$prob" timeout 30 ncu --clock-control none --kernel-name regex:igemm_sm90_kernel \
        --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
        --section MemoryWorkloadAnalysis "$T" --gtest_filter='IgemmSweep.Profile' 2>&1 | \
        grep -vE "^\[|^==PROF==|Note:" | head -70
    done > "$OUT/ncu_wgmma.txt" 2>&1
    grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Grid Size|Block Size|--" \
      "$OUT/ncu_wgmma.txt" | head -30
    result[ncu]="see ncu_wgmma.txt"
  fi
  echo
  echo "== summary ($(( $(date +%s) - start )) s)"
  for s in sass probe gemm conv check bounded memcheck sweep ncu; do
    [ -n "${result[$s]+x}" ] && printf '%-9s %s\n' "$s" "${result[$s]}"
  done
  grep -E "whole net|^  (fwd|bwd)" "$work/sweep.out" 2>/dev/null
  tar -czf "$OUT/stages.tar.gz" -C "$work" .
} 2>&1 | tee "$log"
