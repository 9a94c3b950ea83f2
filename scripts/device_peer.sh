#!/usr/bin/env bash
# The graph-API cuDNN peer and the PyTorch cross-check on the GPU machine (the H200), from the
# repository root with the binaries in $BIN (default devbin/, made here by
# `scripts/device_build.sh test_bench_cudnn_graph`). Budget: at most 2.5 minutes (each step has a timeout).
#   1. devbin/test_bench_cudnn_graph: every usable cuDNN plan of small problems (3 directions x
#      fp32/fp16/bf16 x nchw/nhwc, grouped, strided+dilated, 3-D, transposed) against the CPU
#      reference in the exact tier, capture into a CUDA graph, the fused conv+bias(+add)+relu
#      graphs, run()'s refusals. Each problem's plans are listed (engine, knobs, notes, workspace,
#      "NOT USABLE: <cuDNN status and message>") with each plan's verdict.
#   2. scripts/torch_crosscheck.py on a quick subset: bf16 nhwc fwd of the 23 ResNet-50 layers at
#      batch 32 and the ReLU family of the op suite (TORCH_ARGS replaces these flags), by graph replay.
# Writes into $OUT: peer_gtest.log, peer_gtest_conv.xml, peer_gtest_fused.xml, torch_quick.json,
# torch_quick.log, peer_summary.txt. Timeouts: 55 + 40 s for the tests, 55 s for torch. Exit status 0 when the tests passed (skips count as failures here: on this machine
# every test must run) and the cross-check measured every selected problem.
set -u
BIN=${BIN:-devbin}
OUT=${OUT:-out}
TORCH_ARGS=${TORCH_ARGS:-"--batch 32 --dtype bf16 --layout nhwc --dir fwd --what conv,ops --ops relu"}
mkdir -p "$OUT"
summary="$OUT/peer_summary.txt"
: > "$summary"
log() { echo "== $*" | tee -a "$summary"; }
status=0

source "$(dirname "$0")/cudnn_env.sh"  # HIPRIM_CUDNN_LIB and LD_LIBRARY_PATH for the peer
log "device_peer $(date -u +%FT%TZ), tree $(git describe --always --dirty 2>/dev/null || echo 'no git'), cuDNN ${HIPRIM_CUDNN_LIB:-libcudnn.so.9 (loader path)}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv 2>&1 | tee -a "$summary"

log "1. graph-API peer tests"
if [ ! -x "$BIN/test_bench_cudnn_graph" ] && [ -e "$BIN/tests.tar.xz" ]; then
  tar -xJf "$BIN/tests.tar.xz" -C "$BIN" test_bench_cudnn_graph 2>/dev/null
fi
if [ -x "$BIN/test_bench_cudnn_graph" ]; then
  : > "$OUT/peer_gtest.log"
  # Two runs, so a slow fused-engine compile cannot cost the plain convolutions' results.
  for part in "conv:-*Fused*:55" "fused:*Fused*:40"; do
    IFS=: read -r name filter limit <<< "$part"
    start=$(date +%s)
    timeout "$limit" "$BIN/test_bench_cudnn_graph" --gtest_filter="$filter" --gtest_output="xml:$OUT/peer_gtest_$name.xml" \
      >> "$OUT/peer_gtest.log" 2>&1
    rc=$?
    log "test_bench_cudnn_graph ($name: $filter) rc=$rc ($(( $(date +%s) - start )) s)$([ $rc -eq 124 ] && echo ": TIMED OUT after $limit s")"
    [ $rc -ne 0 ] && status=1
  done
  grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$OUT/peer_gtest.log" | tee -a "$summary"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$OUT/peer_gtest.log" | sed 's/ (.*//' | sort -u | tee -a "$summary"
  if grep -q '^\[  SKIPPED \]' "$OUT/peer_gtest.log"; then
    status=1
    log "skip reasons (count, reason):"
    grep -A1 -E 'Skipped$' "$OUT/peer_gtest.log" | grep -v -E 'Skipped$|^--$' | cut -c1-200 | sort | uniq -c | tee -a "$summary"
  fi
  log "plans: usable / listed over all problems; failures"
  echo "  usable plans: $(grep -c ' usable$' "$OUT/peer_gtest.log"), not usable: $(grep -c 'NOT USABLE' "$OUT/peer_gtest.log")" | tee -a "$summary"
  grep -E 'NOT USABLE' "$OUT/peer_gtest.log" | sed 's/^ *//' | cut -c1-220 | sort | uniq -c | sort -rn | head -8 | tee -a "$summary"
  grep -E -A3 'Failure$' "$OUT/peer_gtest.log" | grep -v '^--$' | cut -c1-300 | head -30 | tee -a "$summary"
else
  log "$BIN/test_bench_cudnn_graph missing: run scripts/device_build.sh test_bench_cudnn_graph and copy devbin here"
  status=1
fi

log "2. PyTorch cross-check, quick subset: $TORCH_ARGS"
start=$(date +%s)
# shellcheck disable=SC2086
timeout 55 python3 scripts/torch_crosscheck.py $TORCH_ARGS --time-budget 35 --out "$OUT/torch_quick.json" \
  > "$OUT/torch_quick.log" 2>&1
rc=$?
log "torch_crosscheck rc=$rc ($(( $(date +%s) - start )) s)$([ $rc -eq 124 ] && echo ': TIMED OUT after 55 s')"
if [ $rc -ne 0 ]; then
  status=1
  tail -5 "$OUT/torch_quick.log" | cut -c1-300 | tee -a "$summary"
fi
python3 - "$OUT/torch_quick.json" <<'EOF' 2>&1 | tee -a "$summary"
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"  no result JSON: {e}"); sys.exit(0)
rows = d.get("rows", [])
bad = [r for r in rows if r.get("torch_ms") is None]
print(f"  torch {d.get('torch')} cuDNN {d.get('cudnn')} on {d.get('device')}: {len(rows) - len(bad)}/{len(rows)} problems timed")
for r in bad[:10]:
    print(f"  NOT TIMED {r['problem']}: {r.get('error') or r.get('skipped')}")
for r in rows[:3] + rows[-3:]:
    if r.get("torch_ms") is not None:
        print(f"  {r['problem']}: {r['torch_ms'] * 1e3:.1f} us (min {r['torch_min_ms'] * 1e3:.1f}, max {r['torch_max_ms'] * 1e3:.1f}), "
              f"host {r['host_us']:.1f} us, {r['sets']} sets, R={r['reps']}, {r.get('torch_op')}")
print(f"  clocks start {d.get('clocks', {}).get('start')}, end {d.get('clocks', {}).get('end')}")
for t in d.get("totals", []):
    print(f"  total {t['dtype']} {t['layout']} {t['dir']:14} {t['torch_ms']:8.3f} ms over {t['problems']} problems"
          + (f" ({t['torch_missing']} missing)" if t['torch_missing'] else ""))
sys.exit(1 if bad else 0)
EOF
[ "${PIPESTATUS[0]}" -ne 0 ] && status=1
log "device_peer: $([ $status -eq 0 ] && echo PASSED || echo FAILED) (details: $OUT/peer_gtest.log, $OUT/torch_quick.log)"
exit $status
