#!/usr/bin/env bash
# Conformance of the non-convolution primitives on the GPU machine (the H200). Run from the
# repository root with the binaries in $BIN (default devbin/, made by scripts/device_build.sh):
#   1. the op GPU tests (test_gpu_ops_*, not the *_emu host emulations: bnorm/activ/softmax/dropout
#      and pool/lrn/tensorop/reduce, and the activation formulas' error model on the host),
#   2. hiprim check --require-gpu --suite smoke_ops,ops over every GPU op solver -> $OUT/conformance_ops.json,
#   3. compute-sanitizer memcheck and racecheck (the shared-memory reductions) over smoke_ops.
# Writes into $OUT: conformance_ops.json, ops_tests.log, ops_check.log, ops_sanitizer.log,
# ops_summary.txt. Exit status: 0 when the tests and the check passed and the sanitizers are clean.
# Budget: about 1-2 minutes (each step has a timeout; the total stays under 3 minutes).
set -u
BIN=${BIN:-devbin}
OUT=${OUT:-out}
SOLVERS=${SOLVERS:-$("$BIN/hiprim" list ops --globs)} || { echo "device_ops: $BIN/hiprim list ops failed" >&2; exit 2; }
mkdir -p "$OUT"
summary="$OUT/ops_summary.txt"
: > "$summary"
log() { echo "== $*" | tee -a "$summary"; }
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >> "$summary" 2>&1

log "op GPU tests"
: > "$OUT/ops_tests.log"
for t in "$BIN"/test_gpu_ops*; do
  [ -x "$t" ] || continue
  case "$t" in *_emu) continue ;; esac  # the host emulations run in CI, not here
  timeout 60 "$t" --gtest_brief=1 >> "$OUT/ops_tests.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && status=1
  log "$(basename "$t"): rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/ops_tests.log" | tail -3 | tr '\n' ' ')"
done

log "conformance: smoke_ops + ops (each ops line x fp32/fp16/bf16 x both layouts), solvers $SOLVERS"
timeout 150 "$BIN/hiprim" check --require-gpu --suite smoke_ops,ops --solver "$SOLVERS" --report "$OUT/conformance_ops.json" \
  > "$OUT/ops_check.log" 2>&1
rc=$?
[ $rc -ne 0 ] && status=1
log "hiprim check rc=$rc"
grep -E '^(solver|total|[a-z]+\.[a-z_0-9.]+ +[0-9])' "$OUT/ops_check.log" | tail -20 | tee -a "$summary"
passed=$(awk '$1 == "total" {print $2}' "$OUT/ops_check.log" | tail -1)
if [ "${passed:-0}" -eq 0 ]; then
  log "no case passed (no usable GPU?): see $OUT/ops_check.log"
  status=1
fi

log "compute-sanitizer over smoke_ops"
: > "$OUT/ops_sanitizer.log"
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 99 "$BIN/hiprim" check --suite smoke_ops --solver "$SOLVERS" \
    --no-determinism-check --report "/tmp/ops_sanitize_$tool.json" >> "$OUT/ops_sanitizer.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && status=1
  log "compute-sanitizer $tool: rc=$rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/ops_sanitizer.log" | tail -1)"
done
log "device_ops status=$status"
exit $status
