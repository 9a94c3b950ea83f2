#!/usr/bin/env bash
# Session 27, call 1: the grid-barrier microbenchmark; steps.tc.wave's first check (uni h16 stacks of
# verify/suites/rnn_mma.txt); scripts/device_rnn_tc.sh (tune of every rnn.mma config on the LSTM/GRU fwd bench
# lines, PyTorch's cuDNN in the same run, the h16 check, ncu of steps.tc.wave and steps.tc).
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $S
devbin/hiprim --version | head -1 >> $S
timeout 30 devbin/grid_barrier >> $S 2>&1
grep -E '^rnn .* uni .*math=h16' verify/suites/rnn_mma.txt | grep -v layers1 > /tmp/w.txt
timeout 70 devbin/hiprim check --require-gpu --suite /tmp/w.txt --solver 'rnn.mma.*' --config steps.tc.wave \
  --report $OUT/check_wave.json > /tmp/cw.log 2>&1
echo "check_wave rc=$?" >> $S; tail -12 /tmp/cw.log >> $S
OUT=$OUT DIRS=fwd TUNE_S=75 FUZZ_S=0 NCU=1 NCU_TABLE=0 NCU_CONFIGS='steps.tc.wave' TORCH_S=45 CHECK_S=50 \
  scripts/device_rnn_tc.sh
echo done >> $S
