#!/usr/bin/env bash
# s33 call U: bench/suites/winograd_16bit.txt's bwd-data and bwd-weights lines (bf16 NHWC, ResNet-50's four 3x3 layers)
# with conv.winograd.tc.* against the fp32-GEMM Winograd solvers, conv.igemm.wgmma and cuDNN's best bf16 plan (every timed
# output verified in full), PyTorch's cuDNN on the same problems. Summary in $OUT/summary.txt.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
for d in bwd-data bwd-weights; do
  echo "== bench $d ($SECONDS s)" >> $S
  grep -E "^conv $d " bench/suites/winograd_16bit.txt > devbin/lines_$d.txt
  timeout 240 devbin/hiprim bench --suite devbin/lines_$d.txt --solver 'conv.winograd.tc.*,conv.winograd.f?x3,conv.igemm.wgmma' \
    --peer cudnn --peer-transforms --peer-max-plans 8 --repeats 1 --time-limit 120 --report $OUT/perf_tc_$d.json > /tmp/bench_$d.log 2>&1
  echo "bench rc=$?" >> $S; tail -25 /tmp/bench_$d.log | cut -c1-200 >> $S
  awk '{c=$6; k=$7; sub("c","",c); sub("k","",k); split(substr($8,3),hw,"x"); print c, k, hw[1], hw[2], 3, 3, 1, 1, 1}' devbin/lines_$d.txt > /tmp/layers.txt
  timeout 60 python3 scripts/torch_crosscheck.py --what conv --layers-file /tmp/layers.txt --batch 32 --dtype bf16 --layout nhwc \
    --dir $d --out $OUT/torch_crosscheck_$d.json --bench $OUT/perf_tc_$d.json > /tmp/torch_$d.log 2>&1
  echo "torch rc=$?" >> $S; cut -c1-220 /tmp/torch_$d.log | tail -12 >> $S
done
tar -czf $OUT/logs.tgz -C /tmp bench_bwd-data.log bench_bwd-weights.log torch_bwd-data.log torch_bwd-weights.log 2>/dev/null
echo "done ($SECONDS s)" >> $S
