#!/usr/bin/env bash
# The H200 check of the memory-bound op kernels (issue 13), run on the GPU machine from the
# repository root, with devbin/ made by
#   scripts/device_build.sh hiprim test_ops_speed_sweep
# Steps (about 2.5 minutes in all; each has a timeout):
#   1. hiprim check --require-gpu --suite smoke_ops,ops over every GPU op solver (the op runner against the CPU
#      reference, exact/bounded tiers, determinism re-run) -> $OUT/ops_speed_check.json
#   1b. the same for a few problems too large for the on-chip paths (verified in full at that size)
#   2. compute-sanitizer racecheck + memcheck over smoke_ops for the solvers with shared-memory
#      trees, grid barriers or caches (bnorm.spatial.persistent, softmax.team_row/.smem_row,
#      reduce.split, lrn.across.tile)
#   3. test_ops_speed_sweep (tests/gpu/ops_speed_sweep.cpp), one process per dtype x layout, most
#      important combos first, each within its share of SWEEP_BUDGET_S: copy ceilings (memcpy and the
#      streaming loop's unroll x block variants), then every solver and variant on the large case
#      of each family (checked at batch 2, all outputs written at full size, graph-replay time,
#      GB/s of OpProblem::bytes(), % of the memcpy bandwidth of the same process)
#      -> $OUT/ops_sweep_<dtype>_<layout>.json
#   4. the kernels that spill (from reports/cpu/ops_ptxas.txt), then the table last: per case the
#      fastest passed solver, its GB/s and % of copy, and the other solvers' GB/s.
# The register/spill report of these kernels is made at build time, not here: reports/cpu/ops_ptxas.txt
# (scripts/ops_ptxas_report.sh).
# Files in $OUT: ops_speed_check.json, ops_speed.log, ops_sweep_all.json.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-devbin}
OUT=${OUT:-out/device_ops_speed}
SWEEP_BUDGET_S=${SWEEP_BUDGET_S:-45}
mkdir -p "$OUT"
log="$OUT/ops_speed.log"
: > "$log"
say() { echo "== $*" | tee -a "$log"; }
status=0
# device_build.sh packs the test_* binaries into devbin/tests.tar.xz when devbin grows past 48 MiB.
if [ ! -x "$BIN/test_ops_speed_sweep" ] && [ -f "$BIN/tests.tar.xz" ]; then
  tar -xJf "$BIN/tests.tar.xz" -C "$BIN" test_ops_speed_sweep 2>/dev/null || tar -xJf "$BIN/tests.tar.xz" -C "$BIN"
fi
for b in hiprim test_ops_speed_sweep; do
  if [ ! -x "$BIN/$b" ]; then
    echo "device_ops_speed: $BIN/$b is missing: run scripts/device_build.sh hiprim test_ops_speed_sweep and copy devbin here" >&2
    exit 2
  fi
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$log" 2>&1
start=$(date +%s)

SOLVERS=$("$BIN/hiprim" list ops --globs)  # every op's GPU solvers: bnorm.*,activ.*,...
say "1. conformance: smoke_ops + ops over $SOLVERS"
timeout 45 "$BIN/hiprim" check --require-gpu --suite smoke_ops,ops --solver "$SOLVERS" --report "$OUT/ops_speed_check.json" > /tmp/ops_speed_check.log 2>&1
rc=$?
[ $rc -ne 0 ] && status=1
say "hiprim check rc=$rc ($(( $(date +%s) - start )) s)"
grep -E '^(solver|total|[a-z]+\.[a-z_0-9.]+ +[0-9])' /tmp/ops_speed_check.log | tee -a "$log"
grep -E 'FAILED|failed|error|repro' /tmp/ops_speed_check.log | grep -v '^solver' | head -20 | tee -a "$log"
cat /tmp/ops_speed_check.log >> "$log"

NEW='bnorm.spatial.persistent,softmax.team_row,softmax.smem_row,reduce.split,lrn.across.tile'
# The suites' tensors fit on chip; these do not (bnorm's shared-memory cache overflows, reduce.split
# and softmax.smem_row take their large-grid branches), verified in full at that size.
cat > /tmp/ops_speed_large.txt <<'SUITE'
bnorm fwd-train spatial fp32 nhwc n32 c64 in112x112 eps1e-05 momentum0.1
bnorm bwd spatial bf16 nchw n32 c64 in112x112 eps1e-05
reduce add bf16 nhwc dims32x256x56x56 over0x2x3 nan_ignore
reduce max fp32 nchw dims32x64x56x56 over0x2x3 nan_propagate indices
softmax fwd accurate instance bf16 nchw n16 c100000 in1x1
SUITE
say "1b. full-size checks of the overflow / split paths ($NEW)"
timeout 30 "$BIN/hiprim" check --require-gpu --suite /tmp/ops_speed_large.txt --solver "$NEW" --report /tmp/ops_speed_large.json \
  > /tmp/ops_speed_large.log 2>&1
