#!/usr/bin/env bash
# tf32 (issue 11): hiprim tune of conv.igemm.wgmma over ResNet-50's 44 fwd / bwd-data fp32 NHWC math=tf32 problems
# (the stem, refused, left out), sampled search (--budget-s each), every config verified before it is timed.
# Four chunks of 11 problems, each with its own report, so a timeout loses one chunk only.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary_tf32tune.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
split -l 11 -d devbin/tf32_tune.txt /tmp/tf32part_
for f in /tmp/tf32part_*; do
  [ $SECONDS -lt 470 ] || { echo "skipped $f ($SECONDS s)" >> $S; continue; }
  n=$(basename $f)
  timeout $(( 560 - SECONDS )) devbin/hiprim tune --suite $f --solver conv.igemm.wgmma --budget-s ${BUDGET_S:-5} --time-budget-ms 20 --no-record \
    --report $OUT/tune_$n.json > /tmp/tune_$n.log 2>&1
  echo "$n rc=$? ($SECONDS s)" >> $S; grep -E '^tuned|^tune:' /tmp/tune_$n.log | cut -c1-330 >> $S
done
tar -czf $OUT/tune_logs.tgz -C /tmp $(cd /tmp && ls tune_tf32part_*.log) 2>/dev/null
echo "done ($SECONDS s)" >> $S
