#!/usr/bin/env bash
# ncu (--clock-control none) of named kernels as `hiprim tune` runs them (every config of the solver,
# verified, then timed): for each entry "problem|solver|kernel" of NCU_JOBS (';'-separated), the
# first launch of `kernel` (ncu's base function name) after NCU_SKIP (default 3) launches: speed of light,
# memory workload, occupancy, launch statistics. Output: $OUT/ncu_<i>_<kernel>.txt. From the
# repository root on the GPU machine with devbin/hiprim.
set -u
cd "$(dirname "$0")/.."
: "${OUT:?}" "${NCU_JOBS:?}"
IFS=';' read -ra jobs <<< "$NCU_JOBS"
for i in "${!jobs[@]}"; do
  IFS='|' read -r prob solver kernel <<< "${jobs[$i]}"
  f="$OUT/ncu_${i}_${kernel}.txt"
  echo "== $prob | $solver | $kernel" | tee "$f"
  timeout 90 ncu --clock-control none -k "$kernel" --launch-skip "${NCU_SKIP:-3}" --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    devbin/hiprim tune "$prob" --solver "$solver" --no-record >> "$f" 2>&1
  echo "rc=$?" >> "$f"
  grep -E "Memory Throughput|DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Theoretical Occupancy|L1/TEX Hit|L2 Hit|Compute \(SM\)" "$f" | head -12
done
