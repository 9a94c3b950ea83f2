#!/usr/bin/env bash
# s30 call 3: the reworked bwd-weights kernel of conv.winograd.fused.* (stages of TP tiles "r<R>.s<TP>", V in row
# halves, float4 shared-memory rows, the runs' sum with loads in flight) on VGG-16 conv1_1 bwd-weights: bench against
# conv.igemm.simt and cuDNN's best fp32 plan, hiprim tune of every config, ncu; conformance of the fused solvers
# (fp32 smoke+edge+resnet50 both layouts, fp16/bf16 over edge), fuzz, racecheck/memcheck; then the tf32 bench of
# ResNet-50 fwd/bwd-data NHWC with the tf32 tuned table against cuDNN's TF32 engines. Every timed output verified.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary_call3.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
L2='conv bwd-weights fp32 nhwc n32 c3 k64 in224x224 f3x3 pad1x1 str1x1 dil1x1 g1'
printf '%s\n' "$L2" > devbin/vgg11w.txt
echo "== bench" >> $S
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=devbin/vgg11w.txt WINO_BENCH_S=60 WINO_PEER_PLANS=6 \
  WINO_BENCH_SOLVERS='conv.winograd.fused.f4x3,conv.winograd.fused.f2x3,conv.igemm.simt' FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
mv $OUT/all.tgz $OUT/bench.tgz
echo "== tune ($SECONDS s)" >> $S
timeout 90 devbin/hiprim tune --no-record "$L2" --solver 'conv.winograd.fused.*' --time-budget-ms 40 --report $OUT/tune_fused_wgrad.json 2>&1 | grep -E '^tune \[|^tuned' | cut -c1-220 >> $S
echo "== check ($SECONDS s)" >> $S
timeout 120 devbin/hiprim check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp32 --layout nchw,nhwc --solver 'conv.winograd.fused.*' \
  --report $OUT/conformance_fused.json > /tmp/check.log 2>&1; echo "check rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/check.log >> $S
[ $SECONDS -lt 170 ] && timeout 50 devbin/hiprim check --require-gpu --suite edge --dtype fp16,bf16 --layout nchw,nhwc --solver 'conv.winograd.fused.*' --report $OUT/conformance_fused16.json > /tmp/c16.log 2>&1
echo "check 16-bit rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/c16.log >> $S
echo "== fuzz ($SECONDS s)" >> $S
timeout 60 devbin/hiprim fuzz --op conv --solver 'conv.winograd.fused.*' --time 15 --devices all --jobs-per-device 8 --require-gpu --seed 30 \
  --report $OUT/fuzz_fused.json > /tmp/fuzz.log 2>&1; echo "fuzz rc=$?" >> $S; grep -A3 '^solver' /tmp/fuzz.log | tail -4 >> $S
echo "== racecheck, memcheck ($SECONDS s)" >> $S
for tool in racecheck memcheck; do
  [ $SECONDS -lt 210 ] || break
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 devbin/hiprim check --suite smoke --solver 'conv.winograd.fused.*' > /tmp/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san_$tool.log | tail -1) $(grep -E '^total' /tmp/san_$tool.log)" >> $S
done
echo "== ncu ($SECONDS s)" >> $S
[ $SECONDS -lt 230 ] && for solver in conv.winograd.fused.f4x3 conv.winograd.fused.f2x3; do
  echo "-- $solver" >> $S
  HIPRIM_SOLVER="$solver" timeout 40 ncu --clock-control none -k "regex:wino_" --launch-count 3 --section SpeedOfLight --section Occupancy \
    --section LaunchStats devbin/hiprim run "$L2" --no-determinism-check > /tmp/ncu_$solver.txt 2>&1
  grep -E "^  [a-z_]+.*\(|Duration|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Dynamic Shared" /tmp/ncu_$solver.txt | cut -c1-150 >> $S
done
tar -czf $OUT/logs.tgz -C /tmp check.log c16.log fuzz.log san_memcheck.log san_racecheck.log $(cd /tmp && ls ncu_*.txt) 2>/dev/null
echo "== tf32 bench ($SECONDS s)" >> $S
if [ $SECONDS -lt ${TF32_BEFORE_S:-0} ]; then
  source scripts/cudnn_env.sh
  timeout $(( 540 - SECONDS )) devbin/hiprim bench --op conv --suite resnet50 --batch 32 --dtype fp32 --layout nhwc --dir fwd,bwd-data --math tf32 \
    --peer cudnn --solver 'conv.igemm.wgmma' --repeats 1 --time-limit $(( 500 - SECONDS )) --report $OUT/perf_tf32.json > /tmp/tf32.log 2>&1
  echo "tf32 bench rc=$?" >> $S; grep -E '^fp32|^dtype|^cases|^ceiling|^clocks' /tmp/tf32.log >> $S; gzip -c /tmp/tf32.log > $OUT/tf32.log.gz
fi
echo "done3 ($SECONDS s)" >> $S
