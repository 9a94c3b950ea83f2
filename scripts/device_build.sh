#!/usr/bin/env bash
# Builds the binaries for the device machine HERE (the CPU machine: nvcc 13, sm_90): build-device/
# with the CUDA backend, Release, libstdc++/libgcc linked statically into hiprim (HIPRIM_STATIC), then
# copies hiprim and the test executables, stripped, into devbin/ (git-ignored). Copy devbin to the
# GPU machine with the tree; to keep that copy small, when the stripped tests would push devbin past
# 48 MiB they go into devbin/tests.tar.xz instead (on the device:
# `tar -xJf devbin/tests.tar.xz -C devbin`). hiprim itself always stays a plain file.
# Usage: scripts/device_build.sh [TARGET...]   (default: hiprim and every test_* target; JOBS=N, default 2)
# The target hiprim_shared copies the shared library as devbin/libhiprim.so (HIPRIM_LIBRARY for python/).
# Refuses a dirty tree (tracked changes, or untracked files git does not ignore) unless ALLOW_DIRTY=1:
# every report records the build's `git describe --dirty` and the hash of the uncommitted diff
# (cmake/provenance.cmake, remade on every build), and a committed claim needs a clean one.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${JOBS:-2}"
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
  if [ "${ALLOW_DIRTY:-0}" != "1" ]; then
    echo "device_build: the tree has uncommitted changes (git status --porcelain):" >&2
    git status --porcelain | head -20 >&2
    echo "device_build: commit them, or set ALLOW_DIRTY=1 (the reports will then say -dirty and carry the diff's hash)" >&2
    exit 2
  fi
  echo "device_build: ALLOW_DIRTY=1: building a dirty tree ($(git describe --always --dirty --abbrev=12))"
fi
launchers=()
if command -v ccache >/dev/null; then launchers=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build-device -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release -DHIPRIM_GPU=cuda -DHIPRIM_STATIC=ON "${launchers[@]}" >/dev/null
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t tests < <(cmake --build build-device --target help | awk '$1 == "..." && $2 ~ /^test_/ {print $2}')
  targets=(hiprim "${tests[@]}")
fi
cmake --build build-device -j"$jobs" --target "${targets[@]}"
rm -rf devbin
mkdir -p devbin
for t in "${targets[@]}"; do
  if [ "$t" = hiprim_shared ]; then  # the shared library (for the Python package): devbin/libhiprim.so
    cp "$(readlink -f build-device/api/libhiprim.so)" devbin/libhiprim.so
    continue
  fi
  f=$(find build-device -type f -name "$t" -perm -u+x -not -path '*/CMakeFiles/*' | head -n1)
  if [ -z "$f" ]; then
    echo "device_build: no executable for target $t" >&2
    exit 1
  fi
  cp "$f" devbin/
done
strip devbin/*
# The working tree (about 31 MiB with reports/) and devbin are copied together, kept small: past
# ${DEVBIN_MAX_MB:-28} MiB every binary goes into devbin/bin.tar.xz (scripts/device_round.sh unpacks it;
# by hand: tar -xJf devbin/bin.tar.xz -C devbin).
if [ "$(du -sm devbin | cut -f1)" -gt "${DEVBIN_MAX_MB:-28}" ]; then
  (cd devbin && tar -cJf bin.tar.xz -- * && find . -maxdepth 1 -type f ! -name bin.tar.xz -delete)
  echo "device_build: binaries packed into devbin/bin.tar.xz"
fi
ls -l devbin
echo "devbin: $(du -sm devbin | cut -f1) MiB, built from $(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)"
