#!/usr/bin/env bash
# The same-verdict check of a redesign on the GPU machine: two builds (BASE, NEW: directories holding
# a hiprim binary) run the same conformance suites over every solver, and every case's status must
# agree. Suites: smoke + edge + resnet50 (batch 2) over the conv solvers in fp32/fp16/bf16 x NCHW/NHWC,
# and the op suites (smoke_ops, ops). Writes each build's reports and verdicts_diff.txt to $OUT.
# Usage: OUT=... BASE=devbase NEW=devbin scripts/device_same_verdicts.sh   (LIMIT_S per check, default 120;
# CONV_SUITES, default smoke,edge,resnet50; DTYPES, LAYOUTS of the generated suites; SKIP_OPS=1 leaves the
# op suites out)
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?}" "${BASE:?}" "${NEW:?}"
limit=${LIMIT_S:-120}
for side in BASE NEW; do
  dir=${!side}
  for a in "$dir"/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C "$dir"; done
  name=$(echo "$side" | tr 'A-Z' 'a-z')
  timeout "$limit" "$dir/hiprim" check --require-gpu --suite "${CONV_SUITES:-smoke,edge,resnet50}" --batch 2 --dtype "${DTYPES:-fp32,fp16,bf16}" \
    --layout "${LAYOUTS:-nchw,nhwc}" --report "$OUT/conv_$name.json" > "$OUT/conv_$name.log" 2>&1
  echo "$side conv check rc=$? ($(tail -n 1 "$OUT/conv_$name.log"))"
  [ "${SKIP_OPS:-0}" = 1 ] && continue
  timeout "$limit" "$dir/hiprim" check --require-gpu --suite smoke_ops,ops --report "$OUT/ops_$name.json" \
    > "$OUT/ops_$name.log" 2>&1
  echo "$side ops check rc=$? ($(tail -n 1 "$OUT/ops_$name.log"))"
done
python3 - "$OUT" <<'PY' | tee "$OUT/verdicts_diff.txt"
import json, sys, collections
out = sys.argv[1]
for what in ("conv", "ops"):
    rep = {}
    for side in ("base", "new"):
        try:
            d = json.load(open(f"{out}/{what}_{side}.json"))
        except Exception as e:
            print(f"{what} {side}: no report ({e})"); rep = None; break
        rep[side] = {(c["problem"], c["solver"]): c["status"] for c in d["cases"]}
    if rep is None:
        continue
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
