#!/usr/bin/env bash
# One run of every H200 check this repository has, on the GPU machine, from the repository root with the
# binaries in $BIN (default devbin/): conv bounded-tier conformance, the ops conformance
# (scripts/device_ops.sh), the GPU fuzz campaign and mutants (scripts/device_fuzz.sh) and the ResNet-50
# performance run against cuDNN (scripts/device_bench.sh) and the memory-bound ops against the copy
# bandwidth (scripts/device_bench_ops.sh), the op fuzz campaign (scripts/device_fuzz_ops.sh) and the tensor-core checks (scripts/device_mma.sh, step mma,
# not in the default list). To keep the output folder to a few files, each step writes into its own
# folder under a scratch dir; the JSON reports (7) are copied to $OUT, and the logs and the rendered
# .md/.html (`hiprim report markdown|html` remakes them from the JSON) go into $OUT/logs.tar.gz. Steps: STEPS="conv ops fuzz fuzz_ops bench bench_ops" (default all).
set -u
BIN=${BIN:-devbin}
OUT=${OUT:-out}
STEPS=${STEPS:-"conv ops fuzz fuzz_ops bench bench_ops"}
work=$(mktemp -d /tmp/device_all.XXXXXX)
mkdir -p "$OUT"
for step in $STEPS; do
  mkdir -p "$work/$step"
  echo "=== $step ($(date -u +%T))"
  case "$step" in
    conv) timeout 200 "$BIN/hiprim" check --require-gpu --suite smoke,edge --dtype fp32,fp16,bf16 --layout nchw,nhwc --solver 'conv.*' \
            --fill bounded --report "$work/conv/conformance_conv_bounded.json" > "$work/conv/check.log" 2>&1
          echo "conv bounded rc=$?"; tail -7 "$work/conv/check.log" ;;
    ops)   OUT="$work/ops" BIN="$BIN" timeout 200 bash scripts/device_ops.sh 2>&1 | tail -25 ;;
    fuzz)  OUT="$work/fuzz" BIN="$BIN" timeout 200 bash scripts/device_fuzz.sh 2>&1 | tail -25 ;;
    bench) OUT="$work/bench" BIN="$BIN" timeout 330 bash scripts/device_bench.sh quick 2>&1 | tail -30 ;;
    bench_ops) OUT="$work/bench_ops" BIN="$BIN" timeout 120 bash scripts/device_bench_ops.sh 2>&1 | tail -30 ;;
    mma) OUT="$work/mma" BIN="$BIN" timeout 560 bash scripts/device_mma.sh 2>&1 | tail -60 ;;
    fuzz_ops) OUT="$work/fuzz_ops" BIN="$BIN" timeout 150 bash scripts/device_fuzz_ops.sh 2>&1 | tail -30 ;;
  esac
done
for f in "$work"/*/*.json; do [ -f "$f" ] && cp "$f" "$OUT/"; done
tar -czf "$OUT/logs.tar.gz" -C "$work" .
ls -l "$OUT"
