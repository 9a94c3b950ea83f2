#!/usr/bin/env bash
# The H200 run of the memory-bound primitives (run by scripts/device_bench.sh 2, or alone on the GPU
# machine with devbin/ built by scripts/device_build.sh): `hiprim bench --op all --suite
# resnet50_ops` at batch 32 (ResNet-50 v1.5's batch norms, ReLUs, pools, softmax, residual adds, and
# the extras reduce, dropout, LRN) for bf16:nhwc, fp32:nchw, fp16:nhwc in one process; every GPU op
# solver verified at the timed size (the op runner on the whole problem: guards, every element of
# every output, determinism), then timed by graph replay with host overhead per call and REPEATS
# (default 3) repeats, each problem's GB/s against the copy bandwidth measured in the same process.
# BENCH_OPS_LIMIT_S (default 110): seconds after which the bench starts no new problem; OPS_COMBOS
# (default bf16:nhwc,fp32:nchw,fp16:nhwc): the dtype:layout combinations.
# Writes into $OUT (default out/device_bench_ops): perf_ops_h200.json, perf_ops_h200.md,
# bench_ops.log; prints the totals last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-out/device_bench_ops}"
mkdir -p "$OUT"
log="$OUT/bench_ops.log"
bin="${BIN:-devbin}/hiprim"
limit="${BENCH_OPS_LIMIT_S:-110}"
batch="${BATCH:-32}"
if [ ! -x "$bin" ]; then
  echo "device_bench_ops: $bin is missing: run scripts/device_build.sh first and copy devbin here" >&2
  exit 2
fi
{
  echo "device_bench_ops: $(date -u +%FT%TZ), verify full, batch $batch, new problems until $limit s"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1
} | tee "$log"
start=$(date +%s)
final="$OUT/perf_ops_h200"
"$bin" bench --op all --suite resnet50_ops --batch "$batch" --combo "${OPS_COMBOS:-bf16:nhwc,fp32:nchw,fp16:nhwc}" --verify full \
  --repeats "${REPEATS:-3}" --reps 20 --replays 5 --budget-ms 60 --time-limit "$limit" --report "$final.json" 2>&1 | tee -a "$log"
if [ ! -f "$final.json" ]; then
  echo "device_bench_ops: no report was written" | tee -a "$log"
  exit 1
fi
"$bin" report markdown "$final.json" -o "$final.md" --no-charts >/dev/null 2>&1
echo "device_bench_ops: $(( $(date +%s) - start )) s" | tee -a "$log"
"$bin" report summary "$final.json" | tee -a "$log"
