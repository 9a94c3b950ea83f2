#!/usr/bin/env bash
# ncu (--clock-control none) of named kernels, from the repository root on the GPU machine with
# devbin/hiprim. For each entry "problem|solver|kernel" of NCU_JOBS (';'-separated), one launch of
# the kernel as hiprim launches it:
#   NCU_VIA=tune (default): `hiprim tune` (every config of the solver, verified, then timed); the
#     first launch of `kernel` (ncu's base function name) after NCU_SKIP (default 3) launches;
#     speed of light, memory workload, occupancy, launch statistics.
#   NCU_VIA=run: `hiprim run` (immediate mode with HIPRIM_SOLVER=solver: one launch at full size,
#     e.g. the op kernels); the first launch whose name matches the regex `kernel`; the same
#     sections plus warp states (stall reasons) and the scheduler.
# Output: $OUT/ncu_<i>_<kernel>.txt (tune) or $OUT/ncu_ops_<i>.txt (run).
set -u
cd "$(dirname "$0")/.."
: "${OUT:?}" "${NCU_JOBS:?}"
via=${NCU_VIA:-tune}
sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats)
IFS=';' read -ra jobs <<< "$NCU_JOBS"
for i in "${!jobs[@]}"; do
  IFS='|' read -r prob solver kernel <<< "${jobs[$i]}"
  if [ "$via" = run ]; then
    f="$OUT/ncu_ops_${i}.txt"
    echo "== $prob | $solver | $kernel" | tee "$f"
    HIPRIM_SOLVER="$solver" timeout 120 ncu --clock-control none -k "regex:$kernel" --launch-count 1 "${sections[@]}" \
      --section WarpStateStats --section SchedulerStats devbin/hiprim run "$prob" --no-determinism-check >> "$f" 2>&1
  else
    f="$OUT/ncu_${i}_${kernel}.txt"
    echo "== $prob | $solver | $kernel" | tee "$f"
    timeout 90 ncu --clock-control none -k "$kernel" --launch-skip "${NCU_SKIP:-3}" --launch-count 1 "${sections[@]}" \
      devbin/hiprim tune "$prob" --solver "$solver" --no-record >> "$f" 2>&1
  fi
  echo "rc=$?" >> "$f"
  grep -E "Memory Throughput|DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Theoretical Occupancy|L1/TEX Hit|L2 Hit|Compute \(SM\)|Warp Cycles Per Issued|No Eligible|rc=" "$f" | head -16
done
