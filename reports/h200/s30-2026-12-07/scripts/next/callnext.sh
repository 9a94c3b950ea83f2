#!/usr/bin/env bash
# Prepared in s30 for the next session's first call (build at the current commit first: scripts/device_build.sh hiprim,
# then copy devbin/bin.tar.xz and run this from the repository root): s30's call 3 again, unchanged, on the fused
# Winograd solvers after 10f74ad (F(2)'s bwd-weights rows padded to 20 floats: not yet timed) and 9b93d75's default
# run rule (conv1_1 bwd-weights: r128.s8, the s30 tune's best, never benched against cuDNN), with its tf32 part on
# (ResNet-50 fwd/bwd-data NHWC math=tf32 against cuDNN's TF32 engines). About 400 s; summary in $OUT/summary_call3.txt.
TF32_BEFORE_S=${TF32_BEFORE_S:-300} exec bash "$(dirname "$0")/../call3.sh"
