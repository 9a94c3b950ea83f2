#!/usr/bin/env bash
# The same-bench check of a redesign on the GPU machine: two builds (BASE, NEW: directories holding a
# hiprim binary, or a .tar.xz of one) run the same small `hiprim bench` commands, and their reports
# must agree in all that the clock does not decide (scripts/same_bench_reports.py: the cases'
# (problem, solver) list in order, statuses and verdicts, the peer's status, settings, summary, the
# JSON key structure; times, rates, "best", the peer's autotuned plan, ceilings' values, clocks,
# machine and git fields are ignored). Runs, each on both builds:
#   conv:       --suite resnet50 --batch 2 --combo bf16:nhwc (23 layers x 3 directions), the cuDNN peer
#               (at most 4 plans a problem), verify full, the copy and bf16 GEMM ceilings, 2 repeats.
#   conv_quick: three --problem lines, verify quick, no peer, 2 repeats.
#   ops:        --op all --batch 2 --combo bf16:nhwc,fp32:nchw (resnet50_ops), verify full, the copy
#               ceiling, 2 repeats.
#   ops_quick:  --op bnorm,relu,max --batch 2 --combo fp16:nhwc, verify quick, 2 repeats.
# Writes into $OUT each run's <run>_<base|new>.json and .log, and same_bench.txt (the comparisons);
# exit 0 when every run agrees, 1 when one differs, 2 when a binary or report is missing.
# Usage: OUT=... BASE=devbase NEW=devbin scripts/device_same_bench.sh
#   LIMIT_S: seconds per bench command (default 300); RUNS: the runs to make (default all four).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the output directory}" "${BASE:?set BASE to the base build directory}" "${NEW:?set NEW to the new build directory}"
mkdir -p "$OUT"
limit=${LIMIT_S:-300}
runs=${RUNS:-conv conv_quick ops ops_quick}
fast=(--reps 5 --replays 2 --budget-ms 20 --host-calls 5 --repeats 2)

args_of() {
  case "$1" in
    conv) echo --suite resnet50 --batch 2 --combo bf16:nhwc --verify full --peer cudnn --peer-max-plans 4 ;;
    conv_quick) echo --verify quick --peer none --no-ceilings ;;
    ops) echo --op all --batch 2 --combo bf16:nhwc,fp32:nchw --verify full ;;
    ops_quick) echo --op bnorm,relu,max --batch 2 --combo fp16:nhwc --verify quick --no-ceilings ;;
    *) echo "device_same_bench: unknown run '$1' (conv, conv_quick, ops, ops_quick)" >&2; return 2 ;;
  esac
}
quick_problems=(--problem "conv fwd bf16 nhwc n2 c64 k64 in28x28 f3x3 pad1x1"
                --problem "conv bwd-data fp16 nchw n2 c32 k64 in14x14 f1x1"
                --problem "conv bwd-weights fp32 nhwc n2 c16 k32 in14x14 f3x3 pad1x1 str2x2")

for run in $runs; do args_of "$run" > /dev/null || exit 2; done
for side in BASE NEW; do
  dir=${!side}
  for a in "$dir"/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C "$dir"; done
  if [ ! -x "$dir/hiprim" ]; then
    echo "device_same_bench: $side=$dir holds no executable hiprim" >&2
    exit 2
  fi
done

rc=0
: > "$OUT/same_bench.txt"
for run in $runs; do
  read -r -a args <<< "$(args_of "$run")"
  extra=()
  [ "$run" = conv_quick ] && extra=("${quick_problems[@]}")
  for side in BASE NEW; do
    dir=${!side}
    name=$(echo "$side" | tr 'A-Z' 'a-z')
    rm -f "$OUT/${run}_$name.json"
    start=$(date +%s)
    timeout "$limit" "$dir/hiprim" bench "${args[@]}" "${extra[@]}" "${fast[@]}" --report "$OUT/${run}_$name.json" \
      > "$OUT/${run}_$name.log" 2>&1
    code=$?
    note=""
    [ $code -eq 124 ] && note=" (timed out after $limit s: raise LIMIT_S)"
    echo "$run $side: exit $code$note, $(( $(date +%s) - start )) s; $(grep -m1 '^cases:' "$OUT/${run}_$name.log" || tail -n 1 "$OUT/${run}_$name.log")"
  done
  python3 scripts/same_bench_reports.py "$OUT/${run}_base.json" "$OUT/${run}_new.json" --name="$run" | tee -a "$OUT/same_bench.txt"
  r=${PIPESTATUS[0]}
  [ $r -gt $rc ] && rc=$r
done
echo "device_same_bench: $([ $rc -eq 0 ] && echo "every run agrees" || echo "exit $rc: see $OUT/same_bench.txt")"
exit $rc
