#!/usr/bin/env bash
# AMD compile gate: compiles every gpu/**/*.hip and gpu/**/*.cpp with Debian's hipcc (ROCm 5.2) for
# gfx90a (wavefront 64) and fails on any compile error. Nothing is linked or run.
# Usage: scripts/hip_compile_check.sh [-j JOBS] [-v]   (from anywhere; JOBS defaults to 2)
# Needs the Debian packages hipcc, libamdhip64-dev, rocm-device-libs (and their dependencies).
# A file that is NVIDIA-only by design goes into EXCLUDE below, with the reason.
set -euo pipefail

jobs=2
verbose=0
while [ $# -gt 0 ]; do
  case "$1" in
    -j) jobs="$2"; shift 2 ;;
    -v) verbose=1; shift ;;
    *) echo "usage: $0 [-j JOBS] [-v]" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
EXCLUDE=()  # paths relative to the repository root

HIPCC="${HIPCC:-hipcc}"
if ! command -v "$HIPCC" >/dev/null; then
  echo "hip_compile_check: $HIPCC not found (apt-get install hipcc libamdhip64-dev rocm-device-libs)" >&2
  exit 2
fi

mapfile -t files < <(find gpu \( -name '*.hip' -o -name '*.cpp' \) -type f | sort)
selected=()
for f in "${files[@]}"; do
  skip=0
  for e in "${EXCLUDE[@]+"${EXCLUDE[@]}"}"; do [ "$f" = "$e" ] && skip=1; done
  [ $skip -eq 0 ] && selected+=("$f")
done
if [ ${#selected[@]} -eq 0 ]; then
  echo "hip_compile_check: no sources found under gpu/" >&2
  exit 2
fi

outdir="$(mktemp -d /tmp/hip_compile_check.XXXXXX)"
trap 'rm -rf "$outdir"' EXIT
export HIPCC outdir verbose

compile_one() {
  local f="$1"
  local obj="$outdir/$(echo "$f" | tr '/' '_').o"
  local log="$obj.log"
  # -x hip: hipcc picks the language from the extension; .cpp files that call the runtime are HIP too.
  if "$HIPCC" --offload-arch=gfx90a -std=c++20 -I. -x hip -c "$f" -o "$obj" >"$log" 2>&1; then
    echo "ok     $f"
    [ "$verbose" -eq 1 ] && cat "$log"
    return 0
  fi
  echo "FAILED $f"
  cat "$log"
  return 1
}
export -f compile_one

echo "hip_compile_check: $("$HIPCC" --version 2>/dev/null | grep -m1 -i 'HIP version' || echo "$HIPCC"), gfx90a, ${#selected[@]} files"
if printf '%s\0' "${selected[@]}" | xargs -0 -n1 -P "$jobs" bash -c 'compile_one "$0"'; then
  echo "hip_compile_check: all ${#selected[@]} files compile for gfx90a"
else
  echo "hip_compile_check: FAILED (see above)" >&2
  exit 1
fi
