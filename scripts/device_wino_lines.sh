#!/usr/bin/env bash
# On the device machine (from the repository root, devbin/ unpacked): bench the lines of the Winograd suite that match
# a regex against conv.igemm.simt and cuDNN's best fp32 plan (scripts/device_ops_round.sh's WINOGRAD bench part: every
# timed output verified in full), then PyTorch's cuDNN on the same problems with the newest bench report beside it
# (scripts/torch_crosscheck.py). Appends to $OUT/summary.txt; the bench's files go to $OUT/bench.tgz.
#   scripts/device_wino_lines.sh REGEX [BENCH_S=300] [PEER_PLANS=6] [SOLVERS='conv.winograd.*,conv.igemm.simt']
# REGEX selects lines of bench/suites/winograd_fp32.txt (e.g. '^conv bwd-data .* c512 k512 in(28x28|14x14) ') and must
# select one direction only (the cross-check takes one --dir).
set -u
re=${1:?usage: device_wino_lines.sh REGEX [BENCH_S] [PEER_PLANS] [SOLVERS]}
S=$OUT/summary.txt
grep -E "$re" bench/suites/winograd_fp32.txt | grep -v '^#' > devbin/lines.txt
dirs=$(awk '{print $2}' devbin/lines.txt | sort -u)
if [ -z "$dirs" ] || [ "$(echo "$dirs" | wc -l)" != 1 ]; then echo "device_wino_lines: '$re' selects directions '$dirs' (want one)" >> "$S"; exit 2; fi
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=devbin/lines.txt WINO_BENCH_S=${2:-300} WINO_PEER_PLANS=${3:-6} \
  WINO_BENCH_SOLVERS=${4:-conv.winograd.*,conv.igemm.simt} FUZZ_T=0 scripts/device_ops_round.sh >> "$S" 2>&1
mv "$OUT/all.tgz" "$OUT/bench.tgz" 2>/dev/null
B=$(ls -td /tmp/ops_round.* 2>/dev/null | head -1)/winograd/perf_winograd.json  # the newest round: a warm machine keeps older ones
# "C K H W R S stride pad count" per line, from "conv DIR fp32 nhwc n32 cC kK inHxW f3x3 pad1x1 ..."
awk '{c=$6; k=$7; sub("c","",c); sub("k","",k); split(substr($8,3),hw,"x"); print c, k, hw[1], hw[2], 3, 3, 1, 1, 1}' devbin/lines.txt > /tmp/layers.txt
timeout 120 python3 scripts/torch_crosscheck.py --what conv --layers-file /tmp/layers.txt --batch 32 --dtype fp32 --layout nhwc \
  --dir "$dirs" --out "$OUT/torch_crosscheck.json" --bench "$B" > /tmp/torch.log 2>&1
echo "torch rc=$?" >> "$S"; cut -c1-220 /tmp/torch.log | tail -20 >> "$S"
