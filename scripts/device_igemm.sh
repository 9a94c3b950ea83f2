#!/usr/bin/env bash
# One GPU-machine call for a change to conv.igemm.wgmma: its graded gates (scripts/device_wgmma.sh
# without the sweep and ncu: probes, pipelined GEMMs, every direction against the CPU reference, the
# exact-tier conformance check over smoke + edge + resnet50 at batch 2, the bounded tier,
# compute-sanitizer memcheck), then the ResNet-50 bench of COMBOS x DIRS against the graph-API cuDNN
# peer (scripts/device_bench.sh custom), then the PyTorch cross-check of the first combo.
# Usage: OUT=... COMBOS=bf16:nhwc,fp16:nhwc DIRS=bwd-data scripts/device_igemm.sh
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?}" "${COMBOS:?}"
for a in devbin/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C devbin; done
start=$(date +%s)
OUT="$OUT" SKIP_SWEEP=1 SKIP_NCU=1 scripts/device_wgmma.sh > "$OUT/stdout_wgmma.log" 2>&1
sed -n '/== summary/,$p' "$OUT/wgmma.log"
left=$(( ${TOTAL_S:-560} - ($(date +%s) - start) - ${TORCH_BUDGET_S:-30} - 60 ))
echo "bench limit ${left} s"
OUT="$OUT" SOLVER="${SOLVER:-conv.igemm.*}" BENCH_LIMIT_S="$left" scripts/device_bench.sh custom > "$OUT/stdout_bench.log" 2>&1
tail -n 25 "$OUT/stdout_bench.log"
first=${COMBOS%%,*}
dt=${first%:*}; ly=${first#*:}
budget="${TORCH_BUDGET_S:-30}"
timeout $(( budget + 25 )) python3 scripts/torch_crosscheck.py --batch 32 --dtype "$dt" --layout "$ly" --what conv \
  --time-budget "$budget" --bench "$OUT/perf_resnet50_partcustom_h200.json" --out "$OUT/torch_conv_${dt}_${ly}.json" \
  > "$OUT/torch.log" 2>&1
echo "torch rc=$?"
grep -E "total|peer/torch|FLAG|>10%" "$OUT/torch.log" | tail -n 20
echo "device_igemm: $(( $(date +%s) - start )) s"
# Few files come back from the GPU machine: the JSON reports and stage outputs go into one archive.
( cd "$OUT" && tar -czf igemm.tgz --exclude='*.md' --exclude=igemm.tgz -- * && \
  find . -maxdepth 1 -type f ! -name '*.md' ! -name igemm.tgz -delete )
ls -l "$OUT"
