#!/usr/bin/env bash
# s29 call 3b (device time nearly spent): the bench of VGG-16 conv1_1 fwd and bwd-weights with the fused solvers against
# igemm.simt and cuDNN's best fp32 plan (every timed output verified in full), then a check of the fused solvers over smoke.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary3b.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
printf '%s\n' 'conv fwd fp32 nhwc n32 c3 k64 in224x224 f3x3 pad1x1 str1x1 dil1x1 g1' \
  'conv bwd-weights fp32 nhwc n32 c3 k64 in224x224 f3x3 pad1x1 str1x1 dil1x1 g1' > devbin/vgg11.txt
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=devbin/vgg11.txt WINO_BENCH_S=40 WINO_PEER_PLANS=4 \
  WINO_BENCH_SOLVERS='conv.winograd.fused.f4x3,conv.winograd.fused.f2x3,conv.igemm.simt' FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
echo "== check ($SECONDS s)" >> $S
[ $SECONDS -lt 130 ] && { timeout 35 devbin/hiprim check --require-gpu --suite smoke --dtype fp32 --layout nchw,nhwc --solver 'conv.winograd.fused.*' \
  --report $OUT/conformance_fused.json > /tmp/check.log 2>&1; echo "check rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/check.log >> $S; }
echo "done3b ($SECONDS s)" >> $S
