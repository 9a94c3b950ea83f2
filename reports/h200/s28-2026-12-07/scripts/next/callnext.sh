#!/usr/bin/env bash
# Next session's first call (prepared in s28): issue 17's remaining VGG-16 bwd layers (devbin/vgg_rest.txt: bwd-data
# conv1_2, conv2_1, conv3_1; bwd-weights conv1_1, conv1_2, conv2_1, conv3_1, conv3_2), then hiprim tune of every
# Winograd config on the two 14x14 bwd-weights lines where cuDNN's engine17 led or tied (c512, c256), and ncu of each
# phase of f6x3 / f4x3 on the c512 line. Every timed output verified in full.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary_next.txt
devbin/hiprim --version | head -1 > $S; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $S
grep -E 'bwd-weights .*(c512 k512|c256 k256) in14x14' bench/suites/winograd_fp32.txt > devbin/w14.txt
P512='conv bwd-weights fp32 nhwc n32 c512 k512 in14x14 f3x3 pad1x1 str1x1 dil1x1 g1'
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=tune,ncu WINO_SUITE_FILE=devbin/w14.txt WINO_TUNE_S=120 \
  WINO_NCU="$P512|conv.winograd.f6x3|;$P512|conv.winograd.f4x3|" FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
mv $OUT/all.tgz $OUT/tune_ncu.tgz
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=devbin/vgg_rest.txt WINO_BENCH_S=${WINO_BENCH_S:-330} \
  WINO_BENCH_SOLVERS='conv.winograd.f4x3,conv.winograd.f6x3,conv.igemm.simt' FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
echo donenext >> $S
# bnorm.spatial.tile's pack widths (94021aa) on the 16-bit NHWC lines where cuDNN led (s28: 0.58-0.91x), each config
# verified and timed by hiprim tune; PyTorch on the same lines.
B="spatial fp16 nhwc n32"
printf '%s\n' "bnorm fwd-train $B c512 in14x14 eps1e-05 momentum0.1" "bnorm fwd-train $B c256 in14x14 eps1e-05 momentum0.1" \
  "bnorm fwd-train $B c256 in28x28 eps1e-05 momentum0.1" "bnorm fwd-train $B c128 in28x28 eps1e-05 momentum0.1" \
  "bnorm bwd $B c512 in14x14 eps1e-05" "bnorm bwd $B c256 in28x28 eps1e-05" "bnorm fwd-train $B c1024 in14x14 eps1e-05 momentum0.1" > /tmp/bnt.txt
while read -r line; do timeout 30 devbin/hiprim tune --no-record "$line" --solver 'bnorm.spatial.*' --time-budget-ms 100 2>&1 | grep -E '^tune \[|^tuned' | cut -c1-200; done < /tmp/bnt.txt >> $S
timeout 60 python3 scripts/torch_crosscheck.py --problems /tmp/bnt.txt --out $OUT/torch_bnt.json > /tmp/tbt.log 2>&1; echo "torch bnt rc=$? $(grep -E ' ms,' /tmp/tbt.log | tr '\n' ' ')" >> $S
echo donebn >> $S
