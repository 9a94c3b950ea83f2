#!/usr/bin/env bash
# Runs on the GPU machine (the H200), from the repository root, with the binaries in $BIN (default devbin/):
#   1. the GPU unit tests (test_gpu*), 2. hiprim check over smoke + edge + resnet50 (small batch) for every
#   GPU conv solver x direction x fp32/fp16/bf16 x NCHW/NHWC, 3. compute-sanitizer memcheck and racecheck
#   over the smoke suite. Writes into $OUT: conformance.json, tests.log, sanitizer.log, summary.txt.
set -u
BIN=${BIN:-devbin}
OUT=${OUT:-out}
BATCH=${BATCH:-2}
mkdir -p "$OUT"
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
: > "$OUT/summary.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv >> "$OUT/summary.txt" 2>&1

log "GPU unit tests"
: > "$OUT/tests.log"
for t in "$BIN"/test_gpu*; do
  timeout 300 "$t" --gtest_brief=1 >> "$OUT/tests.log" 2>&1
  rc=$?
  log "$(basename "$t"): rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/tests.log" | tail -3 | tr '\n' ' ')"
done

log "conformance: smoke + edge + resnet50 (batch $BATCH), conv.* x 3 dtypes x 2 layouts x 3 directions"
timeout 420 "$BIN/hiprim" check --require-gpu --suite smoke,edge,resnet50 --batch "$BATCH" --dtype fp32,fp16,bf16 --layout nchw,nhwc \
  --solver 'conv.*' --report "$OUT/conformance.json" > "$OUT/check.log" 2>&1
log "hiprim check rc=$?"
tail -8 "$OUT/check.log" | tee -a "$OUT/summary.txt"

log "compute-sanitizer over the smoke suite"
: > "$OUT/sanitizer.log"
for tool in memcheck racecheck; do
  timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 99 "$BIN/hiprim" check --suite smoke --solver 'conv.*' \
    --report /tmp/sanitize_$tool.json >> "$OUT/sanitizer.log" 2>&1
  rc=$?
  log "compute-sanitizer $tool: rc=$rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer.log" | tail -1)"
done
cat "$OUT/summary.txt"
