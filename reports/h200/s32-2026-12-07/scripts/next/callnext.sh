#!/usr/bin/env bash
# Prepared in s32 for the next session (build HEAD first: scripts/device_build.sh hiprim, copy devbin/bin.tar.xz): the
# two Winograd-suite lines s32 did not bench (bwd-data c512 k512 28x28 and 14x14, cut by the bench's time limit) against
# conv.igemm.simt and cuDNN's best fp32 plan (12 plans: s32's 6-plan peer missed PyTorch's algorithm on five lines), every
# output verified, then PyTorch's cuDNN on the same problems. About 120 s; summary in $OUT/summary.txt.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
grep -E '^conv bwd-data .* c512 k512 in(28x28|14x14) ' bench/suites/winograd_fp32.txt > devbin/lines.txt
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=devbin/lines.txt WINO_BENCH_S=90 WINO_PEER_PLANS=12 \
  WINO_BENCH_SOLVERS='conv.winograd.*,conv.igemm.simt' FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
mv $OUT/all.tgz $OUT/bench.tgz 2>/dev/null
B=$(ls -td /tmp/ops_round.* 2>/dev/null | head -1)/winograd/perf_winograd.json  # the newest round (a warm machine keeps older ones)
awk '{c=$6; k=$7; sub("c","",c); sub("k","",k); split(substr($8,3),hw,"x"); print c, k, hw[1], hw[2], 3, 3, 1, 1, 1}' devbin/lines.txt > /tmp/layers.txt
timeout 60 python3 scripts/torch_crosscheck.py --what conv --layers-file /tmp/layers.txt --batch 32 --dtype fp32 --layout nhwc \
  --dir bwd-data --out $OUT/torch_crosscheck.json --bench $B > /tmp/torch.log 2>&1
echo "torch rc=$?" >> $S; cut -c1-220 /tmp/torch.log | tail -8 >> $S
echo "done ($SECONDS s)" >> $S
