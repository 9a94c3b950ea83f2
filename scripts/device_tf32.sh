#!/usr/bin/env bash
# The H200 check of conv.igemm.wgmma's math=tf32 path (issue 11), from the repository root on the GPU
# machine with devbin/ from `scripts/device_build.sh hiprim test_gpu_igemm_sm90 [test_bench]`:
# the tf32 GPU tests (IgemmTf32.*), the bf16/fp16 gates of the same binary (probes, GEMMs, every
# direction and lowering), hiprim check of conv.igemm.wgmma* over smoke + edge + resnet50 (batch 2)
# in fp32 NHWC and NCHW with --math tf32 (exact and bounded tiers), memcheck on the tf32 tests, a
# fuzz campaign (FUZZ_S, default 20 s, CPU oracle), then ResNet-50 at batch 32 fp32 NHWC fwd and
# bwd-data with --math tf32 against cuDNN's TF32 engines (BENCH_S limit, default 170 s; every timed
# output verified), and test_bench's fused-graph peer case when devbin has it. Files in $OUT: tf32.log,
# check_tf32_{exact,bounded}.json, fuzz.json, perf_tf32_h200.json, build_version.txt, nvidia_smi.txt.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-devbin}
OUT=${OUT:-out/device_tf32}
mkdir -p "$OUT"
log="$OUT/tf32.log"
: > "$log"
source "$(dirname "$0")/step_lib.sh"
source "$(dirname "$0")/cudnn_env.sh"
"$BIN/hiprim" --version > "$OUT/build_version.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/nvidia_smi.txt" 2>&1
T="$BIN/test_gpu_igemm_sm90"
step tf32_tests 150 "$T" --gtest_filter='IgemmTf32.*'
step gates 200 "$T" --gtest_filter='*WgmmaProbe.*:IgemmGemm.*:IgemmConv.*:-IgemmConv.SanitizerSubset'
for fill in exact bounded; do
  step "check_$fill" 150 "$BIN/hiprim" check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp32 --layout nhwc,nchw \
    --math tf32 --solver 'conv.igemm.wgmma*' --fill "$fill" --report "$OUT/check_tf32_$fill.json"
done
step memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 3 "$T" --gtest_filter='IgemmTf32.*'
step fuzz $(( ${FUZZ_S:-20} + 60 )) "$BIN/hiprim" fuzz --op conv --solver conv.igemm.wgmma --time "${FUZZ_S:-20}" --seed 13 --require-gpu \
  --report "$OUT/fuzz.json"
step bench $(( ${BENCH_S:-170} + 60 )) "$BIN/hiprim" bench --op conv --suite resnet50 --batch 32 --dtype fp32 --layout nhwc \
  --dir fwd,bwd-data --math tf32 --peer cudnn --solver 'conv.igemm.wgmma*' --repeats 2 --time-limit "${BENCH_S:-170}" \
  --report "$OUT/perf_tf32_h200.json"
[ -x "$BIN/test_bench" ] && step peer_test 120 "$BIN/test_bench" --gtest_filter='OpBenchDevice.Fusion*'
grep -E "^\[  (PASSED|FAILED) |^conv\.igemm|^total|failures|^dtype|^fp32 |cases:|^-- " "$log"
