#!/usr/bin/env bash
# The tests: install what is missing (with hipcc for the AMD compile gate), build, run ctest.
# GPU tests skip (reported as skipped) on machines without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
HIPRIM_WITH_HIPCC=1 scripts/setup.sh
scripts/build.sh >/dev/null
cd build
ctest --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" --timeout 900
