#!/usr/bin/env bash
# A/B of two hiprim builds on the ResNet-50 conv bench in one GPU call (same machine, same minutes):
# `hiprim bench` of BIN_A/hiprim, then BIN_B/hiprim, then BIN_A/hiprim again (the drift check), each
# against the graph-API cuDNN peer measured in its own process, every timed output verified in full.
# Env: BIN_A, BIN_B (folders holding hiprim), COMBOS (default bf16:nhwc), DIRS (fwd,bwd-data,bwd-weights),
# SOLVER (conv.igemm.*), REPEATS (2), LIMIT_S (per bench, 120), SUITE (resnet50, or a suite file),
# PEER_PLANS (--peer-max-plans, default 24). Writes into $OUT: bench_{a,b,a2}.json,
# bench_{a,b,a2}.log and prints each bench's summary table.
set -u
cd "$(dirname "$0")/.."
: "${OUT:?}" "${BIN_A:?}" "${BIN_B:?}"
mkdir -p "$OUT"
combos=${COMBOS:-bf16:nhwc}
dirs=${DIRS:-fwd,bwd-data,bwd-weights}
run() {  # run NAME BIN
  echo "== $1: $2/hiprim ($(date -u +%T))"
  timeout $(( ${LIMIT_S:-120} + 60 )) "$2/hiprim" bench --suite "${SUITE:-resnet50}" --batch 32 --combo "$combos" --dir "$dirs" \
    --peer-max-plans "${PEER_PLANS:-24}" \
    --solver "${SOLVER:-conv.igemm.*}" --repeats "${REPEATS:-2}" --time-limit "${LIMIT_S:-120}" \
    --report "$OUT/bench_$1.json" > "$OUT/bench_$1.log" 2>&1
  echo "rc=$?"
  grep -E "^dtype|^(bf16|fp16|fp32) |cases:|time limit" "$OUT/bench_$1.log" | tail -8
}
run a "$BIN_A"
run b "$BIN_B"
run a2 "$BIN_A"
