#!/usr/bin/env bash
# The H200 performance runs (on the GPU machine from the repository root, with devbin/ built by
# scripts/device_build.sh copied there). Every figure comes from `hiprim bench` with the honest clock: GPU time
# by graph replay (hiprim's solvers and the peer alike), host overhead per call, every timed output
# verified in full in the exact tier first, the peer = cuDNN's graph API autotuned (every plan
# checked and timed, the fastest that passed), 3 repeats of the suite with spread, NVML clocks.
#
#   scripts/device_bench.sh quick   the validation run (<= 2 min; run it first): the GPU timer tests
#                                   (devbin/test_bench, when built), bf16 nhwc fwd on 5 ResNet-50 layers
#                                   at batch 32 with the graph-API peer, 2 repeats; the same 2 layers with
#                                   --peer cudnn-legacy (a working peer while the graph API one is not in)
#   COMBOS=bf16:nhwc DIRS=bwd-data scripts/device_bench.sh custom   ResNet-50 for the given combos and
#                                   directions (a change measured against the peer in one call)
#   scripts/device_bench.sh 1       ResNet-50 v1.5, batch 32, fwd + bwd-data + bwd-weights, combos
#                                   bf16:nhwc, fp16:nhwc, fp32:nchw in one process (one shared reference
#                                   per layer and direction), 3 repeats   (<= 9 min)
#   scripts/device_bench.sh 2       the same for fp32:nhwc, bf16:nchw, fp16:nchw   (<= 9 min)
#   scripts/device_bench.sh ops     the op suite (scripts/device_bench_ops.sh: resnet50_ops, bf16:nhwc,
#                                   fp32:nchw, fp16:nhwc, 3 repeats)   (<= 8 min)
# (or PART=quick|1|2|ops). Each part writes into $OUT (default out/device_bench) at most 6 files:
#   quick: quick.log, quick_test_bench.log, quick_graph_peer.json/.md, quick_legacy_peer.json/.md
#   1:     perf_resnet50_part1_h200.json/.md, bench_part1.log
#   2:     perf_resnet50_part2_h200.json/.md, bench_part2.log
#   ops:   perf_ops_h200.json/.md, bench_ops.log (by device_bench_ops.sh)
# and prints the totals last. Knobs: BENCH_LIMIT_S (seconds after which a bench starts no new problem;
# part 1: 480, part 2: 500, ops: OPS_LIMIT_S=400), SOLVER (a glob; default every
# solver but conv.naive, whose minutes per layer would take the whole run), BUDGET_MS (device time
# per solver's timed replays per repeat, default 60), REPEATS (3), PEER_MAX_PLANS (the graph-API peer's
# plans verified and timed per problem, default 24; lower it if plan building dominates the quick run).
set -uo pipefail
cd "$(dirname "$0")/.."
part="${1:-${PART:-}}"
case "$part" in
  quick|1|2|ops|custom) ;;
  *) echo "usage: scripts/device_bench.sh quick|1|2|ops|custom   (or PART=...; custom: COMBOS and DIRS)" >&2; exit 2 ;;
esac
OUT="${OUT:-out/device_bench}"
mkdir -p "$OUT"
bindir="${BIN:-devbin}"
bin="$bindir/hiprim"
if [ ! -x "$bin" ]; then
  echo "device_bench: $bin is missing: run scripts/device_build.sh first and copy devbin here" >&2
  exit 2
fi
solver="${SOLVER:-conv.igemm.*,conv.gemm.*,conv.direct.*}"
budget_ms="${BUDGET_MS:-60}"
repeats="${REPEATS:-3}"

source "$(dirname "$0")/cudnn_env.sh"  # HIPRIM_CUDNN_LIB and LD_LIBRARY_PATH for the peer
start=$(date +%s)
header() {
  echo "device_bench $part: $(date -u +%FT%TZ), cuDNN: ${HIPRIM_CUDNN_LIB:-libcudnn.so.9 (loader path)}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1
}
common=(--batch 32 --reps 20 --replays 5 --budget-ms "$budget_ms" --verify full --peer-max-plans "${PEER_MAX_PLANS:-24}")

