#!/usr/bin/env bash
# Session 28: issue 17's bench on VGG-16's 3x3 layers (fp32 NHWC batch 32): SUITE (a file in devbin/) against
# conv.igemm.simt and cuDNN's best fp32 plan (transforms allowed), every output verified in full.
# Usage: SUITE=devbin/vgg_fwd.txt TAG=fwd devbin/callv.sh
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary_$TAG.txt
devbin/hiprim --version | head -1 > $S; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $S
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=$SUITE WINO_BENCH_S=${WINO_BENCH_S:-400} FUZZ_T=0 \
  scripts/device_ops_round.sh >> $S 2>&1
echo "done $TAG" >> $S
