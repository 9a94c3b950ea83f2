#!/usr/bin/env bash
# The H200 performance run (the lead runs it through the device tool, carrying devbin/ built by
# scripts/device_build.sh): ResNet-50 v1.5 convolutions at batch 32, fwd + bwd-data + bwd-weights,
# for every dtype x layout, every GPU solver (--best, each verified against the CPU reference first)
# side by side with cuDNN's find-mode best, in one process per dtype x layout.
# Most important combos first (fp32 nchw, bf16 nhwc, fp16 nhwc, then bf16 nchw, fp16 nchw, fp32 nhwc);
# a combo starts only while the time budget (BENCH_BUDGET_S, default 330 s) lasts, and each bench
# stops starting problems when its share runs out, so the run ends well inside the 10-minute limit.
# Verification: VERIFY (default sampled: every output element finite and a channel slice against the
# CPU reference; `full` compares every element and costs about three combos' worth of the budget, see
# README.md). Slow solvers get fewer timed runs: BUDGET_MS (default 100) of device time per solver's
# timed runs (solvers under 5 ms a run keep all 20; conv.naive and conv.direct.tiled, at 5-270 ms a
# run, took 60% of the first H200 run's 186 s with 300 ms).
# DIRS (default fwd,bwd-data,bwd-weights) picks the directions. REPORT_NAME (default
# perf_resnet50_h200) names the merged report.
# SOLVER (a glob, e.g. 'conv.gemm.*,conv.direct.*') times only those solvers instead of --best's all.
# Writes into $OUT (default out/device_bench): perf_resnet50_h200.json (the combos' reports merged),
# perf_resnet50_h200.md, perf_resnet50_h200.html, bench.log (4 files); prints the totals last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-out/device_bench}"
mkdir -p "$OUT"
log="$OUT/bench.log"
bin="${BIN:-devbin}/hiprim"
budget="${BENCH_BUDGET_S:-330}"
verify="${VERIFY:-sampled}"
budget_ms="${BUDGET_MS:-100}"
if [ ! -x "$bin" ]; then
  echo "device_bench: $bin is missing: run scripts/device_build.sh here first and carry devbin" >&2
  exit 2
fi

# cuDNN: torch's copy in site-packages; its sub-libraries and their NVIDIA dependencies sit beside it.
if [ -z "${HIPRIM_CUDNN_LIB:-}" ]; then
  site=$(python3 -c "import torch,os;print(os.path.dirname(os.path.dirname(torch.__file__)))" 2>/dev/null || true)
  if [ -n "$site" ] && [ -e "$site/nvidia/cudnn/lib/libcudnn.so.9" ]; then
    export HIPRIM_CUDNN_LIB="$site/nvidia/cudnn/lib/libcudnn.so.9"
    for d in "$site"/nvidia/*/lib; do LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; done
    export LD_LIBRARY_PATH
  fi
fi
{
  echo "device_bench: $(date -u +%FT%TZ), verify $verify, cuDNN: ${HIPRIM_CUDNN_LIB:-libcudnn.so.9 (loader path)}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1
} | tee "$log"

which=(--best)
[ -n "${SOLVER:-}" ] && which=(--solver "$SOLVER")
tmp=$(mktemp -d /tmp/device_bench.XXXXXX)
start=$(date +%s)
reports=()
for combo in "fp32 nchw" "bf16 nhwc" "fp16 nhwc" "bf16 nchw" "fp16 nchw" "fp32 nhwc"; do
  set -- $combo
  left=$((budget - ($(date +%s) - start)))
  if [ "$left" -lt 40 ]; then
    echo "device_bench: budget spent, $1 $2 not run" | tee -a "$log"
    continue
  fi
  report="$tmp/perf_$1_$2.json"
  echo "=== $1 $2 ($left s left) ===" | tee -a "$log"
  "$bin" bench --suite resnet50 --batch 32 --dtype "$1" --layout "$2" --dir "${DIRS:-fwd,bwd-data,bwd-weights}" \
    "${which[@]}" --peer cudnn --verify "$verify" --warmup 5 --reps 20 --budget-ms "$budget_ms" --time-limit $((left - 25)) --report "$report" 2>&1 | tee -a "$log"
  [ -f "$report" ] && reports+=("$report")
done

final="$OUT/${REPORT_NAME:-perf_resnet50_h200}"
if [ ${#reports[@]} -eq 0 ]; then
  echo "device_bench: no report was written" | tee -a "$log"
  exit 1
fi
"$bin" report merge "${reports[@]}" -o "$final.json" | tee -a "$log"
"$bin" report markdown "$final.json" -o "$final.md" --no-charts | tee -a "$log"
"$bin" report html "$final.json" -o "$final.html" | tee -a "$log"
rm -rf "$tmp"
echo "device_bench: $(( $(date +%s) - start )) s in the benches" | tee -a "$log"
grep -h "disagreement:" "$log" | head -20
"$bin" report summary "$final.json" | tee -a "$log"
