#!/usr/bin/env bash
# Prepared in s29 for the next session (s29 had no device time left for it): conv.winograd.fused.f2x3 / .f4x3 (b973ce5, 8c640df) on the GPU, most important first (device time was
# short): bench of VGG-16 conv1_1 fwd and bwd-weights against igemm.simt, the non-fused F(4x4) and cuDNN's best fp32
# plan (every timed output verified in full); conformance of every conv.winograd.* solver over smoke, edge, resnet50
# (batch 2) fp32 both layouts, the fused ones in fp16/bf16 over smoke; a fuzz campaign of the fused solvers; hiprim tune
# of every fused config on conv1_1; racecheck and memcheck over smoke; ncu of the fused kernels on conv1_1.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary_fused.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
L1='conv fwd fp32 nhwc n32 c3 k64 in224x224 f3x3 pad1x1 str1x1 dil1x1 g1'
L2='conv bwd-weights fp32 nhwc n32 c3 k64 in224x224 f3x3 pad1x1 str1x1 dil1x1 g1'
printf '%s\n' "$L1" "$L2" > devbin/vgg11.txt
echo "== bench" >> $S
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=devbin/vgg11.txt WINO_BENCH_S=120 WINO_PEER_PLANS=6 \
  WINO_BENCH_SOLVERS='conv.winograd.fused.f4x3,conv.winograd.fused.f2x3,conv.winograd.f4x3,conv.igemm.simt' FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
mv $OUT/all.tgz $OUT/bench.tgz
echo "== check ($SECONDS s)" >> $S
timeout 150 devbin/hiprim check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp32 --layout nchw,nhwc --solver 'conv.winograd.*' \
  --report $OUT/conformance_winograd.json > /tmp/check.log 2>&1; echo "check rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/check.log >> $S
timeout 40 devbin/hiprim check --require-gpu --suite smoke --dtype fp16,bf16 --solver 'conv.winograd.fused.*' --report $OUT/conformance_fused16.json > /tmp/c16.log 2>&1
echo "check 16-bit rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/c16.log >> $S
echo "== fuzz ($SECONDS s)" >> $S
[ $SECONDS -lt 330 ] && { timeout 60 devbin/hiprim fuzz --op conv --solver 'conv.winograd.fused.*' --time 30 --devices all --jobs-per-device 8 --require-gpu \
  --report $OUT/fuzz_fused.json > /tmp/fuzz.log 2>&1; echo "fuzz rc=$?" >> $S; grep -E '^conv.winograd|^solver|failure|repro|cases' /tmp/fuzz.log | head -12 >> $S; }
echo "== racecheck, memcheck ($SECONDS s)" >> $S
for tool in racecheck memcheck; do
  [ $SECONDS -lt 380 ] || break
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 devbin/hiprim check --suite smoke --solver 'conv.winograd.fused.*' > /tmp/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san_$tool.log | tail -1) $(grep -E '^total' /tmp/san_$tool.log)" >> $S
done
echo "== tune ($SECONDS s)" >> $S
[ $SECONDS -lt 430 ] && for l in "$L1" "$L2"; do timeout 30 devbin/hiprim tune --no-record "$l" --solver 'conv.winograd.fused.*' --time-budget-ms 60 2>&1 | grep -E '^tune \[|^tuned' | cut -c1-220; done >> $S
echo "== ncu ($SECONDS s)" >> $S
[ $SECONDS -lt 480 ] && for j in "$L1|conv.winograd.fused.f4x3" "$L2|conv.winograd.fused.f4x3"; do
  IFS='|' read -r prob solver <<< "$j"; echo "-- $prob | $solver" >> $S
  HIPRIM_SOLVER="$solver" timeout 30 ncu --clock-control none -k "regex:wino_" --launch-count 4 --section SpeedOfLight --section Occupancy \
    --section LaunchStats devbin/hiprim run "$prob" --no-determinism-check > /tmp/ncu.txt 2>&1
  grep -E "^  [a-z_]+.*\(|Duration|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Dynamic Shared" /tmp/ncu.txt | cut -c1-150 >> $S
done
tar -czf $OUT/logs.tgz -C /tmp check.log c16.log fuzz.log san_memcheck.log san_racecheck.log 2>/dev/null
echo "done3 ($SECONDS s)" >> $S