if [ "$part" = quick ]; then
  log="$OUT/quick.log"
  header | tee "$log"
  if [ -x "$bindir/test_bench" ] || { [ -f "$bindir/tests.tar.xz" ] && tar -xJf "$bindir/tests.tar.xz" -C "$bindir" test_bench 2>/dev/null; }; then
    echo "=== GPU timer and bench tests ===" | tee -a "$log"
    timeout 40 "$bindir/test_bench" --gtest_filter='GraphTimerDevice.*:BenchDevice.*:ClockLog.*:Provenance.*' \
      >"$OUT/quick_test_bench.log" 2>&1
    echo "test_bench exit $? ($(grep -c '^\[       OK' "$OUT/quick_test_bench.log") ok, $(grep -c '^\[  FAILED  \].*ms)$' "$OUT/quick_test_bench.log") failed, $(grep -c '^\[  SKIPPED \].*ms)$' "$OUT/quick_test_bench.log") skipped)" | tee -a "$log"
  else
    echo "$bindir/test_bench not built (scripts/device_build.sh hiprim test_bench): GPU tests skipped" | tee -a "$log"
  fi
  layers=("conv fwd bf16 nhwc n32 c1024 k256 in14x14 f1x1" "conv fwd bf16 nhwc n32 c64 k64 in56x56 f3x3 pad1x1"
          "conv fwd bf16 nhwc n32 c64 k256 in56x56 f1x1" "conv fwd bf16 nhwc n32 c256 k256 in28x28 f3x3 pad1x1 str2x2"
          "conv fwd bf16 nhwc n32 c3 k64 in224x224 f7x7 pad3x3 str2x2")
  probs=()
  for l in "${layers[@]}"; do probs+=(--problem "$l"); done
  echo "=== bf16 nhwc fwd, 5 layers, graph-API peer, 2 repeats ===" | tee -a "$log"
  timeout 55 "$bin" bench "${probs[@]}" --solver "$solver" --peer cudnn --repeats 2 "${common[@]}" --time-limit 35 \
    --report "$OUT/quick_graph_peer.json" 2>&1 | tee -a "$log"
  echo "=== the same, 2 layers, legacy peer ===" | tee -a "$log"
  timeout 25 "$bin" bench "${probs[@]:0:4}" --solver "$solver" --peer cudnn-legacy --repeats 2 "${common[@]}" --no-ceilings \
    --time-limit 12 --report "$OUT/quick_legacy_peer.json" 2>&1 | tee -a "$log"
  for r in quick_graph_peer quick_legacy_peer; do
    [ -f "$OUT/$r.json" ] && "$bin" report markdown "$OUT/$r.json" -o "$OUT/$r.md" --no-charts >/dev/null 2>&1
  done
  echo "device_bench quick: $(( $(date +%s) - start )) s" | tee -a "$log"
  grep -h "^seconds per repeat\|^build:\|^peer:\|^clocks\|cannot be captured\|! " "$log" | head -30
  exit 0
fi

if [ "$part" = ops ]; then
  OUT="$OUT" BENCH_OPS_LIMIT_S="${OPS_LIMIT_S:-400}" REPEATS="$repeats" scripts/device_bench_ops.sh
  exit $?
fi
dirs="fwd,bwd-data,bwd-weights"
if [ "$part" = 1 ]; then
  combos="bf16:nhwc,fp16:nhwc,fp32:nchw"
  limit="${BENCH_LIMIT_S:-480}"
elif [ "$part" = custom ]; then
  combos="${COMBOS:?custom: set COMBOS, e.g. bf16:nhwc}"
  dirs="${DIRS:-$dirs}"
  limit="${BENCH_LIMIT_S:-300}"
else
  combos="fp32:nhwc,bf16:nchw,fp16:nchw"
  limit="${BENCH_LIMIT_S:-500}"
fi
name="perf_resnet50_part${part}_h200"
log="$OUT/bench_part${part}.log"
header | tee "$log"
echo "=== ResNet-50 batch 32, $combos, $dirs, $repeats repeats (new problems until ${limit} s) ===" | tee -a "$log"
"$bin" bench --suite resnet50 --combo "$combos" --dir "$dirs" --solver "$solver" --peer cudnn \
  --repeats "$repeats" "${common[@]}" --time-limit "$limit" --report "$OUT/$name.json" 2>&1 | tee -a "$log"
if [ -f "$OUT/$name.json" ]; then
  "$bin" report markdown "$OUT/$name.json" -o "$OUT/$name.md" --no-charts >/dev/null 2>&1
else
  echo "device_bench: no report was written" | tee -a "$log"
fi
echo "device_bench $part: $(( $(date +%s) - start )) s" | tee -a "$log"
[ -f "$OUT/$name.json" ] && "$bin" report summary "$OUT/$name.json"
