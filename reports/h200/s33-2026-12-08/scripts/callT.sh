#!/usr/bin/env bash
# s33 call T: the new conv.winograd.tc.* (bf16 transformed operands, the GEMMs on tensor cores) on the device. check over
# smoke + edge + resnet50 (batch 2) in fp16 and bf16, both layouts, default config (mma) and the simt config over edge;
# a GPU fuzz campaign of conv.winograd.tc.*; memcheck over smoke; then `hiprim bench` of bench/suites/winograd_16bit.txt's
# fwd lines (every timed output verified in full) against the fp32-GEMM Winograd solvers, conv.igemm.wgmma and cuDNN's
# best bf16 plan, and PyTorch's cuDNN on the same problems. Summary in $OUT/summary.txt.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
echo "== check tc ($SECONDS s)" >> $S
timeout 120 devbin/hiprim check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp16,bf16 --layout nchw,nhwc --solver 'conv.winograd.tc.*' \
  --report $OUT/conformance_tc.json > /tmp/check.log 2>&1; echo "check rc=$?" >> $S; grep -E '^conv.winograd|^total|unsupported' /tmp/check.log | head -12 >> $S
timeout 60 devbin/hiprim check --require-gpu --suite edge --dtype fp16,bf16 --layout nchw,nhwc --solver 'conv.winograd.tc.*' --config simt \
  --report $OUT/conformance_tc_simt.json > /tmp/csimt.log 2>&1; echo "check simt rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/csimt.log >> $S
echo "== fuzz ($SECONDS s)" >> $S
timeout 70 devbin/hiprim fuzz --op conv --solver 'conv.winograd.tc.*' --time 25 --devices all --jobs-per-device 8 --require-gpu --seed 33 \
  --report $OUT/fuzz_winograd_tc.json > /tmp/fuzz.log 2>&1; echo "fuzz rc=$?" >> $S; grep -A10 '^solver' /tmp/fuzz.log | head -11 >> $S
grep -iE 'fail|repro' /tmp/fuzz.log | head -5 >> $S
echo "== memcheck ($SECONDS s)" >> $S
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 devbin/hiprim check --suite smoke --dtype fp16,bf16 --solver 'conv.winograd.tc.*' > /tmp/san_memcheck.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' /tmp/san_memcheck.log | tail -1) $(grep -E '^total' /tmp/san_memcheck.log)" >> $S
echo "== bench fwd ($SECONDS s)" >> $S
grep -E '^conv fwd' bench/suites/winograd_16bit.txt > devbin/lines.txt
timeout 300 devbin/hiprim bench --suite devbin/lines.txt --solver 'conv.winograd.tc.*,conv.winograd.f?x3,conv.igemm.wgmma' \
  --peer cudnn --peer-transforms --peer-max-plans 8 --repeats 1 --time-limit 150 --report $OUT/perf_tc_fwd.json > /tmp/bench.log 2>&1
echo "bench rc=$?" >> $S; tail -25 /tmp/bench.log | cut -c1-200 >> $S
awk '{c=$6; k=$7; sub("c","",c); sub("k","",k); split(substr($8,3),hw,"x"); print c, k, hw[1], hw[2], 3, 3, 1, 1, 1}' devbin/lines.txt > /tmp/layers.txt
timeout 90 python3 scripts/torch_crosscheck.py --what conv --layers-file /tmp/layers.txt --batch 32 --dtype bf16 --layout nhwc \
  --dir fwd --out $OUT/torch_crosscheck_fwd.json --bench $OUT/perf_tc_fwd.json > /tmp/torch.log 2>&1
echo "torch rc=$?" >> $S; cut -c1-220 /tmp/torch.log | tail -12 >> $S
tar -czf $OUT/logs.tgz -C /tmp check.log csimt.log fuzz.log san_memcheck.log bench.log torch.log 2>/dev/null
echo "done ($SECONDS s)" >> $S