rc=$?
[ $rc -ne 0 ] && status=1
say "large check rc=$rc"
grep -E '^(solver|total|[a-z]+\.[a-z_0-9.]+ +[0-9])|repro' /tmp/ops_speed_large.log | tee -a "$log"

say "2. compute-sanitizer over smoke_ops, solvers $NEW"
for tool in racecheck memcheck; do
  timeout 15 compute-sanitizer --tool "$tool" --error-exitcode 99 "$BIN/hiprim" check --suite smoke_ops --solver "$NEW" \
    --no-determinism-check --report "/tmp/ops_speed_$tool.json" > "/tmp/ops_speed_$tool.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && status=1
  say "compute-sanitizer $tool rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "/tmp/ops_speed_$tool.log" | tail -1)"
  grep -E '^========= (Error|Race|Invalid)' "/tmp/ops_speed_$tool.log" | sort | uniq -c | head -8 | tee -a "$log"
done

say "3. sweep ($SWEEP_BUDGET_S s over the combos; $(( $(date +%s) - start )) s so far)"
sweep_start=$(date +%s)
combos=("bf16 nhwc" "fp32 nchw" "fp16 nhwc" "bf16 nchw" "fp32 nhwc" "fp16 nchw")
jsons=()
for i in "${!combos[@]}"; do
  set -- ${combos[$i]}
  left=$((SWEEP_BUDGET_S - ($(date +%s) - sweep_start)))
  share=$(( left / (${#combos[@]} - i) ))
  if [ "$share" -lt 4 ]; then
    say "sweep budget spent: $1 $2 not run"
    continue
  fi
  j="/tmp/ops_sweep_$1_$2.json"
  say "sweep $1 $2 (time limit $share s)"
  timeout $((share + 25)) "$BIN/test_ops_speed_sweep" --dtype "$1" --layout "$2" --time-limit "$share" --json "$j" \
    > "/tmp/ops_sweep_$1_$2.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && status=1
  grep -E '^copy|check (failed|error|mistrusted)|unwritten|time limit|test_ops_speed_sweep:' "/tmp/ops_sweep_$1_$2.log" | tee -a "$log"
  say "sweep $1 $2 rc=$rc"
  [ -f "$j" ] && jsons+=("$j")
  cat "/tmp/ops_sweep_$1_$2.log" >> "$log"
done

if [ -f reports/cpu/ops_ptxas.txt ]; then
  say "kernels with spills (reports/cpu/ops_ptxas.txt, made at build time)"
  awk '$2 ~ /\// { split($2, a, "/"); if (a[1] + 0 > 0) print }' reports/cpu/ops_ptxas.txt | head -40 | tee -a "$log"
fi
say "4. summary ($(( $(date +%s) - start )) s)"
python3 - "$OUT/ops_sweep_all.json" "${jsons[@]}" <<'PY' | tee -a "$log"
import json, sys
out, files = sys.argv[1], sys.argv[2:]
runs = [json.load(open(f)) for f in files]
json.dump(runs, open(out, "w"), indent=1)
print("copy ceilings (GB/s, read + written): " + "; ".join(
    f"{r['rows'][0]['dtype'] if r['rows'] else '?'}/{r['rows'][0]['layout'] if r['rows'] else '?'}: memcpy "
    f"{r['copy'][0]['gbps']:.0f}, best loop {max(c['gbps'] for c in r['copy'][1:]):.0f}" for r in runs))
loop = runs[0]["copy"][1:] if runs else []
if loop:
    print("streaming loop copy (unroll x block -> % of memcpy): " + ", ".join(
        f"{c['unroll']}x{c['block']}: {100 * c['gbps'] / runs[0]['copy'][0]['gbps']:.0f}%" for c in loop))
print(f"{'op':8} {'dtype':5} {'lay':5} {'problem':58} {'best solver':30} {'GB/s':>7} {'%copy':>6}  others (GB/s)")
for r in runs:
    by = {}
    for row in r["rows"]:
        by.setdefault(row["problem"], []).append(row)
    for prob, rows in by.items():
        ok = [x for x in rows if x["check"] == "passed" and x["written"] == "all"]
        bad = [x for x in rows if not (x["check"] == "passed" and x["written"] == "all")]
        short = " ".join(t for t in prob.split() if not t.startswith(("eps", "momentum", "alpha", "beta", "k", "seed", "rate")))
        short = short.replace(rows[0]["dtype"] + " ", "").replace(rows[0]["layout"] + " ", "")[:58]
        if ok:
            ok.sort(key=lambda x: x["us"])
            b = ok[0]
            others = ", ".join(f"{x['solver']} {x['gbps']:.0f}" for x in ok[1:])
            print(f"{b['family']:8} {b['dtype']:5} {b['layout']:5} {short:58} {b['solver']:30} {b['gbps']:7.0f} {b['pct_copy']:6.1f}  {others}")
        for x in bad:
            print(f"{x['family']:8} {x['dtype']:5} {x['layout']:5} {short:58} {x['solver']:30} check {x['check']}, written {x['written']}")
PY
echo "device_ops_speed status=$status ($(( $(date +%s) - start )) s; logs: $log)" | tee -a "$log"
exit $status
