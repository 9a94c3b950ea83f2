#!/usr/bin/env bash
# Prepared in s28: same-run A/B of the new build (the 64-row rnn_tc configs' B fragments one n-tile at a time) against
# c6c95a7 (devbin/old): rnn.mma.fwd tune on the LSTM/GRU math=h16 bench lines, PyTorch's cuDNN on them; the checks.
set -u
for a in devbin/bin.tar.xz devbin/old/bin.tar.xz; do [ -f $a ] && tar -xJf $a -C $(dirname $a) && rm -f $a; done
S=$OUT/summary_rnn.txt
{ devbin/hiprim --version | head -1; devbin/old/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
grep -E '^rnn fwd .*math=h16' bench/suites/rnn.txt > /tmp/rl.txt
tune() { while read -r line; do timeout 40 $1 tune --no-record "$line" --solver 'rnn.mma.fwd' --time-budget-ms 200 --no-determinism-check 2>&1 | grep -E '^tune \[|^tuned' | cut -c1-200; done < /tmp/rl.txt; }
echo "== new" >> $S; tune devbin/hiprim >> $S
sed 's/ math=h16$//' /tmp/rl.txt > /tmp/rt.txt
timeout 40 python3 scripts/torch_crosscheck.py --problems /tmp/rt.txt --out $OUT/torch_rnn.json > /tmp/tr.log 2>&1; echo "torch rnn rc=$? $(grep -E ' ms,' /tmp/tr.log | tr '\n' ' ')" >> $S
echo "== old" >> $S; tune devbin/old/hiprim >> $S
grep -E '^rnn .*math=h16' verify/suites/rnn_mma.txt > /tmp/h.txt
timeout 45 devbin/hiprim check --require-gpu --suite /tmp/h.txt --solver 'rnn.mma.*' --report $OUT/check_h16.json > /tmp/ch.log 2>&1; echo "check h16 rc=$?" >> $S; grep -E '^rnn|^total' /tmp/ch.log >> $S
grep -E '^rnn .* uni .*math=h16' /tmp/h.txt | grep -v layers1 > /tmp/w.txt
timeout 30 devbin/hiprim check --require-gpu --suite /tmp/w.txt --solver 'rnn.mma.*' --config steps.tc.wave --report $OUT/check_wave.json > /tmp/cw.log 2>&1; echo "check wave rc=$?" >> $S; grep -E '^rnn|^total' /tmp/cw.log >> $S
echo donernn >> $S
