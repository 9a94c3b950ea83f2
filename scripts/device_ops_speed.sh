#!/usr/bin/env bash
# The H200 check of the memory-bound op kernels (issue 13), run on the GPU machine from the
# repository root, with devbin/ made by
#   scripts/device_build.sh hiprim test_ops_speed_sweep
# The whole run fits TOTAL_BUDGET_S (default 230 s: one device call of 240 s); each step has a timeout:
#   1. hiprim check --require-gpu --suite smoke_ops,ops over every GPU op solver (the op runner against the CPU
#      reference, exact/bounded tiers, determinism re-run) -> $OUT/ops_speed_check.json
#   1b. the same for a few problems too large for the on-chip paths (verified in full at that size)
#   2. compute-sanitizer racecheck + memcheck over smoke_ops for the solvers with shared-memory
#      trees, grid barriers or caches (bnorm.spatial.persistent, softmax.team_row/.smem_row,
#      reduce.split, lrn.across.tile) and the newest streaming kernels (bnorm.spatial.infer_stream)
#   3. test_ops_speed_sweep (tests/gpu/ops_speed_sweep.cpp) over SWEEP_FAMILIES (default
#      bnorm,pool,activ,tensorop,lrn: issue 13's), one process per dtype x layout, most important
#      combos first, each within its share of what TOTAL_BUDGET_S leaves after TORCH_BUDGET_S:
#      copy ceilings (memcpy, the streaming loop's unroll x block variants and one-pass copies), then every solver
#      and variant on the large case of each family (checked at batch 2, all outputs written at
#      full size, graph-replay time, GB/s of OpProblem::bytes(), % of the memcpy bandwidth of the
#      same process) -> $OUT/ops_sweep_<dtype>_<layout>.json
#   3b. PyTorch on the same problems (scripts/torch_crosscheck.py --problems, CUDA-graph replay over
#      3x L2 of input sets), within TORCH_BUDGET_S (default 40 s; 0 skips it; skipped without torch)
#      -> $OUT/torch_ops_sweep.json
#   4. the kernels that spill (from reports/cpu/ops_ptxas.txt), then the table last, per family:
#      per case the fastest passed solver, its GB/s, % of memcpy and % of the best copy kernel
#      (the stronger ceiling), PyTorch's time and GB/s and hiprim time / PyTorch time, then the
#      other solvers' GB/s.
# The register/spill report of these kernels is made at build time, not here: reports/cpu/ops_ptxas.txt
# (scripts/ops_ptxas_report.sh).
# Files in $OUT: ops_speed_check.json, ops_speed.log, ops_sweep_all.json, torch_ops_sweep.json.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-devbin}
OUT=${OUT:-out/device_ops_speed}
TOTAL_BUDGET_S=${TOTAL_BUDGET_S:-230}
TORCH_BUDGET_S=${TORCH_BUDGET_S:-40}
SWEEP_FAMILIES=${SWEEP_FAMILIES:-bnorm,pool,activ,tensorop,lrn}
start=$(date +%s)  # TOTAL_BUDGET_S counts from here
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

SOLVERS=$("$BIN/hiprim" list ops --globs)  # every op's GPU solvers: bnorm.*,activ.*,...
say "1. conformance: smoke_ops + ops over $SOLVERS"
timeout 45 "$BIN/hiprim" check --require-gpu --suite smoke_ops,ops --solver "$SOLVERS" --report "$OUT/ops_speed_check.json" > /tmp/ops_speed_check.log 2>&1
rc=$?
[ $rc -ne 0 ] && status=1
say "hiprim check rc=$rc ($(( $(date +%s) - start )) s)"
grep -E '^(solver|total|[a-z]+\.[a-z_0-9.]+ +[0-9])' /tmp/ops_speed_check.log | tee -a "$log"
grep -E 'FAILED|failed|error|repro' /tmp/ops_speed_check.log | grep -v '^solver' | head -20 | tee -a "$log"
cat /tmp/ops_speed_check.log >> "$log"

