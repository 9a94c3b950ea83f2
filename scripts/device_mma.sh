#!/usr/bin/env bash
# The H200 checks of the tensor-core path (conv.gemm.1x1.mma, conv.gemm.im2col.mma and the mma GEMM
# under them), run on the GPU machine with devbin/ from scripts/device_build.sh:
#   1. test_gpu_gemm_mma (every mma GEMM device test) and the mma cases of test_gpu_gemm; the
#      throughput check (mma vs SIMT TFLOP/s, printed); compute-sanitizer racecheck + memcheck.
#   2. exact-tier conformance of the two solvers: smoke + edge + resnet50 at batch 2, fp16/bf16 x
#      NCHW/NHWC, all three directions (conformance_mma.json); bounded tier over smoke + edge
#      (conformance_mma_bounded.json).
#   3. a GPU fuzz campaign over the two solvers with special values (fuzz_mma_h200.json).
# Writes into $OUT (default out/device_mma): conformance_mma.json, conformance_mma_bounded.json,
# fuzz_mma_h200.json, mma.log.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-devbin}
OUT=${OUT:-out/device_mma}
mkdir -p "$OUT"
log="$OUT/mma.log"
[ -f "$BIN/tests.tar.xz" ] && [ ! -x "$BIN/test_gpu_gemm_mma" ] && tar -xJf "$BIN/tests.tar.xz" -C "$BIN"
{
  echo "device_mma: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
  echo "== test_gpu_gemm_mma"
  timeout 120 "$BIN/test_gpu_gemm_mma" --gtest_brief=1 2>&1 | tail -25
  echo "== test_gpu_gemm (mma cases)"
  timeout 120 "$BIN/test_gpu_gemm" --gtest_filter='*_mma_*:*Mma*:GemmConvRandom.*' --gtest_brief=1 2>&1 | tail -8
  echo "== throughput"
  timeout 60 "$BIN/test_gpu_gemm_mma" --gtest_filter='GemmMmaThroughput.*' 2>&1 | grep -vE '^\[ *(RUN|OK) ' | tail -12
  if command -v compute-sanitizer >/dev/null; then
    echo "== racecheck"
    timeout 90 compute-sanitizer --tool racecheck "$BIN/test_gpu_gemm_mma" --gtest_filter='GemmMma.SplitK*:GemmMma.BatchedSplitViewsExact' --gtest_brief=1 2>&1 | tail -4
    echo "== memcheck"
    timeout 90 compute-sanitizer --tool memcheck "$BIN/test_gpu_gemm_mma" --gtest_filter='GemmMma.ExactOnAligned*:GemmMma.BatchedSplitViewsExact' --gtest_brief=1 2>&1 | tail -4
  fi
  echo "== conformance (exact tier)"
  timeout 200 "$BIN/hiprim" check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp16,bf16 --layout nchw,nhwc \
    --solver 'conv.gemm.*.mma' --report "$OUT/conformance_mma.json" 2>&1 | tail -8
  echo "== conformance (bounded tier, real-valued data: the factor-2 bound)"
  timeout 100 "$BIN/hiprim" check --require-gpu --suite smoke,edge --dtype fp16,bf16 --layout nchw,nhwc --fill bounded \
    --solver 'conv.gemm.*.mma' --report "$OUT/conformance_mma_bounded.json" 2>&1 | tail -6
  echo "== fuzz (GPU oracle, special values)"
  timeout 120 "$BIN/hiprim" fuzz --op conv --solver 'conv.gemm.*.mma' --time 40s --seed 3 --oracle gpu --devices all \
    --jobs-per-device 8 --report "$OUT/fuzz_mma_h200.json" --corpus "$OUT/corpus" 2>&1 | grep -vE '^\[(gpu|worker)' | tail -12
} 2>&1 | tee "$log"
