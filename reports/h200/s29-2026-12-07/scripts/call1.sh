#!/usr/bin/env bash
# s29 call 1: the RNN A/B (c89637a vs c6c95a7: the 64-row configs' spill fix d623caa) and its checks; hiprim tune of every
# Winograd config on the two 14x14 bwd-weights lines, ncu of f6x3/f4x3 on c512; bnorm.spatial.tile's pack widths (94021aa)
# by hiprim tune (each config verified) and PyTorch on the same lines.
set -u
devbin/callnext_rnn.sh
S=$OUT/summary_next.txt
devbin/hiprim --version | head -1 > $S; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $S
grep -E 'bwd-weights .*(c512 k512|c256 k256) in14x14' bench/suites/winograd_fp32.txt > devbin/w14.txt
P512='conv bwd-weights fp32 nhwc n32 c512 k512 in14x14 f3x3 pad1x1 str1x1 dil1x1 g1'
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=tune,ncu WINO_SUITE_FILE=devbin/w14.txt WINO_TUNE_S=120 \
  WINO_NCU="$P512|conv.winograd.f6x3|;$P512|conv.winograd.f4x3|" FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
mv $OUT/all.tgz $OUT/tune_ncu.tgz
B="spatial fp16 nhwc n32"
printf '%s\n' "bnorm fwd-train $B c512 in14x14 eps1e-05 momentum0.1" "bnorm fwd-train $B c256 in14x14 eps1e-05 momentum0.1" \
  "bnorm fwd-train $B c256 in28x28 eps1e-05 momentum0.1" "bnorm fwd-train $B c128 in28x28 eps1e-05 momentum0.1" \
  "bnorm bwd $B c512 in14x14 eps1e-05" "bnorm bwd $B c256 in28x28 eps1e-05" "bnorm fwd-train $B c1024 in14x14 eps1e-05 momentum0.1" > /tmp/bnt.txt
while read -r line; do timeout 30 devbin/hiprim tune --no-record "$line" --solver 'bnorm.spatial.*' --time-budget-ms 100 2>&1 | grep -E '^tune \[|^tuned' | cut -c1-200; done < /tmp/bnt.txt >> $S
timeout 60 python3 scripts/torch_crosscheck.py --problems /tmp/bnt.txt --out $OUT/torch_bnt.json > /tmp/tbt.log 2>&1; echo "torch bnt rc=$? $(grep -E ' ms,' /tmp/tbt.log | tr '\n' ' ')" >> $S
echo donebn >> $S
