#!/usr/bin/env bash
# One GPU-machine call over the memory-bound op kernels (issue 13), from the repository root with
# devbin/ made by
#   scripts/device_build.sh hiprim test_ops_speed_sweep test_gpu_ops_pool_lrn_tensorop_reduce test_gpu_ops_bnorm_activ_softmax_dropout
# Steps (each with its own time limit; every timed output is verified in full first):
#   1. device_ops_speed.sh (TOTAL_BUDGET_S, default 330; SWEEP_FAMILIES default: every family):
#      conformance over every GPU op solver, the full-size checks, the sanitizers, the sweep of
#      every solver in all six dtype x layout combinations and PyTorch on the same problems
#   2. the op GPU tests (test_gpu_ops_*, not the host emulations)
#   3. (WINOGRAD=1; WINO_PARTS, default check,fuzz,bench; also corpus: every solver on fuzz/corpus) conv.winograd.*: hiprim check over smoke + edge + resnet50 (batch 2) fp32, both layouts
#      (judged by their derived bound), a GPU fuzz campaign (WINO_FUZZ_S, special values included), then bench/suites/winograd_fp32.txt against conv.igemm.simt and
#      cuDNN's best fp32 plan (transforms allowed), every timed output verified in full (WINO_BENCH_S limit);
#      WINO_PARTS ncu: each phase of a solve under ncu (WINO_NCU: "problem|solver|config;..."); sanitize: memcheck and
#      racecheck over smoke; the same parts for other solvers (conv.fft.*): WINO_SUITE_FILE (bench, tune), WINO_FUZZ_SOLVERS; tune: hiprim tune --no-record over the suite's lines (WINO_SUITE_FILTER, WINO_TUNE_SOLVERS, WINO_TUNE_S); WINO_CHECK_SOLVERS (check, sanitize; default conv.winograd.*); WINO_SUITE_FILTER (bench lines), WINO_BENCH_SOLVERS
#   3b. (OPS_BENCH=1) hiprim bench --op all --suite resnet50_ops in all six combinations or OPS_COMBOS
#      (OPS_BENCH_S limit, default 380: s23's six combinations took 0.73 s a problem, 414 of 462 in 300 s)
#      and PyTorch on the same strings (OPS_TORCH_S; OPS_TORCH_FILTER a regex), joined: the count-weighted
#      totals per op family. All six in one call: OPS_SPEED=0 OPS_BENCH=1 OPS_TORCH_S=130 FUZZ_T=0 (about 540 s)
#   3c. (OPS_TUNE=1) hiprim tune --no-record of the elementwise solvers' configs on ResNet-50's ReLU / add lines in
#      OPS_TUNE_COMBOS, and PyTorch on the same strings (joined.txt)
#   4. device_fuzz_ops.sh: a GPU fuzz campaign of every op (FUZZ_T seconds per op, default 8; 0 skips it)
# Everything lands in $OUT/all.tgz; $OUT/ops_speed.log is the sweep's table (the reply's tail).
set -u
cd "$(dirname "$0")/.."
: "${OUT:?}"
for a in devbin/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C devbin && rm -f "$a"; done
W=$(mktemp -d /tmp/ops_round.XXXXXX)
start=$(date +%s)
devbin/hiprim --version > "$W/build_version.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$W/nvidia_smi.txt" 2>&1
pack() { ( cd "$W" && tar -czf "$OUT/all.tgz" . ); }

if [ "${OPS_SPEED:-1}" = 1 ]; then  # OPS_SPEED=0 skips steps 1 and 2 (no op kernel changed since their last run)
echo "== 1. device_ops_speed.sh"
OUT="$W/speed" TOTAL_BUDGET_S="${TOTAL_BUDGET_S:-330}" TORCH_BUDGET_S="${TORCH_BUDGET_S:-60}" \
  SWEEP_FAMILIES="${SWEEP_FAMILIES:-bnorm,pool,activ,tensorop,lrn,softmax,dropout,reduce}" scripts/device_ops_speed.sh > "$W/speed.out" 2>&1
