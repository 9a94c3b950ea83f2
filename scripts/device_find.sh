#!/usr/bin/env bash
# Find, tuning and immediate mode on a GPU machine, from the repository root, with the hiprim binary
# in $BIN (default devbin/; build it with scripts/device_build.sh hiprim). About 200 s in all, each
# step under its own timeout. Steps (a fresh user db in $OUT, so nothing earlier is reused):
#   1. find:  the first $LAYERS layers (0: all 23) of the resnet50 suite (batch $BATCH, bf16 NHWC) in each of
#             fwd, bwd-data, bwd-weights over the GPU conv solvers $SOLVER (default: all but
#             conv.naive): each verified (full, against the CPU reference), timed by graph
#             replay, recorded; a solver that fails verification is reported, never the winner;
#   2. tune:  conv.igemm.wgmma's perf configs on the first $TUNE_LAYERS layers of each direction (exhaustive up to 24 configs,
#             else sampled within $TUNE_BUDGET_S s per problem), best config -> perf db;
#   3. find again (the tuned layers): now each solver's tuned config is measured beside its default;
#   4. db train: the immediate-mode model from the records;
#   5. db eval-immediate --holdout $HOLDOUT: on held-out problems, how often the model's pick is
#      within 10% of Find's best, and the pick time in microseconds;
#   6. run: immediate mode's pick (find-db, then model) for one problem, run and verified; then the
#      pick of HIPRIM_FIND_MODE=fast (the model alone, nothing run).
# Writes into $OUT: find_db.sqlite (the user db), find1_<dir>.json, tune_<dir>.json, find2_<dir>.json,
# eval.json, run.json, one .log per step, and summary.json (every step's exit status and time).
# Exit status: the largest of the steps' (124: a step timed out).
# Usage: OUT=/some/dir scripts/device_find.sh   (BIN=devbin LAYERS=3 TUNE_LAYERS=$LAYERS BATCH=32 TUNE_BUDGET_S=4
#        HOLDOUT=0.3 SOLVER=globs; step limits in seconds per direction: FIND_S=45 TUNE_S=50 FIND2_S=40)
set -u
BIN=${BIN:-devbin}
OUT=${OUT:-out}
LAYERS=${LAYERS:-3}
TUNE_LAYERS=${TUNE_LAYERS:-$LAYERS}
FIND_S=${FIND_S:-45}
TUNE_S=${TUNE_S:-50}
FIND2_S=${FIND2_S:-40}
BATCH=${BATCH:-32}
TUNE_BUDGET_S=${TUNE_BUDGET_S:-4}
HOLDOUT=${HOLDOUT:-0.3}
# Every GPU conv solver but conv.naive, whose minutes per batch-32 layer would take the whole run.
SOLVER=${SOLVER:-conv.igemm.*,conv.gemm.*,conv.direct.*}
mkdir -p "$OUT"
export HIPRIM_USER_DB="$OUT/find_db.sqlite"
export HIPRIM_SYSTEM_DB=  # none (not an installed one)
unset HIPRIM_SOLVER HIPRIM_DISABLE_SOLVERS HIPRIM_CONV_CONFIG HIPRIM_FIND_MODE
rm -f "$HIPRIM_USER_DB" "$HIPRIM_USER_DB-wal" "$HIPRIM_USER_DB-shm"
SUITE=(--suite resnet50 --batch "$BATCH" --dtype bf16 --layout nhwc --limit "$LAYERS")
TUNED=(--suite resnet50 --batch "$BATCH" --dtype bf16 --layout nhwc --limit "$TUNE_LAYERS")
declare -A rc secs
STEPS=()

if [ ! -x "$BIN/hiprim" ]; then
  echo "device_find: $BIN/hiprim not found or not executable (build it: scripts/device_build.sh hiprim)" >&2
  exit 2
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1

# step NAME LIMIT_S CMD...: runs CMD under timeout into $OUT/NAME.log, prints its last lines and status.
step() {
  local name=$1 limit=$2
  shift 2
  STEPS+=("$name")
  echo "== $name (limit ${limit}s): $*"
  local t0=$SECONDS
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  rc[$name]=$?
  secs[$name]=$((SECONDS - t0))
  grep -vE '^tune \[' "$OUT/$name.log" | tail -n 25
  echo "-- $name: exit ${rc[$name]} in ${secs[$name]}s$([ "${rc[$name]}" = 124 ] && echo ' (TIMED OUT)')"
}

# The suite lists every fwd layer before the bwd ones: one call per direction, its first $LAYERS layers.
for d in fwd bwd-data bwd-weights; do
  step "find1_$d" "$FIND_S" "$BIN/hiprim" find "${SUITE[@]}" --dir "$d" --solver "$SOLVER" --time-budget-ms 50 --report "$OUT/find1_$d.json"
done
for d in fwd bwd-data bwd-weights; do
  step "tune_$d" "$TUNE_S" "$BIN/hiprim" tune "${TUNED[@]}" --dir "$d" --solver conv.igemm.wgmma --budget-s "$TUNE_BUDGET_S" --time-budget-ms 20 \
    --no-determinism-check --report "$OUT/tune_$d.json"
done
for d in fwd bwd-data bwd-weights; do
  step "find2_$d" "$FIND2_S" "$BIN/hiprim" find "${TUNED[@]}" --dir "$d" --solver "$SOLVER" --time-budget-ms 50 --report "$OUT/find2_$d.json"
done
step train 15 "$BIN/hiprim" db train
step eval 15 "$BIN/hiprim" db eval-immediate --holdout "$HOLDOUT" --db "$HIPRIM_USER_DB" --report "$OUT/eval.json"
FIRST=$(grep -m1 '^find conv ' "$OUT/find1_fwd.log" | sed 's/^find //')
if [ -n "$FIRST" ]; then
  step run 30 "$BIN/hiprim" run "$FIRST" --report "$OUT/run.json"
  step run_fast 15 env HIPRIM_FIND_MODE=fast "$BIN/hiprim" run "$FIRST" --choice-only
else
  echo "== run: skipped (find1 printed no problem)"
fi
step show 10 "$BIN/hiprim" db show --db "$HIPRIM_USER_DB"

{
  echo "{"
  echo "  \"script\": \"scripts/device_find.sh\", \"layers\": $LAYERS, \"tune_layers\": $TUNE_LAYERS, \"batch\": $BATCH, \"tune_budget_s\": $TUNE_BUDGET_S, \"holdout\": $HOLDOUT,"
  echo "  \"steps\": {"
  sep=""
  for s in "${STEPS[@]}"; do
    printf '%s    "%s": {"exit": %s, "seconds": %s}' "$sep" "$s" "${rc[$s]}" "${secs[$s]}"
    sep=$',\n'
  done
  printf '\n  }\n}\n'
} > "$OUT/summary.json"
echo "== summary ($OUT/summary.json)"
for s in "${STEPS[@]}"; do printf '  %-18s exit %-3s %4ss\n' "$s" "${rc[$s]}" "${secs[$s]}"; done
grep -h 'within 10%' "$OUT/eval.log" 2>/dev/null
worst=0
for s in "${STEPS[@]}"; do [ "${rc[$s]}" -gt "$worst" ] && worst=${rc[$s]}; done
exit "$worst"
