#!/usr/bin/env bash
# Session 27: issue 17's gate in one call: conv.fft.* check over smoke + edge + resnet50 (batch 2) fp32 both
# layouts (its bwd-data's first GPU run), then scripts/device_ops_round.sh's Winograd parts: check of
# conv.winograd.*, a fuzz campaign of both families, the bench of bench/suites/winograd_fp32.txt against
# conv.igemm.simt and cuDNN's best fp32 plan (same run, every output verified in full).
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summaryw.txt
devbin/hiprim --version | head -1 > $S; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $S
timeout 70 devbin/hiprim check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp32 --layout nchw,nhwc \
  --solver 'conv.fft.*' --report $OUT/conformance_fft.json > /tmp/fftcheck.log 2>&1
echo "fft check rc=$?" >> $S; grep -E '^conv.fft|^total' /tmp/fftcheck.log >> $S
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=check,fuzz,bench WINO_FUZZ_SOLVERS='conv.winograd.*,conv.fft.*' WINO_FUZZ_S=30 \
  WINO_BENCH_S=${WINO_BENCH_S:-200} FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
echo donew >> $S