NEW='bnorm.spatial.persistent,bnorm.spatial.infer_stream,softmax.team_row,softmax.smem_row,reduce.split,lrn.across.tile,pool.global,bnorm.spatial.tile,pool.nchw.band'
# The suites' tensors fit on chip; these do not (bnorm's shared-memory cache overflows, reduce.split
# and softmax.smem_row take their large-grid branches; bnorm.spatial.infer_stream's per-pack
# channels-first and channel-stationary channels-last paths), verified in full at that size.
cat > /tmp/ops_speed_large.txt <<'SUITE'
bnorm fwd-train spatial fp32 nhwc n32 c64 in112x112 eps1e-05 momentum0.1
bnorm bwd spatial bf16 nchw n32 c64 in112x112 eps1e-05
reduce add bf16 nhwc dims32x256x56x56 over0x2x3 nan_ignore
reduce max fp32 nchw dims32x64x56x56 over0x2x3 nan_propagate indices
softmax fwd accurate instance bf16 nchw n16 c100000 in1x1
bnorm fwd-infer spatial fp16 nchw n32 c64 in56x56 eps1e-05
bnorm fwd-infer spatial bf16 nhwc n32 c96 in28x28 eps1e-05
pool fwd avg_incl bf16 nhwc n32 c2048 in7x7 win7x7 pad0x0 str1x1
pool fwd max fp32 nchw n32 c2048 in7x7 win7x7 pad0x0 str1x1
pool bwd max bf16 nchw n32 c64 in112x112 win3x3 pad1x1 str2x2
pool fwd avg_excl fp16 nchw n32 c64 in112x112 win3x3 pad1x1 str1x1
bnorm bwd spatial bf16 nhwc n32 c256 in14x14 eps1e-05
bnorm fwd-train spatial fp32 nhwc n32 c1024 in14x14 eps1e-05 momentum0.1
SUITE
say "1b. full-size checks of the overflow / split paths ($NEW)"
timeout 60 "$BIN/hiprim" check --require-gpu --suite /tmp/ops_speed_large.txt --solver "$NEW" --report /tmp/ops_speed_large.json \
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

# The sweep gets what the total budget leaves after PyTorch's share and a margin for the summary.
SWEEP_BUDGET_S=$((TOTAL_BUDGET_S - ($(date +%s) - start) - TORCH_BUDGET_S - 25))
[ "$SWEEP_BUDGET_S" -lt 20 ] && SWEEP_BUDGET_S=20
say "3. sweep of $SWEEP_FAMILIES ($SWEEP_BUDGET_S s over the combos; $(( $(date +%s) - start )) s so far)"
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
  timeout $((share + 15)) "$BIN/test_ops_speed_sweep" --dtype "$1" --layout "$2" --family "$SWEEP_FAMILIES" --time-limit "$share" \
    --json "$j" > "/tmp/ops_sweep_$1_$2.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && status=1
  grep -E '^copy|check (failed|error|mistrusted)|unwritten|time limit|test_ops_speed_sweep:' "/tmp/ops_sweep_$1_$2.log" | tee -a "$log"
  say "sweep $1 $2 rc=$rc"
  [ -f "$j" ] && jsons+=("$j")
  cat "/tmp/ops_sweep_$1_$2.log" >> "$log"
done

