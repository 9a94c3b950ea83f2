#!/usr/bin/env bash
# The same-verdict check of a redesign on the GPU machine: two builds (BASE, NEW: directories holding
# a hiprim binary) run the same conformance suites over every solver, and every case's status must
# agree. Suites: smoke + edge + resnet50 (batch 2) over the conv solvers in fp32/fp16/bf16 x NCHW/NHWC,
# and the op suites (smoke_ops, ops). The conv check is cut into chunks (dtype x layout x direction,
# each its own `hiprim check` and report) run JOBS at a time over both builds, so the CPU reference
# work spreads over the machine's cores; a chunk that runs out of LIMIT_S leaves no report and the
# comparison says which chunks are missing. Writes each chunk's report and log, and verdicts_diff.txt,
# to $OUT.
# Usage: OUT=... BASE=devbase NEW=devbin scripts/device_same_verdicts.sh   (LIMIT_S per chunk, default 300;
# JOBS, default the cores / 2; CONV_SUITES, default smoke,edge,resnet50; DTYPES, LAYOUTS, DIRS of the
# generated suites; SKIP_OPS=1 leaves the op suites out; SKIP_CONV=1 the conv suites)
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?}" "${BASE:?}" "${NEW:?}"
mkdir -p "$OUT"
limit=${LIMIT_S:-300}
jobs=${JOBS:-$(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 ))}
for side in BASE NEW; do
  dir=${!side}
  for a in "$dir"/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C "$dir"; done
  [ -x "$dir/hiprim" ] || { echo "device_same_verdicts: no hiprim in $dir" >&2; exit 2; }
done
# One chunk: side dtype layout dir -> $OUT/conv_<side>_<dtype>_<layout>_<dir>.json
chunk() {
  local side=$1 dt=$2 ly=$3 d=$4 dir
  [ "$side" = base ] && dir=$BASE || dir=$NEW
  local name="conv_${side}_${dt}_${ly}_${d}"
  timeout "$limit" "$dir/hiprim" check --require-gpu --suite "${CONV_SUITES:-smoke,edge,resnet50}" --batch 2 --dtype "$dt" \
    --layout "$ly" --dir "$d" --report "$OUT/$name.json" > "$OUT/$name.log" 2>&1
  echo "$name rc=$? ($(tail -n 1 "$OUT/$name.log"))"
}
export -f chunk
export BASE NEW OUT limit CONV_SUITES
start=$(date +%s)
if [ "${SKIP_CONV:-0}" != 1 ]; then
  for dt in $(echo "${DTYPES:-fp32,fp16,bf16}" | tr ',' ' '); do
    for ly in $(echo "${LAYOUTS:-nchw,nhwc}" | tr ',' ' '); do
      for d in $(echo "${DIRS:-fwd,bwd-data,bwd-weights}" | tr ',' ' '); do
        for side in base new; do echo "$side $dt $ly $d"; done
      done
    done
  done | xargs -P "$jobs" -L 1 bash -c 'chunk "$@"' _
fi
echo "conv chunks: $(( $(date +%s) - start )) s"
if [ "${SKIP_OPS:-0}" != 1 ]; then
  for side in base new; do
    [ "$side" = base ] && dir=$BASE || dir=$NEW
    timeout "$limit" "$dir/hiprim" check --require-gpu --suite smoke_ops,ops --report "$OUT/ops_$side.json" \
      > "$OUT/ops_$side.log" 2>&1
    echo "$side ops check rc=$? ($(tail -n 1 "$OUT/ops_$side.log"))"
  done
fi
python3 - "$OUT" <<'PY' | tee "$OUT/verdicts_diff.txt"
import collections, glob, json, os, sys
out = sys.argv[1]
def cases(paths):
    got, missing = {}, []
    for p in paths:
        try:
            d = json.load(open(p))
        except Exception as e:
            missing.append(f"{os.path.basename(p)} ({e.__class__.__name__})"); continue
        for c in d["cases"]:
            got[(c["problem"], c["solver"])] = c["status"]
    return got, missing
for what in ("conv", "ops"):
    logs = sorted(glob.glob(f"{out}/{what}_base*.log"))
    if not logs:
        continue
    rep = {}
    for side in ("base", "new"):
        paths = [l.replace("_base", "_" + side)[:-4] + ".json" for l in logs]
        rep[side], missing = cases(paths)
        if missing:
            print(f"{what} {side}: no report from {len(missing)} of {len(paths)} runs: {', '.join(missing)}")
    a, b = rep["base"], rep["new"]
    only_a, only_b = set(a) - set(b), set(b) - set(a)
    diff = [(k, a[k], b[k]) for k in sorted(set(a) & set(b)) if a[k] != b[k]]
    print(f"{what}: {len(a)} base cases, {len(b)} new cases, {len(set(a) & set(b))} shared, "
          f"{len(diff)} with a different status, {len(only_a)} only in base, {len(only_b)} only in new")
    print("  base statuses:", dict(collections.Counter(a.values())), " new statuses:", dict(collections.Counter(b.values())))
    for k, x, y in diff[:20]:
        print(f"  DIFF {k[1]} {k[0]}: {x} -> {y}")
    for k in sorted(only_a)[:5]: print(f"  only base: {k[1]} {k[0]}")
    for k in sorted(only_b)[:5]: print(f"  only new: {k[1]} {k[0]}")
PY
