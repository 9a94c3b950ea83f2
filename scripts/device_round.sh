#!/usr/bin/env bash
# Runs several device scripts in one go on the GPU machine, each with its own output folder, and
# packs each folder into $OUT/<name>.tgz (one file per step). Each step's last lines are printed at
# the end, so the last lines of the output hold every summary.
# Usage: OUT=... scripts/device_round.sh name=script[:arg ...] ...   e.g. wgmma=device_wgmma.sh bench=device_bench.sh:quick
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?OUT must name the output folder}"
for a in devbin/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C devbin; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader > "$OUT/round_gpu.txt" 2>&1
work=$(mktemp -d)
declare -a names
t_all=$(date +%s)
for spec in "$@"; do
  name=${spec%%=*}; rest=${spec#*=}; script=${rest%%:*}; args=""
  [ "$rest" != "$script" ] && args=${rest#*:}; args=${args//:/ }
  names+=("$name")
  mkdir -p "$work/$name"
  t0=$(date +%s)
  echo "=== $name: scripts/$script $args" | tee -a "$OUT/round.log"
  OUT="$work/$name" BIN=devbin bash "scripts/$script" $args > "$work/$name/stdout.log" 2>&1
  rc=$?
  echo "=== $name: rc=$rc in $(( $(date +%s) - t0 )) s" | tee -a "$OUT/round.log"
  tar -czf "$OUT/$name.tgz" -C "$work" "$name"
done
echo "=== all steps: $(( $(date +%s) - t_all )) s" >> "$OUT/round.log"
for name in "${names[@]}"; do
  echo; echo "######## $name (last lines)"; tail -n "${TAIL_LINES:-25}" "$work/$name/stdout.log"
done
echo; cat "$OUT/round.log"
