#!/usr/bin/env bash
# s33 call A (prepared in s32, run unchanged; build HEAD first: scripts/device_build.sh hiprim, copy devbin/bin.tar.xz): the
# two Winograd-suite lines s32 did not bench (bwd-data c512 k512 28x28 and 14x14, cut by the bench's time limit) against
# conv.igemm.simt and cuDNN's best fp32 plan (12 plans: s32's 6-plan peer missed PyTorch's algorithm on five lines), every
# output verified, then PyTorch's cuDNN on the same problems. About 120 s; summary in $OUT/summary.txt.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
scripts/device_wino_lines.sh '^conv bwd-data .* c512 k512 in(28x28|14x14) ' 90 12
echo "done ($SECONDS s)" >> $S
