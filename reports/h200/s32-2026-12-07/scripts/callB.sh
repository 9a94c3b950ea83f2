#!/usr/bin/env bash
# s32 call B: the new conv.winograd.f5x3 (F(5x5, 3x3), non-fused). Bench every bwd-weights line of the Winograd suite
# (ResNet-50's four, VGG-16's nine) with every conv.winograd.* solver against conv.igemm.simt and cuDNN's best fp32 plan
# (every timed output verified in full), PyTorch's cuDNN on the same problems; check f5x3 (fp32 smoke + edge + resnet50
# both layouts; fp16/bf16 over edge), fuzz every conv.winograd.*, memcheck f5x3, ncu of f5x3 on c512 14x14.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
echo "== check f5x3 ($SECONDS s)" >> $S
timeout 100 devbin/hiprim check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp32 --layout nchw,nhwc --solver 'conv.winograd.f5x3' \
  --report $OUT/conformance_f5.json > /tmp/check.log 2>&1; echo "check rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/check.log >> $S
timeout 60 devbin/hiprim check --require-gpu --suite edge --dtype fp16,bf16 --layout nchw,nhwc --solver 'conv.winograd.f5x3' \
  --report $OUT/conformance_f5_16.json > /tmp/c16.log 2>&1; echo "check 16-bit rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/c16.log >> $S
echo "== bench ($SECONDS s)" >> $S
grep -E '^conv bwd-weights' bench/suites/winograd_fp32.txt > devbin/lines.txt
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=devbin/lines.txt WINO_BENCH_S=330 WINO_PEER_PLANS=6 \
  WINO_BENCH_SOLVERS='conv.winograd.*,conv.igemm.simt' FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
mv $OUT/all.tgz $OUT/bench.tgz 2>/dev/null
B=$(ls /tmp/ops_round.*/winograd/perf_winograd.json 2>/dev/null | head -1)
awk '{c=$6; k=$7; sub("c","",c); sub("k","",k); split(substr($8,3),hw,"x"); print c, k, hw[1], hw[2], 3, 3, 1, 1, 1}' devbin/lines.txt > /tmp/layers.txt
timeout 100 python3 scripts/torch_crosscheck.py --what conv --layers-file /tmp/layers.txt --batch 32 --dtype fp32 --layout nhwc \
  --dir bwd-weights --out $OUT/torch_crosscheck.json ${B:+--bench $B} > /tmp/torch.log 2>&1
echo "torch rc=$?" >> $S; cut -c1-220 /tmp/torch.log | tail -20 >> $S
echo "== fuzz ($SECONDS s)" >> $S
timeout 60 devbin/hiprim fuzz --op conv --solver 'conv.winograd.*' --time 20 --devices all --jobs-per-device 8 --require-gpu --seed 32 \
  --report $OUT/fuzz_winograd.json > /tmp/fuzz.log 2>&1; echo "fuzz rc=$?" >> $S; grep -A10 '^solver' /tmp/fuzz.log | head -11 >> $S
echo "== memcheck ($SECONDS s)" >> $S
timeout 45 compute-sanitizer --tool memcheck --error-exitcode 99 devbin/hiprim check --suite smoke --solver 'conv.winograd.f5x3' > /tmp/san_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' /tmp/san_memcheck.log | tail -1) $(grep -E '^total' /tmp/san_memcheck.log)" >> $S
echo "== ncu ($SECONDS s)" >> $S
W='conv bwd-weights fp32 nhwc n32 c512 k512 in14x14 f3x3 pad1x1 str1x1 dil1x1 g1'
for sv in conv.winograd.f5x3; do
  echo "-- $sv" >> $S
  HIPRIM_SOLVER=$sv timeout 40 ncu --clock-control none -k "regex:wino_|simt_" --launch-count 4 \
    --section SpeedOfLight --section Occupancy --section LaunchStats devbin/hiprim run "$W" --no-determinism-check > /tmp/ncu_$sv.txt 2>&1
  grep -E "^  [a-z_]+.*\(|Duration|Compute \(SM\) Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Grid Size" /tmp/ncu_$sv.txt | cut -c1-150 >> $S
done
tar -czf $OUT/logs.tgz -C /tmp check.log c16.log fuzz.log san_memcheck.log torch.log $(cd /tmp && ls ncu_*.txt) 2>/dev/null
echo "done ($SECONDS s)" >> $S
