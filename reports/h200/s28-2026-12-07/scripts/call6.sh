#!/usr/bin/env bash
# Session 27, call 6: same-run A/B of build c072673 (new: rnn_tc staging/ldmatrix, bnorm two blocks per SM) against
# 60f6363 (old, devbin/old): rnn.mma.fwd tune on the LSTM/GRU math=h16 bench lines, PyTorch's cuDNN on them, the fp16
# NHWC batch-norm lines where cuDNN led (hiprim bench, every output verified) and PyTorch on them; then the checks.
set -u
for a in devbin/bin.tar.xz devbin/old/bin.tar.xz; do [ -f $a ] && tar -xJf $a -C $(dirname $a) && rm -f $a; done
S=$OUT/summary6.txt
{ devbin/hiprim --version | head -1; devbin/old/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
grep -E '^rnn fwd .*math=h16' bench/suites/rnn.txt > /tmp/rl.txt
tune() { while read -r line; do timeout 40 $1 tune --no-record "$line" --solver 'rnn.mma.fwd' --time-budget-ms 200 --no-determinism-check 2>&1 | grep -E '^tune \[|^tuned' | cut -c1-200; done < /tmp/rl.txt; }
echo "== new" >> $S; tune devbin/hiprim >> $S
sed 's/ math=h16$//' /tmp/rl.txt > /tmp/rt.txt
timeout 40 python3 scripts/torch_crosscheck.py --problems /tmp/rt.txt --out $OUT/torch_rnn.json > /tmp/tr.log 2>&1; echo "torch rnn rc=$? $(grep -E ' ms,' /tmp/tr.log | tr '\n' ' ')" >> $S
echo "== old" >> $S; tune devbin/old/hiprim >> $S
B="spatial fp16 nhwc n32"
printf '%s\n' "bnorm fwd-train $B c256 in28x28 eps1e-05 momentum0.1" "bnorm fwd-train $B c64 in112x112 eps1e-05 momentum0.1" \
  "bnorm fwd-train $B c128 in28x28 eps1e-05 momentum0.1" "bnorm fwd-train $B c512 in14x14 eps1e-05 momentum0.1" \
  "bnorm fwd-train spatial bf16 nhwc n32 c256 in56x56 eps1e-05 momentum0.1" > /tmp/bn.txt
for v in new old; do bin=devbin/hiprim; [ $v = old ] && bin=devbin/old/hiprim
  timeout 60 $bin bench --op bnorm --suite /tmp/bn.txt --peer none --repeats 1 --budget-ms 40 --report $OUT/bn_$v.json > /tmp/bn_$v.log 2>&1
  echo "bnorm bench $v rc=$?" >> $S; grep -E '^bnorm|hiprim bnorm|cases:' /tmp/bn_$v.log | cut -c1-160 >> $S; done
timeout 40 python3 scripts/torch_crosscheck.py --problems /tmp/bn.txt --out $OUT/torch_bn.json > /tmp/tb.log 2>&1; echo "torch bn rc=$? $(grep -E ' ms,' /tmp/tb.log | tr '\n' ' ')" >> $S
grep -E '^rnn .*math=h16' verify/suites/rnn_mma.txt > /tmp/h.txt
timeout 45 devbin/hiprim check --require-gpu --suite /tmp/h.txt --solver 'rnn.mma.*' --report $OUT/check_h16.json > /tmp/ch.log 2>&1; echo "check h16 rc=$?" >> $S; grep -E '^rnn|^total' /tmp/ch.log >> $S
grep -E '^rnn .* uni .*math=h16' /tmp/h.txt | grep -v layers1 > /tmp/w.txt
timeout 30 devbin/hiprim check --require-gpu --suite /tmp/w.txt --solver 'rnn.mma.*' --config steps.tc.wave --report $OUT/check_wave.json > /tmp/cw.log 2>&1; echo "check wave rc=$?" >> $S; grep -E '^rnn|^total' /tmp/cw.log >> $S
echo done6 >> $S
