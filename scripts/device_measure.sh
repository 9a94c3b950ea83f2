#!/usr/bin/env bash
# A sizing run on the GPU machine (about 3 minutes), from the repository root with the binaries in
# $BIN (default devbin/, built by scripts/device_build.sh hiprim): where the bench's wall time goes
# (settings.phase_seconds: prepare_wait, verify, peer_plans, peer_autotune, timing) on a slice of the
# ResNet-50 suite, so the full runs (scripts/device_bench.sh 1|2) can be split to fit their calls.
#   1. hiprim check --suite smoke over every solver: the runner's verdicts (compare with the last run's)
#   2. hiprim bench, ResNet-50 batch 32, bf16:nhwc + fp32:nchw, all directions, graph-API peer,
#      3 repeats, new problems for ${CONV_LIMIT_S:-75} s
#   3. hiprim bench --op all, resnet50_ops batch 32, bf16:nhwc, 3 repeats, ${OPS_LIMIT_S:-40} s
# Writes into $OUT: measure.log, smoke_check.json, measure_conv.json, measure_ops.json.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-out/device_measure}"
mkdir -p "$OUT"
for a in "${BIN:-devbin}"/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C "${BIN:-devbin}"; done
bin="${BIN:-devbin}/hiprim"
log="$OUT/measure.log"
source "$(dirname "$0")/cudnn_env.sh"  # HIPRIM_CUDNN_LIB and LD_LIBRARY_PATH for the peer
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } | tee "$log"
t0=$(date +%s)
echo "=== smoke check, every solver" | tee -a "$log"
timeout 150 "$bin" check --suite smoke --report "$OUT/smoke_check.json" 2>&1 | tail -n 40 | tee -a "$log"
echo "smoke check: $(( $(date +%s) - t0 )) s" | tee -a "$log"
common=(--batch 32 --reps 20 --replays 5 --budget-ms 60 --verify full --repeats 3 --peer-max-plans 24)
t1=$(date +%s)
echo "=== conv bench slice" | tee -a "$log"
timeout $(( ${CONV_LIMIT_S:-75} + 120 )) "$bin" bench --suite resnet50 --combo bf16:nhwc,fp32:nchw --dir fwd,bwd-data,bwd-weights \
  --solver 'conv.igemm.*,conv.gemm.*' --peer cudnn "${common[@]}" --time-limit "${CONV_LIMIT_S:-75}" \
  --report "$OUT/measure_conv.json" 2>&1 | grep -E "^seconds|time limit|^cases|^clocks" | tee -a "$log"
echo "conv slice: $(( $(date +%s) - t1 )) s" | tee -a "$log"
t2=$(date +%s)
echo "=== op bench slice" | tee -a "$log"
timeout $(( ${OPS_LIMIT_S:-40} + 90 )) "$bin" bench --op all --suite resnet50_ops --combo bf16:nhwc "${common[@]}" \
  --time-limit "${OPS_LIMIT_S:-40}" --report "$OUT/measure_ops.json" 2>&1 | grep -E "^seconds|time limit|^cases|^clocks" | tee -a "$log"
echo "op slice: $(( $(date +%s) - t2 )) s" | tee -a "$log"
for r in measure_conv measure_ops; do
  python3 - "$OUT/$r.json" <<'PY' 2>&1 | tee -a "$log"
import json, sys
d = json.load(open(sys.argv[1])); s = d["settings"]
print(sys.argv[1].split("/")[-1], "problems", s.get("problems_run"), "of", s.get("problems_planned"), "repeats_run", s.get("repeats_run"),
      "repeat_seconds", [round(x, 1) for x in s.get("repeat_seconds", [])])
print("  phase_seconds", {k: round(v, 1) for k, v in s.get("phase_seconds", {}).items()}, "references", s.get("references"))
print("  summary", d.get("summary"))
PY
done
echo "device_measure: $(( $(date +%s) - t0 )) s" | tee -a "$log"
