#!/usr/bin/env bash
# s31 call 1: conv.winograd.fused.*'s bwd-weights with D in registers (".reg" configs, fb4d47c) on VGG-16 conv1_1
# (C = 3) against conv.igemm.simt and cuDNN's best fp32 plan; the fwd of conv1_1 and ResNet's c64 56x56 (the shared
# input transform now reads d a row at a time); PyTorch's cuDNN on the same problems; tune of every fused config;
# check of every conv.winograd.* solver (fp32 smoke + edge + resnet50, both layouts; fused 16-bit over edge), fuzz,
# racecheck / memcheck, ncu of the new kernel. Every timed output verified in full. Summary in $OUT/summary.txt.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
W='conv bwd-weights fp32 nhwc n32 c3 k64 in224x224 f3x3 pad1x1 str1x1 dil1x1 g1'
printf '%s\n' "$W" 'conv fwd fp32 nhwc n32 c3 k64 in224x224 f3x3 pad1x1 str1x1 dil1x1 g1' \
  'conv fwd fp32 nhwc n32 c64 k64 in56x56 f3x3 pad1x1 str1x1 dil1x1 g1' > devbin/lines.txt
echo "== bench" >> $S
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=devbin/lines.txt WINO_BENCH_S=100 WINO_PEER_PLANS=6 \
  WINO_BENCH_SOLVERS='conv.winograd.*,conv.igemm.simt' FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
mv $OUT/all.tgz $OUT/bench.tgz 2>/dev/null
echo "== torch ($SECONDS s)" >> $S
printf '%s\n' '3 64 224 224 3 3 1 1 1' '64 64 56 56 3 3 1 1 1' > /tmp/layers.txt
B=$(ls /tmp/ops_round.*/winograd/perf_winograd.json 2>/dev/null | head -1)
timeout 90 python3 scripts/torch_crosscheck.py --what conv --layers-file /tmp/layers.txt --batch 32 --dtype fp32 --layout nhwc \
  --dir fwd,bwd-weights --out $OUT/torch_crosscheck.json ${B:+--bench $B} > /tmp/torch.log 2>&1
echo "torch rc=$?" >> $S; cut -c1-220 /tmp/torch.log | tail -20 >> $S
echo "== tune ($SECONDS s)" >> $S
timeout 120 devbin/hiprim tune --no-record "$W" --solver 'conv.winograd.fused.*' --time-budget-ms 40 --report $OUT/tune_fused_wgrad.json 2>&1 \
  | grep -E '^tune \[|^tuned' | cut -c1-220 >> $S
echo "== check ($SECONDS s)" >> $S
timeout 150 devbin/hiprim check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp32 --layout nchw,nhwc --solver 'conv.winograd.*' \
  --report $OUT/conformance_winograd.json > /tmp/check.log 2>&1; echo "check rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/check.log >> $S
timeout 60 devbin/hiprim check --require-gpu --suite edge --dtype fp16,bf16 --layout nchw,nhwc --solver 'conv.winograd.fused.*' \
  --report $OUT/conformance_fused16.json > /tmp/c16.log 2>&1; echo "check 16-bit rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/c16.log >> $S
echo "== fuzz ($SECONDS s)" >> $S
timeout 80 devbin/hiprim fuzz --op conv --solver 'conv.winograd.*' --time 25 --devices all --jobs-per-device 8 --require-gpu --seed 31 \
  --report $OUT/fuzz_winograd.json > /tmp/fuzz.log 2>&1; echo "fuzz rc=$?" >> $S; grep -A8 '^solver' /tmp/fuzz.log | head -9 >> $S
echo "== racecheck, memcheck ($SECONDS s)" >> $S
for tool in racecheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 devbin/hiprim check --suite smoke --solver 'conv.winograd.fused.*' > /tmp/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san_$tool.log | tail -1) $(grep -E '^total' /tmp/san_$tool.log)" >> $S
done
echo "== ncu ($SECONDS s)" >> $S
for cfg in r64.s16.reg r128.s16.reg; do
  echo "-- f4x3 $cfg" >> $S
  HIPRIM_SOLVER=conv.winograd.fused.f4x3 timeout 50 ncu --clock-control none -k "regex:wino_" --launch-count 3 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis devbin/hiprim run "$W" --config $cfg --no-determinism-check > /tmp/ncu_$cfg.txt 2>&1
  grep -E "^  [a-z_]+.*\(|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Dynamic Shared" /tmp/ncu_$cfg.txt | cut -c1-150 >> $S
done
tar -czf $OUT/logs.tgz -C /tmp check.log c16.log fuzz.log san_memcheck.log san_racecheck.log torch.log $(cd /tmp && ls ncu_*.txt) 2>/dev/null
echo "done ($SECONDS s)" >> $S
