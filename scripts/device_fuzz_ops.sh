#!/usr/bin/env bash
# The H200 fuzz campaign of the non-convolution primitives (`hiprim list ops`; run on the GPU machine from the
# repository root, with devbin/ built by scripts/device_build.sh copied there): for each op, its GPU solvers ("<op>.*";
# the host ones are ref.<op>) for FUZZ_OPS_TIME seconds (default 6) with the CPU reference as the
# oracle, every GPU worker sharing the device, failures shrunk (at most 200 shrink runs) and saved.
# Writes into $OUT (default out/device_fuzz_ops): fuzz_ops_h200.json (the per-op reports merged),
# fuzz_ops.log, per_op/<op>.json and, when something failed, corpus/ with the shrunk repro lines.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-devbin}
OUT=${OUT:-out/device_fuzz_ops}
T=${FUZZ_OPS_TIME:-6}
JOBS=${JOBS:-4}
mkdir -p "$OUT"
tmp=$(mktemp -d /tmp/device_fuzz_ops.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
log="$OUT/fuzz_ops.log"
reports=()
ops=$("$BIN/hiprim" list ops) || { echo "device_fuzz_ops: $BIN/hiprim list ops failed" >&2; exit 2; }
for op in $ops; do
  timeout 120 "$BIN/hiprim" fuzz --op "$op" --solver "$op.*" --time "$T" --seed 1 --devices all --jobs-per-device "$JOBS" \
    --shrink-runs 200 --report "$tmp/$op.json" --corpus "$OUT/corpus" > "$tmp/$op.log" 2>&1
  rc=$?
  grep -vE '^\[(gpu|worker)' "$tmp/$op.log" >> "$log"
  echo "fuzz $op rc=$rc (0 clean, 1 failures found)" | tee -a "$log"
  if [ -f "$tmp/$op.json" ]; then
    mkdir -p "$OUT/per_op"
    cp "$tmp/$op.json" "$OUT/per_op/"
    reports+=("$OUT/per_op/$op.json")
  fi
done
if [ ${#reports[@]} -gt 0 ]; then
  "$BIN/hiprim" report merge "${reports[@]}" -o "$OUT/fuzz_ops_h200.json" 2>&1 | tee -a "$log"
fi
grep -hE "^(solver|[a-z]+\.[a-z_.]+ +[0-9]+ )" "$log" | sort -u | head -40
