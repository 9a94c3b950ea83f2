#!/usr/bin/env bash
# The H200 check of the fusion solvers (issue 14), from the repository root on the GPU machine, with
# devbin/hiprim made by scripts/device_build.sh: every fusion line of SUITE (default smoke_ops,fusion)
# through every GPU fusion solver (SOLVER, default fusion.*) in the exact tier and the bounded tier;
# then the fusion suite through fusion.igemm.wgmma once per config of CONFIGS (HIPRIM_CONV_CONFIG:
# tiles, warp specialisation, TMA, split-K; a config a problem cannot take falls back to the
# default); then a fuzz campaign (FUZZ_S seconds, default 40) of each solver with the CPU reference as
# the oracle (shrunk failures saved into $OUT/corpus). --require-gpu everywhere: a solver that did not
# run fails the step. BENCH_SUITE (e.g. bench/suites/resnet50_fusion_bf16_nhwc.txt): then `hiprim bench
# --op fusion` of fusion.igemm.wgmma over it against cuDNN's fused graph (--peer cudnn; the chains it
# cannot compute, e.g. bnorm-infer, are refused with the rule) (BENCH_LIMIT_S, default 150; every timed
# output verified, the peer's plans too; PEER_MAX_PLANS: the peer's plans autotuned per problem, default the bench's 24).
# With $BIN/test_bench present, its device cases (OpBenchDevice.*: the fused-graph peer) run first; with the
# ResNet-50 fusion suite, scripts/resnet50_inference.py sums the report into the whole-net inference
# time (inference_total.json), and PyTorch's unfused eager sequence of each chain is timed in the same run
# (scripts/torch_fusion.py via torch_crosscheck.py --problems: torch_fusion.json, TORCH_S). SKIP_CONFIGS=1 / FUZZ_S=0 leave those steps out. CONFIG_PERSIST_CTAS: caps .p's grid in
# the config checks (HIPRIM_IGEMM_PERSIST_CTAS: several tiles per CTA on the suite's small problems). Files in $OUT (default out/device_fusion): fusion.log,
# fusion_check_exact.json, fusion_check_bounded.json, fusion_config_<config>.json, fusion_fuzz.json,
# perf_fusion_h200.json.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-devbin}
OUT=${OUT:-out/device_fusion}
SOLVER=${SOLVER:-fusion.*}
SUITE=${SUITE:-smoke_ops,fusion}
CONFIGS=${CONFIGS:-m128n128k64.s4.splitk1 m64n64k64.s3.splitk1.ws m128n64k64.s4.splitk1.ws.tma m256n128k64.s3.splitk1 m128n256k64.s3.splitk1.ws.tma m64n128k64.s4.splitk3.ws.tma m128n128k64.s4.splitk2}
FUZZ_S=${FUZZ_S:-40}
mkdir -p "$OUT"
log="$OUT/fusion.log"
: > "$log"
source "$(dirname "$0")/step_lib.sh"
source "$(dirname "$0")/cudnn_env.sh"  # the bench's peer: cuDNN's fused graph (bench/fusion_peer.hpp)
fstep() {  # step, then the summary lines of what it printed
  step "$@"
  tail -6 "$log" | grep -E "total|passed|failed|cases" || true
}
fstep exact 120 "$BIN/hiprim" check --require-gpu --suite "$SUITE" --solver "$SOLVER" --fill exact --report "$OUT/fusion_check_exact.json"
fstep bounded 120 "$BIN/hiprim" check --require-gpu --suite "$SUITE" --solver "$SOLVER" --fill bounded --report "$OUT/fusion_check_bounded.json"
[ "${SKIP_CONFIGS:-0}" = 1 ] && CONFIGS=""
for cfg in $CONFIGS; do
  HIPRIM_CONV_CONFIG=$cfg HIPRIM_IGEMM_PERSIST_CTAS="${CONFIG_PERSIST_CTAS:-}" fstep "config_$cfg" 120 "$BIN/hiprim" check --require-gpu --suite fusion --solver fusion.igemm.wgmma \
    --report "$OUT/fusion_config_$cfg.json"
done
[ "$FUZZ_S" -gt 0 ] && fstep fuzz $((FUZZ_S + 90)) "$BIN/hiprim" fuzz --op fusion --solver "$SOLVER" --time "$FUZZ_S" --seed 7 --require-gpu \
  --shrink-runs 200 --report "$OUT/fusion_fuzz.json" --corpus "$OUT/corpus"
# The bench's cuDNN fused-graph peer on its own first (test_bench's device cases), when built.
[ -x "$BIN/test_bench" ] && fstep peer_test 300 "$BIN/test_bench" --gtest_filter='OpBenchDevice.*'
if [ -n "${BENCH_SUITE:-}" ]; then
  lim=${BENCH_LIMIT_S:-150}
  fstep bench $((lim + 60)) "$BIN/hiprim" bench --op fusion --suite "$BENCH_SUITE" --solver fusion.igemm.wgmma --repeats 2 \
    ${PEER_MAX_PLANS:+--peer-max-plans "$PEER_MAX_PLANS"} \
    --time-limit "$lim" --report "$OUT/perf_fusion_h200.json"
  grep -E "^dtype|^(bf16|fp16) |cases:|time limit" "$log" | tail -5
  # The ResNet-50 inference suite: its whole-net total (every conv with the chain it runs, counted).
  case "$BENCH_SUITE" in *resnet50_fusion*)
    fstep inference_total 60 python3 scripts/resnet50_inference.py "$OUT/perf_fusion_h200.json" --json "$OUT/inference_total.json"
    grep "ResNet-50 inference" "$log" ;;
  esac
  # PyTorch's unfused eager sequence of every chain in the same run (scripts/torch_fusion.py), joined with
  # the bench report: the cross-check of the fused-graph peer (TORCH_S, default 120; 0 skips it).
  if [ "${TORCH_S:-120}" -gt 0 ]; then
    fstep torch $((${TORCH_S:-120} + 60)) python3 scripts/torch_crosscheck.py --problems "$BENCH_SUITE" --replays 5 --target-ms 3 \
      --time-budget "${TORCH_S:-120}" --out "$OUT/torch_fusion.json" --bench "$OUT/perf_fusion_h200.json"
  fi
fi
grep -E "^-- " "$log"
