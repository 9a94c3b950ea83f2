#!/usr/bin/env bash
# One part of the final H200 measurement, sized for one run of at most 10 minutes on the GPU machine:
#   1    the ResNet-50 bench for bf16:nhwc, fp16:nhwc, fp32:nchw (scripts/device_bench.sh 1: hiprim's
#        GEMM-class solvers and the graph-API cuDNN peer, every timed output verified in full, 3
#        repeats), then the PyTorch cross-check (scripts/torch_crosscheck.py) of those combinations
#   2    the same bench for fp32:nhwc, bf16:nchw, fp16:nchw (no cross-check: the acceptance names
#        the three combinations of part 1)
#   ops  the op suite bench (scripts/device_bench.sh ops) and its PyTorch cross-check (OPS_COMBOS as device_bench_ops.sh)
# Usage: OUT=... scripts/device_final.sh 1|2|ops   (BENCH_LIMIT_S, OPS_LIMIT_S, TORCH_BUDGET_S, SOLVER as device_bench.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
part=${1:?part 1, 2 or ops}
: "${OUT:?}"
for a in devbin/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C devbin; done
export SOLVER="${SOLVER:-conv.igemm.*,conv.gemm.*}"
OUT="$OUT" scripts/device_bench.sh "$part" > "$OUT/stdout_part$part.log" 2>&1
tail -n 40 "$OUT/stdout_part$part.log"
bench="$OUT/perf_resnet50_part${part}_h200.json"
budget="${TORCH_BUDGET_S:-30}"
case "$part" in
  1) runs="bf16:nhwc fp16:nhwc fp32:nchw"; what=conv ;;
  2) runs=""; what=conv ;;
  *) runs="${OPS_COMBOS:-bf16:nhwc,fp32:nchw,fp16:nhwc}"; runs=${runs//,/ }; what=ops; bench="$OUT/perf_ops_h200.json" ;;
esac
for r in $runs; do
  dt=${r%:*}; ly=${r#*:}
  timeout $(( budget + 25 )) python3 scripts/torch_crosscheck.py --batch 32 --dtype "$dt" --layout "$ly" --what "$what" \
    --time-budget "$budget" --bench "$bench" --out "$OUT/torch_${what}_${dt}_${ly}.json" >> "$OUT/torch_part$part.log" 2>&1
  echo "torch $what $dt $ly rc=$?"
done
[ -f "$OUT/torch_part$part.log" ] && grep -E "total|peer/torch|FLAG|>10%" "$OUT/torch_part$part.log" | tail -n 40
# Everything goes into one archive, to keep the output small (the JSON reports compress about 20x);
# the markdown renderings stay beside it.
( cd "$OUT" && tar -czf "part$part.tgz" --exclude='*.md' --exclude="part$part.tgz" -- * && \
  find . -maxdepth 1 -type f ! -name '*.md' ! -name "part$part.tgz" -delete )
ls -l "$OUT"
