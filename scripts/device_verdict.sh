#!/usr/bin/env bash
# The verdict fixes on the GPU machine (the H200), from the repository root, with the binaries in
# $BIN (default devbin/; build them here with
#   scripts/device_build.sh hiprim test_fuzz test_gpu_gemm test_gpu_host
# ). About 2 minutes. Steps:
#   1. implicit zeros: every GPU conv solver, on cases where padding, border taps and stride holes
#      meet NaN/Inf, gives exactly the answer its declaration (ConvSolver::implicit_zeros) implies,
#      and fails with that kind's declaration flipped (test_fuzz ImplicitZeros.* / FuzzSpecial.*).
#   2. the GEMM-conv tests whose tensor-core halves are now their own tests (they skip visibly
#      without a usable mma path) and the host-only GPU tests.
#   3. the poison: `hiprim check --require-gpu --suite smoke` over every GPU conv and op solver, outputs poisoned
#      with a signaling NaN no arithmetic produces (an unwritten element fails, named).
#   4. the committed fuzz corpus (its special-value lines too) over every GPU solver, strict judge.
#   5. a ${FUZZ_TIME:-60s} special-value conv campaign (nan, inf, mixed) over every conv.* solver
#      with the strict judge; mistrusted cases now count as failures.
# Writes into $OUT: verdict_tests.log, smoke_check.json, smoke_check.log, corpus_check.json,
# corpus_check.log, fuzz_special_h200.json, fuzz_special.log; prints a summary table last.
# Usage: OUT=/some/dir scripts/device_verdict.sh   (BIN=devbin FUZZ_TIME=60s JOBS=8 SEED=1)
set -u
BIN=${BIN:-devbin}
OUT=${OUT:-out}
FUZZ_TIME=${FUZZ_TIME:-60s}
JOBS=${JOBS:-8}
SEED=${SEED:-1}
mkdir -p "$OUT"
if [ -f "$BIN/tests.tar.xz" ]; then tar -xJf "$BIN/tests.tar.xz" -C "$BIN"; fi
OP_SOLVERS=$("$BIN/hiprim" list ops --globs) || { echo "device_verdict: $BIN/hiprim list ops failed" >&2; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1
declare -A rc

# gtest's last lines of one run: the counts and any FAILED/SKIPPED lines.
gtest_step() {
  local name=$1 limit=$2
  shift 2
  echo "== $name" | tee -a "$OUT/verdict_tests.log"
  timeout "$limit" "$@" 2>&1 | tee -a "$OUT/verdict_tests.log" | grep -E '^\[  (PASSED|FAILED|SKIPPED) |held to kinds|Skipped|Failure' | head -n 40
  rc[$name]=${PIPESTATUS[0]}
}

gtest_step implicit_zeros 240 "$BIN/test_fuzz" --gtest_filter='ImplicitZeros.*:FuzzSpecial.*'
gtest_step gemm_conv 240 "$BIN/test_gpu_gemm" --gtest_filter='GemmConvRandom.*:GemmConvImplicit.*:GemmConvSolverPlan.*:GemmConvMma.*'
gtest_step gpu_host 120 "$BIN/test_gpu_host"

echo "== smoke suite, every GPU conv and op solver, new poison"
timeout 240 "$BIN/hiprim" check --require-gpu --suite smoke --solver "conv.*,$OP_SOLVERS" \
  --report "$OUT/smoke_check.json" > "$OUT/smoke_check.log" 2>&1
rc[smoke]=$?
grep -E '^(solver|total) |^(failed|mistrusted|error) ' -A1 "$OUT/smoke_check.log" | grep -v '^--' | head -n 30

echo "== the committed fuzz corpus (special-value cases included) over every GPU solver, strict judge"
timeout 120 "$BIN/hiprim" check --require-gpu --suite corpus --solver "conv.*,$OP_SOLVERS" \
  --report "$OUT/corpus_check.json" > "$OUT/corpus_check.log" 2>&1
rc[corpus]=$?
grep -E '^(total) |^(failed|mistrusted|error) ' -A1 "$OUT/corpus_check.log" | grep -v '^--' | head -n 20

echo "== special-value conv campaign, $FUZZ_TIME, every conv.* solver, strict judge"
timeout 300 "$BIN/hiprim" fuzz --op conv --solver 'conv.*' --specials nan,inf,mixed --time "$FUZZ_TIME" --seed "$SEED" \
  --oracle cpu --size small --devices all --jobs-per-device "$JOBS" --report "$OUT/fuzz_special_h200.json" > "$OUT/fuzz_special.log" 2>&1
rc[fuzz]=$?
grep -vE '^\[(gpu|worker)' "$OUT/fuzz_special.log" | tail -n 40

echo
echo "== summary (rc 0 = all passed; fuzz rc 1 = failures, mistrusted ones included)"
printf '%-16s %4s  %s\n' step rc note
printf '%-16s %4s  %s\n' implicit_zeros "${rc[implicit_zeros]}" "GPU solvers' declared implicit zeros (ImplicitZeros.*)"
printf '%-16s %4s  %s\n' gemm_conv "${rc[gemm_conv]}" "simt and mma halves as separate tests"
printf '%-16s %4s  %s\n' gpu_host "${rc[gpu_host]}" "host-only GPU tests"
printf '%-16s %4s  %s\n' corpus "${rc[corpus]}" "passed failed mistrusted unsupported error: $(grep -E '^total ' "$OUT/corpus_check.log" | tail -n 1 | tr -s ' ' | cut -d' ' -f2-)"
printf '%-16s %4s  %s\n' smoke "${rc[smoke]}" "passed failed mistrusted unsupported error: $(grep -E '^total ' "$OUT/smoke_check.log" | tail -n 1 | tr -s ' ' | cut -d' ' -f2-)"
if command -v python3 >/dev/null && [ -f "$OUT/fuzz_special_h200.json" ]; then
  note=$(python3 -c "
import json,sys; c=json.load(open('$OUT/fuzz_special_h200.json'))['campaign']
print('%d cases, %d failures, statuses %s' % (c['cases'], c['failures'], json.dumps(c['statuses'])))")
else
  note="no report"
fi
printf '%-16s %4s  %s\n' fuzz_special "${rc[fuzz]}" "$note"
