#!/usr/bin/env bash
# Per-kernel GPU time of one hiprim repro under ncu (issue 18's RNN breakdown; any op): every launch's
# gpu__time_duration, summed per kernel name and grid, largest first. L2 is not flushed between
# kernels (--cache-control none: the per-step GEMMs read R from L2 as they do in a graph replay) and
# clocks are not locked (--clock-control none).
# Usage (device, repository root, devbin/hiprim unpacked): scripts/ncu_kernel_table.sh "<problem>" <solver> [ncu args...]
set -u
problem=$1 solver=$2
shift 2
log=$(mktemp)
ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum "$@" devbin/hiprim repro "$problem" --solver "$solver" > "$log" 2>&1
rc=$?
echo "== $solver on $problem (ncu rc=$rc)"
awk '
  /^  [^ ].*\([0-9]+, [0-9]+, [0-9]+\)x\(/ { name = $0; sub(/^  /, "", name); sub(/, Context.*/, "", name); gsub(/\(const [^)]*\)|\([A-Z][A-Za-z]*[^)]*\)/, "", name); next }
  /gpu__time_duration.sum/ { unit = $2; t = $3; gsub(/,/, "", t); if (unit == "ms") t *= 1000; if (unit == "ns") t /= 1000; us[name] += t; n[name]++; total += t }
  END { for (k in us) printf "%10.1f us %6d x  %s\n", us[k], n[k], substr(k, 1, 150); printf "%10.1f us total\n", total }
' "$log" | sort -rn | head -25
grep -E "error|Error|FAILED|passed|failed" "$log" | grep -v "^==PROF==" | tail -3
rm -f "$log"