echo "device_ops_speed rc=$? ($(( $(date +%s) - start )) s)"
pack

echo "== 2. op GPU tests"
for t in devbin/test_gpu_ops*; do
  [ -x "$t" ] || continue
  case "$t" in *_emu) continue ;; esac
  timeout 90 "$t" --gtest_brief=1 > "$W/$(basename "$t").log" 2>&1
  echo "$(basename "$t") rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$W/$(basename "$t").log" | tr '\n' ' ')"
done
pack
fi

if [ "${WINOGRAD:-0}" = 1 ]; then
  echo "== 3. winograd ($(( $(date +%s) - start )) s)"
  mkdir -p "$W/winograd"
  parts=",${WINO_PARTS:-check,fuzz,bench},"
  if [[ $parts == *,check,* ]]; then
    timeout 60 devbin/hiprim check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp32 --layout nchw,nhwc \
      --solver "${WINO_CHECK_SOLVERS:-conv.winograd.*}" --report "$W/winograd/conformance_winograd.json" > "$W/winograd/check.log" 2>&1
    echo "winograd check rc=$?"; grep -E "^conv.winograd|^conv.igemm|^total" "$W/winograd/check.log"
  fi
  if [[ $parts == *,sanitize,* ]]; then  # memcheck and racecheck over the smoke suite (its own lines)
    for tool in memcheck racecheck; do
      timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 99 devbin/hiprim check --suite smoke \
        --solver "${WINO_CHECK_SOLVERS:-conv.winograd.*}" > "$W/winograd/sanitizer_$tool.log" 2>&1
      echo "winograd $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$W/winograd/sanitizer_$tool.log" | tail -1)"
    done
  fi
  if [[ $parts == *,corpus,* ]]; then  # every solver on the committed repro lines (fuzz/corpus)
    timeout 120 devbin/hiprim check --require-gpu --suite corpus --report "$W/winograd/conformance_corpus.json" > "$W/winograd/corpus.log" 2>&1
    echo "corpus check rc=$?"; grep -E "^conv\.|^total" "$W/winograd/corpus.log"
  fi
  if [[ $parts == *,fuzz,* ]]; then
    timeout $(( ${WINO_FUZZ_S:-30} + 60 )) devbin/hiprim fuzz --op conv --solver "${WINO_FUZZ_SOLVERS:-conv.winograd.*}" --time "${WINO_FUZZ_S:-30}" \
      --devices all --jobs-per-device 8 --require-gpu --report "$W/winograd/fuzz_winograd.json" > "$W/winograd/fuzz.log" 2>&1
    echo "winograd fuzz rc=$?"; grep -E "^conv.winograd|^solver|failure|repro" "$W/winograd/fuzz.log" | head -12
  fi
  if [[ $parts == *,tune,* ]]; then  # every config of the suite lines (WINO_SUITE_FILTER) timed, nothing recorded
    grep -E "${WINO_SUITE_FILTER:-.}" "${WINO_SUITE_FILE:-bench/suites/winograd_fp32.txt}" | grep -v '^#' > "$W/winograd/tune_suite.txt"
    timeout "${WINO_TUNE_S:-200}" devbin/hiprim tune --suite "$W/winograd/tune_suite.txt" --solver "${WINO_TUNE_SOLVERS:-conv.winograd.*}" \
      --no-record --time-budget-ms 20 --budget-s 30 --report "$W/winograd/tune_winograd.json" > "$W/winograd/tune.log" 2>&1
    echo "winograd tune rc=$?"; tail -40 "$W/winograd/tune.log" | cut -c1-200
  fi
  if [[ $parts == *,bench,* ]]; then
    # A problem takes 20-30 s (every solver and up to WINO_PEER_PLANS peer plans verified in full on
    # the CPU first), so the kill comes 150 s after the last problem may start.
    # WINO_SUITE_FILTER: a regex of the suite's lines to bench (default: all)
    grep -E "^#|${WINO_SUITE_FILTER:-.}" "${WINO_SUITE_FILE:-bench/suites/winograd_fp32.txt}" > "$W/winograd/suite.txt"
    timeout $(( ${WINO_BENCH_S:-60} + 150 )) devbin/hiprim bench --suite "$W/winograd/suite.txt" --solver "${WINO_BENCH_SOLVERS:-conv.winograd.*,conv.igemm.simt*}" \
      --peer cudnn --peer-transforms --peer-max-plans "${WINO_PEER_PLANS:-8}" --repeats 1 --time-limit "${WINO_BENCH_S:-60}" \
      --report "$W/winograd/perf_winograd.json" > "$W/winograd/bench.log" 2>&1
    echo "winograd bench rc=$?"; tail -30 "$W/winograd/bench.log" | cut -c1-200
  fi
  if [[ $parts == *,ncu,* ]] && command -v ncu > /dev/null; then
    # Each phase of one solve (filter, input transform, GEMM, output transform) under ncu, per WINO_NCU entry
    # "problem|solver|config" (';'-separated): duration, throughput, occupancy.
    IFS=';' read -ra wjobs <<< "${WINO_NCU:-}"
    for i in "${!wjobs[@]}"; do
      IFS='|' read -r prob solver cfg <<< "${wjobs[$i]}"
      f="$W/winograd/ncu_$i.txt"
      echo "== $prob | $solver | $cfg" > "$f"
      HIPRIM_SOLVER="$solver" HIPRIM_CONV_CONFIG="$cfg" timeout 90 ncu --clock-control none -k "regex:wino_|fft|simt_conv" --launch-count 4 \
        --section SpeedOfLight --section Occupancy --section LaunchStats devbin/hiprim run "$prob" --no-determinism-check >> "$f" 2>&1
      echo "rc=$?" >> "$f"
      echo "ncu $i: $prob $solver $cfg"; grep -E "^  [a-z_]+.*\(|Duration|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|rc=" "$f" | cut -c1-150
    done
  fi
  [ -f "$W/winograd/perf_winograd.json" ] && python3 - "$W/winograd/perf_winograd.json" <<'PY' | tee "$W/winograd/per_solver.txt"
