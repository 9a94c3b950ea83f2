#!/usr/bin/env bash
# One GPU-machine call over rnn.mma's tensor-core steps (config steps.tc, math=h16; issue 18), from the
# repository root with devbin/ made by scripts/device_build.sh hiprim:
#   1. hiprim tune --no-record of rnn.mma's configs (steps.tc, steps.persist, steps.gemm; each verified in
#      full, then timed by graph replay) on bench/suites/rnn.txt's math=h16 lines matching DIRS (a regex,
#      default 'fwd'; 'fwd|bwd-data' adds the backward, whose reference takes longer)        [TUNE_S each, 60]
#   2. PyTorch's nn.LSTM / nn.GRU (cuDNN) on the same lines without math=h16 (cuDNN keeps h in bf16 anyway)
#      by scripts/torch_crosscheck.py, same run                                                      [TORCH_S, 70]
#   3. hiprim check --require-gpu of verify/suites/rnn_mma.txt's math=h16 lines over rnn.* (rnn.mma's
#      default there is steps.tc)                                                                     [CHECK_S, 90]
#   4. a GPU fuzz campaign of rnn.mma.fwd (half its bf16 cases math=h16)                              [FUZZ_S, 20]
#   5. per-kernel GPU time of rnn.mma.fwd on the LSTM line (scripts/ncu_kernel_table.sh; NCU_TABLE=0 skips it), then ncu sections
#      (speed of light, warp states, stall reasons, scheduler, memory) of one rnn_tc_fwd launch per config in
#      NCU_CONFIGS (default steps.tc)                                                                 [NCU=1]
# Writes $OUT/summary.txt and the logs/JSONs beside it (more than 8 files with several NCU_CONFIGS: pack them).
set -u
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}"
for a in devbin/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C devbin && rm -f "$a"; done
S="$OUT/summary.txt"
say() { echo "$*" | tee -a "$S"; }
say "device_rnn_tc: $(devbin/hiprim --version | head -1); $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)"
grep -E "^rnn (${DIRS:-fwd}) .*math=h16" bench/suites/rnn.txt | while read -r line; do
  timeout "${TUNE_S:-60}" devbin/hiprim tune --no-record "$line" --solver 'rnn.mma.*' --time-budget-ms 200 --no-determinism-check 2>&1 |
    grep -E '^tune|^tuned'
done > /tmp/rnn_tc_tune.log
cut -c1-240 /tmp/rnn_tc_tune.log | tee -a "$S"
grep -E "^rnn (${DIRS:-fwd}) .*math=h16" bench/suites/rnn.txt | sed 's/ math=h16$//' > /tmp/rnn_tc_torch.txt
timeout "${TORCH_S:-70}" python3 scripts/torch_crosscheck.py --problems /tmp/rnn_tc_torch.txt --out "$OUT/torch_rnn.json" > "$OUT/torch.log" 2>&1
say "torch rc=$? $(grep -E ' ms,' "$OUT/torch.log" | tr '\n' ' ')"
grep -E '^rnn .*math=h16' verify/suites/rnn_mma.txt > /tmp/rnn_tc_check.txt
timeout "${CHECK_S:-90}" devbin/hiprim check --require-gpu --suite /tmp/rnn_tc_check.txt --solver 'rnn.*' --report "$OUT/check_h16.json" \
  > "$OUT/check_h16.log" 2>&1
say "check rc=$? $(grep -E '^total' "$OUT/check_h16.log")"
if [ "${FUZZ_S:-20}" -gt 0 ]; then
  timeout $(( ${FUZZ_S:-20} + 60 )) devbin/hiprim fuzz --op rnn --solver 'rnn.mma.fwd' --time "${FUZZ_S:-20}" --seed 7 --devices all \
    --jobs-per-device 8 --require-gpu --shrink-runs 100 --report "$OUT/fuzz_rnn_mma.json" > /tmp/rnn_tc_fuzz.log 2>&1
  say "fuzz rc=$? (0 clean) $(grep -E '^rnn.mma' /tmp/rnn_tc_fuzz.log | head -2 | tr '\n' ' ')"
fi
if [ "${NCU:-1}" = 1 ]; then
  L=$(grep -E '^rnn fwd lstm .*math=h16' bench/suites/rnn.txt | head -1)
  if [ "${NCU_TABLE:-1}" = 1 ]; then
    timeout 120 scripts/ncu_kernel_table.sh "$L" rnn.mma.fwd > "$OUT/ncu_table.txt" 2>&1
    head -5 "$OUT/ncu_table.txt" | tee -a "$S"
  fi
  for cfg in ${NCU_CONFIGS:-steps.tc}; do
    HIPRIM_SOLVER=rnn.mma.fwd timeout 100 ncu --clock-control none --cache-control none -k regex:rnn_tc_fwd --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --print-details all \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
      devbin/hiprim run "$L" --config "$cfg" --no-determinism-check > "$OUT/ncu_$cfg.txt" 2>&1
    say "ncu $cfg:"
    grep -E ' Duration |L1/TEX Cache Throughput|Issued Warp Per Scheduler|Registers Per Thread' "$OUT/ncu_$cfg.txt" | head -4 | tee -a "$S"
    # stall reasons (warps per issued instruction), largest first
    grep -E 'issue_stalled_.*ratio' "$OUT/ncu_$cfg.txt" | awk '{print $NF, $1}' | sort -gr | head -8 | tee -a "$S"
  done
fi
