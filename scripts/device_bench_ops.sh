#!/usr/bin/env bash
# The H200 run of the memory-bound primitives (the lead runs it through the device tool, carrying
# devbin/ built by scripts/device_build.sh): `hiprim bench --op all --suite resnet50_ops` at batch 32
# (ResNet-50 v1.5's batch norms, ReLUs, pools, softmax, residual adds, and the extras reduce, dropout,
# LRN), every GPU op solver verified (VERIFY, default sampled: the op runner at batch 2 and every
# output element written at batch 32) then timed, each problem's GB/s against the device copy
# bandwidth measured in the same process. Combos bf16 nhwc, fp32 nchw, fp16 nhwc, one process each,
# inside BENCH_OPS_BUDGET_S (default 90 s): each combo's --time-limit is its share of what is left.
# Writes into $OUT (default out/device_bench_ops): perf_ops_h200.json (the combos merged),
# perf_ops_h200.md, bench_ops.log (3 files); prints the totals last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-out/device_bench_ops}"
mkdir -p "$OUT"
log="$OUT/bench_ops.log"
bin="${BIN:-devbin}/hiprim"
budget="${BENCH_OPS_BUDGET_S:-90}"
verify="${VERIFY:-sampled}"
batch="${BATCH:-32}"
if [ ! -x "$bin" ]; then
  echo "device_bench_ops: $bin is missing: run scripts/device_build.sh here first and carry devbin" >&2
  exit 2
fi
{
  echo "device_bench_ops: $(date -u +%FT%TZ), verify $verify, batch $batch, budget $budget s"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1
} | tee "$log"

tmp=$(mktemp -d /tmp/device_bench_ops.XXXXXX)
start=$(date +%s)
reports=()
combos=("bf16 nhwc" "fp32 nchw" "fp16 nhwc")
for i in "${!combos[@]}"; do
  set -- ${combos[$i]}
  left=$((budget - ($(date +%s) - start)))
  share=$(( (left - 4) / (${#combos[@]} - i) ))
  if [ "$share" -lt 8 ]; then
    echo "device_bench_ops: budget spent, $1 $2 not run" | tee -a "$log"
    continue
  fi
  report="$tmp/perf_ops_$1_$2.json"
  echo "=== $1 $2 (time limit $share s) ===" | tee -a "$log"
  "$bin" bench --op all --suite resnet50_ops --batch "$batch" --dtype "$1" --layout "$2" --verify "$verify" \
    --warmup 5 --reps 20 --budget-ms 100 --time-limit "$share" --report "$report" 2>&1 | tee -a "$log"
  [ -f "$report" ] && reports+=("$report")
done

final="$OUT/perf_ops_h200"
if [ ${#reports[@]} -eq 0 ]; then
  echo "device_bench_ops: no report was written" | tee -a "$log"
  exit 1
fi
"$bin" report merge "${reports[@]}" -o "$final.json" | tee -a "$log"
"$bin" report markdown "$final.json" -o "$final.md" --no-charts | tee -a "$log"
rm -rf "$tmp"
echo "device_bench_ops: $(( $(date +%s) - start )) s in the benches" | tee -a "$log"
"$bin" report summary "$final.json" | tee -a "$log"