import json, sys
rep = json.load(open(sys.argv[1]))
for c in rep.get("cases", []):
    t = (c.get("timing") or {}).get("median_ms")
    peer = c.get("peer") or {}
    pt = (peer.get("timing") or {}).get("median_ms")
    print(f"{c['problem'][:70]:70} {c.get('solver', '?'):28} {c.get('status', '?'):10} "
          f"{'%.4f' % t if t else '-':>8} ms  peer {peer.get('engine', '-')} {'%.4f' % pt if pt else '-'}")
PY
  pack
fi

if [ "${OPS_BENCH:-0}" = 1 ]; then
  # Issue 13's measure: the count-weighted ResNet-50 op totals (verify/suites/resnet50_ops.txt) per
  # family in all six combinations, hiprim's best verified solver (hiprim bench --op all, every output
  # verified in full at the timed size) against PyTorch on the same strings in the same run.
  echo "== 3b. ops bench ($(( $(date +%s) - start )) s)"
  mkdir -p "$W/opsbench"
  timeout $(( ${OPS_BENCH_S:-380} + 90 )) devbin/hiprim bench --op all --suite resnet50_ops --batch 32 \
    --combo "${OPS_COMBOS:-bf16:nhwc,fp32:nchw,fp16:nhwc,bf16:nchw,fp32:nhwc,fp16:nchw}" --peer none --repeats 1 --budget-ms 40 \
    --time-limit "${OPS_BENCH_S:-380}" --report "$W/opsbench/perf_ops.json" > "$W/opsbench/bench.log" 2>&1
  echo "ops bench rc=$?"
  if [ -f "$W/opsbench/perf_ops.json" ]; then
    timeout $(( ${OPS_TORCH_S:-90} + 30 )) python3 scripts/torch_crosscheck.py --what ops --batch 32 --dtype fp32,fp16,bf16 \
      --layout nchw,nhwc --filter "${OPS_TORCH_FILTER:-.}" --replays 5 --target-ms 2 --time-budget "${OPS_TORCH_S:-90}" --out "$W/opsbench/torch_ops.json" \
      --bench "$W/opsbench/perf_ops.json" > "$W/opsbench/torch.log" 2>&1
    echo "torch ops rc=$?"; tail -60 "$W/opsbench/torch.log" | cut -c1-180
  fi
  pack
