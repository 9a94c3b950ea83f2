#!/usr/bin/env bash
# s32 call C: every bwd-data line of the Winograd suite (build aefb593).
# bwd-weights line of bench/suites/winograd_fp32.txt (ResNet-50's four, VGG-16's nine with conv1_1 at the new default
# r64.s32.reg, never benched) against conv.igemm.simt and cuDNN's best fp32 plan, every output verified, then
# PyTorch's cuDNN on the same problems. About 350 s; summary in $OUT/summary.txt.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
grep -E '^conv bwd-data' bench/suites/winograd_fp32.txt > devbin/lines.txt
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=devbin/lines.txt WINO_BENCH_S=210 WINO_PEER_PLANS=6 \
  WINO_BENCH_SOLVERS='conv.winograd.*,conv.igemm.simt' FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
mv $OUT/all.tgz $OUT/bench.tgz 2>/dev/null
B=$(ls /tmp/ops_round.*/winograd/perf_winograd.json 2>/dev/null | head -1)
awk '{c=$6; k=$7; sub("c","",c); sub("k","",k); split(substr($8,3),hw,"x"); print c, k, hw[1], hw[2], 3, 3, 1, 1, 1}' devbin/lines.txt > /tmp/layers.txt
timeout 60 python3 scripts/torch_crosscheck.py --what conv --layers-file /tmp/layers.txt --batch 32 --dtype fp32 --layout nhwc \
  --dir bwd-data --out $OUT/torch_crosscheck.json ${B:+--bench $B} > /tmp/torch.log 2>&1
echo "torch rc=$?" >> $S; cut -c1-220 /tmp/torch.log | tail -20 >> $S
echo "done ($SECONDS s)" >> $S
