#!/usr/bin/env bash
# The library's GPU checks (issue 16), from the repository root on the GPU machine, with devbin/ made
# by `scripts/device_build.sh test_api_device hiprim_shared` (test_api_device, libhiprim.so):
#   1 api      test_api_device: the C API's device backend on device memory against its host backend
#   2 python   python/tests (test_ops, test_bad_input, test_torch: its CUDA tensor cases) over devbin/libhiprim.so
#   3 train    python/examples/train_digits.py --device cuda: the CNN through hiprim.torch and the same net
#              in PyTorch (STEPS, default 500; SPLIT: a saved train/test split .npz when scikit-learn is absent)
# Files in $OUT (default out/device_library): library.log, train_digits/train_digits.json (+ .png).
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-devbin}
OUT=${OUT:-out/device_library}
mkdir -p "$OUT"
log="$OUT/library.log"
: > "$log"
export HIPRIM_LIBRARY="$PWD/$BIN/libhiprim.so" PYTHONPATH="$PWD/python"
source "$(dirname "$0")/step_lib.sh"
step api 120 "$BIN/test_api_device"
for t in test_ops.py test_bad_input.py test_torch.py test_torch_cuda.py; do step "python_$t" 120 python3 python/tests/run_tests.py "$t"; done
split=()
[ -n "${SPLIT:-}" ] && split=(--split "$SPLIT")
step train 240 python3 python/examples/train_digits.py --device cuda --steps "${STEPS:-500}" --out "$OUT/train_digits" "${split[@]}"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |passed|failed|skipped|SKIPPED|loss .* -> |^-- " "$log" | tail -30