fi

if [ "${OPS_TUNE:-0}" = 1 ]; then
  # The elementwise solvers' perf configs (activ.elementwise b<B>, tensorop.vec chunks.b<B> / loop.b256) over
  # ResNet-50's ReLU and residual-add lines (OPS_TUNE_REGEX) in OPS_TUNE_COMBOS ("dtype:layout,..."): hiprim tune
  # --no-record times every config after verifying it, then PyTorch on the same strings in the same run.
  echo "== 3c. elementwise tune ($(( $(date +%s) - start )) s)"
  mkdir -p "$W/opstune"
  # (suite files given by path hold bare problem strings: the counts are dropped)
  grep -vE '^#' verify/suites/resnet50_ops.txt | grep -E "${OPS_TUNE_REGEX:-activ (fwd|bwd) relu|tensorop add}" | cut -d' ' -f2- > "$W/opstune/base.txt"
  IFS=',' read -ra combos <<< "${OPS_TUNE_COMBOS:-fp16:nchw,fp32:nhwc,bf16:nhwc}"
  : > "$W/opstune/suite.txt"
  for c in "${combos[@]}"; do sed -E "s/ fp32 nchw( |$)/ ${c%%:*} ${c##*:}\1/" "$W/opstune/base.txt" >> "$W/opstune/suite.txt"; done
  timeout "${OPS_TUNE_S:-200}" devbin/hiprim tune --suite "$W/opstune/suite.txt" --solver 'activ.elementwise,tensorop.vec' --no-record \
    --time-budget-ms 20 --report "$W/opstune/tune_ops.json" > "$W/opstune/tune.log" 2>&1
  echo "ops tune rc=$?"; grep -E "^tune" "$W/opstune/tune.log"
  timeout $(( ${OPS_TORCH_S:-90} + 30 )) python3 scripts/torch_crosscheck.py --what ops --problems "$W/opstune/suite.txt" --replays 5 \
    --target-ms 2 --time-budget "${OPS_TORCH_S:-90}" --out "$W/opstune/torch_ops.json" > "$W/opstune/torch.log" 2>&1
  echo "torch rc=$?"
  python3 - "$W/opstune/tune_ops.json" "$W/opstune/torch_ops.json" <<'PY' | tee "$W/opstune/joined.txt"
import json, sys
tune = json.load(open(sys.argv[1]))
torch = json.load(open(sys.argv[2]))
tm = {r["problem"]: r.get("torch_ms") for r in (torch.get("rows") or torch.get("results") or [])}
rows = tune.get("tunings") or tune.get("results") or []
for r in rows:
    p = r.get("problem", "?")
    cfgs = " ".join(f"{c['config']}={c['time_us']:.2f}" for c in r.get("timed", []))
    t = tm.get(p)
    print(f"{p[:60]:60} torch {t * 1000 if t else -1:7.2f} us | default {r.get('default_config')} {r.get('default_us') or -1:7.2f} | {cfgs}")
PY
  pack
fi

if [ "${FUZZ_T:-8}" != 0 ]; then
  echo "== 4. fuzz ($(( $(date +%s) - start )) s)"
  OUT="$W/fuzz" FUZZ_OPS_TIME="${FUZZ_T:-8}" scripts/device_fuzz_ops.sh > "$W/fuzz.out" 2>&1
  echo "device_fuzz_ops rc=$?"
  grep -E "^fuzz .* rc=|failed|FAIL" "$W/fuzz/fuzz_ops.log" | head -20
  pack
fi
cp "$W/speed/ops_speed.log" "$OUT/ops_speed.log" 2>/dev/null
echo "== done ($(( $(date +%s) - start )) s)"
sed -n '/^== 4. summary/,$p' "$W/speed/ops_speed.log" | cut -c1-175
