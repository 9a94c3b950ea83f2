#!/usr/bin/env bash
# Configures and builds hiprim into build/ (GPU backend: auto, i.e. CUDA when nvcc is found).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHIPRIM_GPU="${HIPRIM_GPU:-auto}" ${HIPRIM_CMAKE_ARGS:-} >/dev/null
cmake --build build -j"$jobs"
