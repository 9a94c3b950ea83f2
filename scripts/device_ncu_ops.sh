#!/usr/bin/env bash
# ncu (--clock-control none) of op kernels as `hiprim run` launches them once at full size: for each
# entry "problem|solver|kernel" of NCU_JOBS (';'-separated; kernel: a regex of the kernel's name), the
# first launch of a matching kernel: speed of light, memory workload, occupancy, launch statistics,
# warp states (stall reasons) and the scheduler. Output: $OUT/ncu_ops_<i>.txt. From the repository
# root on the GPU machine with devbin/hiprim.
set -u
cd "$(dirname "$0")/.."
: "${OUT:?}" "${NCU_JOBS:?}"
IFS=';' read -ra jobs <<< "$NCU_JOBS"
for i in "${!jobs[@]}"; do
  IFS='|' read -r prob solver kernel <<< "${jobs[$i]}"
  f="$OUT/ncu_ops_${i}.txt"
  echo "== $prob | $solver | $kernel" | tee "$f"
  HIPRIM_SOLVER="$solver" timeout 120 ncu --clock-control none -k "regex:$kernel" --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats \
    devbin/hiprim run "$prob" --no-determinism-check >> "$f" 2>&1
  echo "rc=$?" >> "$f"
  grep -E "Memory Throughput|DRAM Throughput|Duration|Achieved Occupancy|Registers Per|L2 Hit|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|rc=" "$f" | head -16
done
