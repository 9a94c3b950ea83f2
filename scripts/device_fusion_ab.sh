#!/usr/bin/env bash
# A/B timing of two builds' fusion.igemm.wgmma on the same GPU in one call (issue 14): BASE and NEW are
# directories holding a hiprim binary (or a .tar.xz of one). The lines of
# bench/suites/resnet50_fusion_bf16_nhwc.txt matching FILTER (a grep -E regex; default: every line)
# are benched by BASE, NEW, BASE, NEW (`hiprim bench --op fusion --peer none`, every output verified
# in full, 2 repeats each), so a clock drift shows as a BASE/BASE or NEW/NEW difference; then a table
# per problem: each run's median and NEW/BASE of the means.
# Output in $OUT: ab_<i>_<base|new>.json / .log, ab.txt (the table).
# Usage: OUT=... BASE=devbase NEW=devbin FILTER='c512 k2048|c2048 k512' scripts/device_fusion_ab.sh
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT}" "${BASE:?set BASE to the base build directory}" "${NEW:?set NEW to the new build directory}"
mkdir -p "$OUT"
for d in "$BASE" "$NEW"; do
  for a in "$d"/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C "$d" && rm -f "$a"; done
  [ -x "$d/hiprim" ] || { echo "no hiprim binary in $d"; exit 2; }
done
suite="$OUT/suite.txt"
grep -v '^#' bench/suites/resnet50_fusion_bf16_nhwc.txt | grep -E "${FILTER:-.}" > "$suite"
echo "$(wc -l < "$suite") problems; base $("$BASE/hiprim" --version), new $("$NEW/hiprim" --version)"
i=0
for side in base new base new; do
  i=$((i + 1))
  bin=$BASE
  [ "$side" = new ] && bin=$NEW
  timeout "${LIMIT_S:-200}" "$bin/hiprim" bench --op fusion --suite "$suite" --solver fusion.igemm.wgmma --peer none --repeats 2 \
    --report "$OUT/ab_${i}_$side.json" > "$OUT/ab_${i}_$side.log" 2>&1
  echo "run $i ($side) rc=$? $(grep -E '^cases:' "$OUT/ab_${i}_$side.log" | tail -1)"
done
python3 - "$OUT" <<'PY' | tee "$OUT/ab.txt"
import json, sys, os
out = sys.argv[1]
runs = []
for i, side in enumerate(["base", "new", "base", "new"], 1):
    p = os.path.join(out, f"ab_{i}_{side}.json")
    t = {}
    if os.path.exists(p):
        for c in json.load(open(p)).get("cases", []):
            ms = (c.get("timing") or {}).get("median_ms")
            if c.get("status") == "passed" and ms:
                t[c["problem"]] = ms * 1000
    runs.append((side, t))
probs = [l.strip() for l in open(os.path.join(out, "suite.txt")) if l.strip()]
print(f"{'problem':100} {'base1':>7} {'new1':>7} {'base2':>7} {'new2':>7} {'new/base':>8}")
for p in probs:
    v = [r[1].get(p) for r in runs]
    b = [x for x in (v[0], v[2]) if x]
    n = [x for x in (v[1], v[3]) if x]
    ratio = f"{(sum(n) / len(n)) / (sum(b) / len(b)):8.3f}" if b and n else "       -"
    cells = " ".join(f"{x:7.1f}" if x else "      -" for x in v)
    print(f"{p[21:121]:100} {cells} {ratio}")
PY
