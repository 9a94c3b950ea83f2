#!/usr/bin/env bash
# s29 call 2: issue 17's remaining VGG-16 bwd layers (bwd-data conv1_2, conv2_1, conv3_1; bwd-weights conv1_1 .. conv3_2)
set -u
S=$OUT/summary_vgg.txt
devbin/hiprim --version | head -1 > $S; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $S
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=devbin/vgg_rest.txt WINO_BENCH_S=${WINO_BENCH_S:-400} \
  WINO_BENCH_SOLVERS='conv.winograd.f4x3,conv.winograd.f6x3,conv.igemm.simt' FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
echo donevgg >> $S