torch_json="$OUT/torch_ops_sweep.json"
if [ "$TORCH_BUDGET_S" -gt 0 ] && [ ${#jsons[@]} -gt 0 ] && python3 -c 'import torch' 2>/dev/null; then
  python3 - "${jsons[@]}" > /tmp/ops_sweep_problems.txt <<'PY'
import json, sys
seen = []
for f in sys.argv[1:]:
    for row in json.load(open(f))["rows"]:
        if row["check"] == "passed" and row["problem"] not in seen:
            seen.append(row["problem"])
print("\n".join(seen))
PY
  say "3b. PyTorch on the $(wc -l < /tmp/ops_sweep_problems.txt) timed problems (budget $TORCH_BUDGET_S s)"
  timeout $((TORCH_BUDGET_S + 15)) python3 scripts/torch_crosscheck.py --problems /tmp/ops_sweep_problems.txt \
    --time-budget "$TORCH_BUDGET_S" --replays 5 --target-ms 2 --out "$torch_json" > /tmp/ops_torch.log 2>&1
  say "torch rc=$? ($(grep -c ' ms, host' /tmp/ops_torch.log) problems timed)"
  tail -3 /tmp/ops_torch.log | tee -a "$log"
else
  say "3b. PyTorch skipped (TORCH_BUDGET_S=$TORCH_BUDGET_S, ${#jsons[@]} sweep reports, torch importable: $(python3 -c 'import torch' 2>/dev/null && echo yes || echo no))"
fi

if [ -f reports/cpu/ops_ptxas.txt ]; then
  say "kernels with spills (reports/cpu/ops_ptxas.txt, made at build time)"
  awk '$2 ~ /\// { split($2, a, "/"); if (a[1] + 0 > 0) print }' reports/cpu/ops_ptxas.txt | head -40 | tee -a "$log"
fi
say "4. summary ($(( $(date +%s) - start )) s)"
python3 - "$OUT/ops_sweep_all.json" "$torch_json" "${jsons[@]}" <<'PY' | tee -a "$log"
import json, os, sys
out, torch_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = [json.load(open(f)) for f in files]
json.dump(runs, open(out, "w"), indent=1)
torch = {}
if os.path.exists(torch_path):
    for r in json.load(open(torch_path)).get("rows", []):
        if r.get("torch_ms"):
            torch[r["problem"]] = r
print("copy ceilings (GB/s, read + written): " + "; ".join(
    f"{r['rows'][0]['dtype'] if r['rows'] else '?'}/{r['rows'][0]['layout'] if r['rows'] else '?'}: memcpy "
    f"{r['copy'][0]['gbps']:.0f}, best loop {max(c['gbps'] for c in r['copy'][1:]):.0f}" for r in runs))
loop = runs[0]["copy"][1:] if runs else []
if loop:
    print("copy kernels (method unroll x block -> % of memcpy): " + ", ".join(
        f"{c['method']} {c['unroll']}x{c['block']}: {100 * c['gbps'] / runs[0]['copy'][0]['gbps']:.0f}%" for c in loop))
print("per case: the fastest passed solver; %mcp = % of cudaMemcpy, %loop = % of the best copy kernel (streaming loop or one pass) of the same"
      " process; torch = PyTorch's time (us) and GB/s of the same bytes; x = hiprim / torch time")
table = {}
for r in runs:
    best_loop = max(c["gbps"] for c in r["copy"][1:])
    by = {}
    for row in r["rows"]:
        by.setdefault(row["problem"], []).append(row)
    for prob, rows in by.items():
        table.setdefault(rows[0]["family"], []).append((prob, rows, best_loop))
for family in sorted(table, key=lambda f: ["bnorm", "pool", "activ", "tensorop", "lrn"].index(f) if f in
                     ["bnorm", "pool", "activ", "tensorop", "lrn"] else 9):
    print(f"-- {family}")
    print(f"{'dtype':5} {'lay':5} {'problem':46} {'best solver':30} {'us':>8} {'GB/s':>6} {'%mcp':>5} {'%loop':>5} "
          f"{'torch us':>8} {'GB/s':>6} {'x':>5}  others (GB/s)")
    for prob, rows, best_loop in table[family]:
        ok = sorted([x for x in rows if x["check"] == "passed" and x["written"] == "all"], key=lambda x: x["us"])
        bad = [x for x in rows if not (x["check"] == "passed" and x["written"] == "all")]
        short = " ".join(t for t in prob.split() if not t.startswith(("eps", "momentum", "alpha", "beta", "k", "seed", "rate")))
        short = short.replace(rows[0]["dtype"] + " ", "").replace(rows[0]["layout"] + " ", "")[:46]
        if ok:
            b = ok[0]
            t = torch.get(prob)
            tcol = f"{'-':>8} {'-':>6} {'-':>5}"
            if t:
                bytes_ = b["gbps"] * b["us"] * 1e3
                tus = t["torch_ms"] * 1e3
                tcol = f"{tus:8.2f} {bytes_ / (tus * 1e3):6.0f} {b['us'] / tus:5.2f}"
            others = ", ".join(f"{x['solver']} {x['gbps']:.0f}" for x in ok[1:])
            print(f"{b['dtype']:5} {b['layout']:5} {short:46} {b['solver']:30} {b['us']:8.2f} {b['gbps']:6.0f} "
                  f"{b['pct_copy']:5.1f} {100 * b['gbps'] / best_loop:5.1f} {tcol}  {others}")
        for x in bad:
            print(f"{x['dtype']:5} {x['layout']:5} {short:46} {x['solver']:30} check {x['check']}, written {x['written']}")
PY
echo "device_ops_speed status=$status ($(( $(date +%s) - start )) s; logs: $log)" | tee -a "$log"
exit $status
