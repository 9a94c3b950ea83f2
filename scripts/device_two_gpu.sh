#!/usr/bin/env bash
# Issue 19's run, for a machine with two GPUs (nvidia-h200-x2 / nvidia-h100-x2), from the repository root
# with devbin/ made by `scripts/device_build.sh hiprim`: the same conv + ops fuzz campaign and the same
# resnet50 conformance suite on 1 and on 2 GPUs in one call, each a merged report (per-worker GPU names
# under merged_from, lost_workers), and the throughput of each: cases/s of the fuzz campaign (its report),
# cases/s of the check (its cases over the wall time).
#   FUZZ_S (default 60: 2 x 60 s per device count), JOBS (workers per GPU, default 4), BATCH (resnet50, default 2)
set -u
cd "$(dirname "$0")/.."
: "${OUT:?}"
for a in devbin/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C devbin && rm -f "$a"; done
FUZZ_S="${FUZZ_S:-60}" JOBS="${JOBS:-4}" BATCH="${BATCH:-2}"
devbin/hiprim --version > "$OUT/build_version.txt" 2>&1
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/nvidia_smi.txt" 2>&1
cat "$OUT/nvidia_smi.txt"
for n in 1 2; do
  for op in conv pool; do
    timeout $(( FUZZ_S + 120 )) devbin/hiprim fuzz --op "$op" --solver "$op.*" --time "$FUZZ_S" --devices "$n" --jobs-per-device "$JOBS" \
      --require-gpu --report "$OUT/fuzz_${op}_${n}gpu.json" > "$OUT/fuzz_${op}_${n}gpu.log" 2>&1
    echo "fuzz $op on $n GPU(s) rc=$?"
  done
  start=$(date +%s.%N)
  timeout 500 devbin/hiprim check --require-gpu --suite resnet50 --batch "$BATCH" --devices "$n" --report "$OUT/check_resnet50_${n}gpu.json" \
    > "$OUT/check_resnet50_${n}gpu.log" 2>&1
  rc=$?
  echo "$(date +%s.%N) - $start" | bc > "$OUT/check_resnet50_${n}gpu.seconds"
  echo "check resnet50 on $n GPU(s) rc=$rc ($(cat "$OUT/check_resnet50_${n}gpu.seconds") s)"
done
python3 - "$OUT" <<'PY' | tee "$OUT/scaling.txt"
import json, os, sys
out = sys.argv[1]
def load(name):
    p = os.path.join(out, name)
    return json.load(open(p)) if os.path.exists(p) else None
for op in ("conv", "pool"):
    row = []
    for n in (1, 2):
        r = load(f"fuzz_{op}_{n}gpu.json")
        c = r["campaign"] if r else {}
        row.append(f"{n} GPU: {c.get('cases', 0)} cases, {c.get('failures', '?')} failures, {c.get('cases_per_second', 0):.1f} cases/s, devices {sorted({w['device'] for w in (r or {}).get('workers', [])})}, lost {len((r or {}).get('lost_workers', []))}")
    print(f"fuzz {op}: " + " | ".join(row) + (f" | scaling x{load(f'fuzz_{op}_2gpu.json')['campaign']['cases_per_second'] / max(1e-9, load(f'fuzz_{op}_1gpu.json')['campaign']['cases_per_second']):.2f}" if load(f'fuzz_{op}_1gpu.json') and load(f'fuzz_{op}_2gpu.json') else ""))
rates = {}
for n in (1, 2):
    r = load(f"check_resnet50_{n}gpu.json")
    secs = float(open(os.path.join(out, f"check_resnet50_{n}gpu.seconds")).read() or 0) if os.path.exists(os.path.join(out, f"check_resnet50_{n}gpu.seconds")) else 0
    if r:
        s = r["summary"]
        rates[n] = s["total"] / secs if secs else 0
        print(f"check resnet50 {n} GPU: {json.dumps(s)} in {secs:.1f} s = {rates[n]:.1f} cases/s; workers: "
              + ", ".join(f"{w['worker']} (device {w['device']})" for w in r.get("workers", []))
              + " on " + ", ".join(sorted({m.get("gpu") or "?" for m in r.get("merged_from", [])})) + f"; lost {len(r.get('lost_workers', []))}")
if 1 in rates and 2 in rates and rates[1]:
    print(f"check resnet50 scaling 1 -> 2 GPUs: x{rates[2] / rates[1]:.2f}")
PY
