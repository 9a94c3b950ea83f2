#!/usr/bin/env bash
# Issue 15's shipped H200 system db, made on a GPU machine from the repository root with the hiprim
# binary in $BIN (scripts/device_build.sh hiprim). One call can do part of it: the db travels between
# calls (DB_IN: a db from an earlier call, copied to $OUT/tuning.db and continued). Steps, in order:
#   tune:   for each "solver@dtype:layout" of $TUNE, hiprim tune over the resnet50 suite (batch
#           $BATCH, all 23 layers, one step per direction): exhaustive up to 24 configs, else sampled
#           within $TUNE_BUDGET_S s per problem; every config verified before it is timed; the best
#           goes to the perf db with the default's time (tuned vs default per layer in tune_*.json);
#   find:   for each "dtype:layout" of $FIND, hiprim find over the same suite, every GPU conv solver
#           but conv.naive ($SOLVER), each verified in full against the CPU reference and timed by
#           graph replay, its tuned config (when the perf db has one) beside its default;
#   corpus: CORPUS=1: hiprim find over the fuzz corpus's problems (bench/suites/fuzz_corpus.txt, every
#           solver: they are tiny);
#   final:  FINAL=1: db train (the immediate-mode model), db check, db eval-immediate --holdout
#           $HOLDOUT --measure (each held-out pick run as immediate mode runs it, Find's best beside
#           it, both verified and timed in that process), and immediate mode through the db as a read-only system db (a fresh empty user
#           db): hiprim run on one problem per combo of $FIND (verified), HIPRIM_FIND_MODE=fast picks.
# Writes into $OUT: tuning.db (+ -wal while open), tune_*.json, find_*.json, eval.json, run_*.json,
# a .log per step, steps.txt (each step's exit status and seconds). Exit: the largest step status.
# Usage: OUT=dir TUNE="conv.igemm.wgmma@bf16:nhwc" FIND="bf16:nhwc fp16:nhwc" scripts/device_system_db.sh
set -u
BIN=${BIN:-devbin}
OUT=${OUT:-out}
BATCH=${BATCH:-32}
TUNE=${TUNE:-}
FIND=${FIND:-}
CORPUS=${CORPUS:-0}
FINAL=${FINAL:-0}
TUNE_BUDGET_S=${TUNE_BUDGET_S:-2}
TUNE_S=${TUNE_S:-150}
FIND_S=${FIND_S:-120}
HOLDOUT=${HOLDOUT:-0.3}
SOLVER=${SOLVER:-conv.igemm.*,conv.gemm.*,conv.direct.*}
mkdir -p "$OUT"
DB="$OUT/tuning.db"
export HIPRIM_USER_DB="$DB"
export HIPRIM_SYSTEM_DB=  # none (not an installed one)
unset HIPRIM_SOLVER HIPRIM_DISABLE_SOLVERS HIPRIM_CONV_CONFIG HIPRIM_FIND_MODE
if [ ! -x "$BIN/hiprim" ]; then
  echo "device_system_db: $BIN/hiprim not found (build it: scripts/device_build.sh hiprim)" >&2
  exit 2
fi
[ "${DB_IN:-}" = "$DB" ] && { echo "device_system_db: DB_IN must not be \$OUT/tuning.db" >&2; exit 2; }
rm -f "$DB" "$DB-wal" "$DB-shm"
if [ -n "${DB_IN:-}" ]; then  # with its -wal, if the last writer was killed before checkpointing
  cp "$DB_IN" "$DB" || exit 2
  [ -s "$DB_IN-wal" ] && { cp "$DB_IN-wal" "$DB-wal" || exit 2; }
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1
"$BIN/hiprim" --version 2>&1 | head -1
worst=0
step() {  # step NAME LIMIT_S CMD...: CMD under timeout into $OUT/NAME.log; status and time to steps.txt
  local name=$1 limit=$2 t0=$SECONDS
  shift 2
  echo "== $name ($(date -u +%T), limit ${limit}s): $*"
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  grep -E '^(find|tune|tuned|immediate|report|whole)|within 10%|REJECTED|error' "$OUT/$name.log" | grep -vE '^(find conv|tune \[)' | tail -n 8
  echo "-- $name: exit $rc in $((SECONDS - t0))s$([ $rc = 124 ] && echo ' (TIMED OUT)')" | tee -a "$OUT/steps.txt"
  [ $rc -gt $worst ] && worst=$rc
  return 0
}
suite() { echo --suite resnet50 --batch "$BATCH" --dtype "${1%%:*}" --layout "${1##*:}"; }
for t in $TUNE; do
  solver=${t%%@*} combo=${t##*@}
  for d in fwd bwd-data bwd-weights; do
    step "tune_${combo/:/_}_$d" "$TUNE_S" "$BIN/hiprim" tune $(suite "$combo") --dir "$d" --solver "$solver" --budget-s "$TUNE_BUDGET_S" \
      --time-budget-ms 20 --no-determinism-check --report "$OUT/tune_${combo/:/_}_$d.json"
  done
done
for combo in $FIND; do
  for d in fwd bwd-data bwd-weights; do
    step "find_${combo/:/_}_$d" "$FIND_S" "$BIN/hiprim" find $(suite "$combo") --dir "$d" --solver "$SOLVER" --time-budget-ms 30 \
      --report "$OUT/find_${combo/:/_}_$d.json"
  done
done
if [ "$CORPUS" = 1 ]; then
  step find_corpus 120 "$BIN/hiprim" find --suite bench/suites/fuzz_corpus.txt --solver '*' --time-budget-ms 30 --report "$OUT/find_corpus.json"
fi
if [ "$FINAL" = 1 ]; then
  step train 60 "$BIN/hiprim" db train --db "$DB"
  step check 60 "$BIN/hiprim" db check --db "$DB"
  step eval "${EVAL_S:-300}" "$BIN/hiprim" db eval-immediate --holdout "$HOLDOUT" --db "$DB" --measure --time-budget-ms 30 --report "$OUT/eval.json"
  # The db as users get it: a read-only system db beside an empty user db.
  export HIPRIM_SYSTEM_DB="$DB" HIPRIM_USER_DB="$OUT/empty_user.db"
  for combo in $FIND; do
    p="conv fwd ${combo%%:*} ${combo##*:} n$BATCH c256 k256 in14x14 f3x3 pad1x1"
    step "run_${combo/:/_}" 60 "$BIN/hiprim" run "$p" --report "$OUT/run_${combo/:/_}.json"
    step "fast_${combo/:/_}" 30 env HIPRIM_FIND_MODE=fast "$BIN/hiprim" run "conv bwd-data ${combo%%:*} ${combo##*:} n$BATCH c512 k512 in7x7 f3x3 pad1x1" --choice-only
  done
  rm -f "$OUT/empty_user.db"*
fi
echo "== steps"; cat "$OUT/steps.txt"
exit "$worst"
