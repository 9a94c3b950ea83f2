#!/usr/bin/env bash
# s31 call 2 (build 4d2d86d): conv1_1 bwd-weights after the staged runs' sum, the edge-free dy loads and the ".ring" configs: bench of
# conv.winograd.fused.* (default r64.s16.reg) and conv.igemm.simt against cuDNN's best fp32 plan, PyTorch's cuDNN on
# the same problem, tune of every fused config; ncu --set full of the D-in-registers kernel (details, and the SASS
# lines with the most stall samples); check / sanitizers / fuzz of the fused solvers (in the order they run: bench, torch,
# tune, check, sanitizers, ncu, fuzz). Summary in $OUT/summary.txt.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary.txt
{ devbin/hiprim --version | head -1; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $S
W='conv bwd-weights fp32 nhwc n32 c3 k64 in224x224 f3x3 pad1x1 str1x1 dil1x1 g1'
printf '%s\n' "$W" > devbin/lines.txt
echo "== bench" >> $S
OUT=$OUT OPS_SPEED=0 WINOGRAD=1 WINO_PARTS=bench WINO_SUITE_FILE=devbin/lines.txt WINO_BENCH_S=60 WINO_PEER_PLANS=6 \
  WINO_BENCH_SOLVERS='conv.winograd.fused.f4x3,conv.winograd.fused.f2x3,conv.igemm.simt' FUZZ_T=0 scripts/device_ops_round.sh >> $S 2>&1
mv $OUT/all.tgz $OUT/bench.tgz 2>/dev/null
echo "== torch ($SECONDS s)" >> $S
printf '%s\n' '3 64 224 224 3 3 1 1 1' > /tmp/layers.txt
B=$(ls /tmp/ops_round.*/winograd/perf_winograd.json 2>/dev/null | head -1)
timeout 60 python3 scripts/torch_crosscheck.py --what conv --layers-file /tmp/layers.txt --batch 32 --dtype fp32 --layout nhwc \
  --dir bwd-weights --out $OUT/torch_crosscheck.json ${B:+--bench $B} > /tmp/torch.log 2>&1
echo "torch rc=$?" >> $S; cut -c1-220 /tmp/torch.log | tail -6 >> $S
echo "== tune ($SECONDS s)" >> $S
timeout 60 devbin/hiprim tune --no-record "$W" --solver 'conv.winograd.fused.f4x3' --time-budget-ms 30 --report $OUT/tune_fused_wgrad.json 2>&1 \
  | grep -E '^tune \[|^tuned' | cut -c1-220 >> $S
echo "== check ($SECONDS s)" >> $S
timeout 90 devbin/hiprim check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp32 --layout nchw,nhwc --solver 'conv.winograd.fused.*' \
  --report $OUT/conformance_fused.json > /tmp/check.log 2>&1; echo "check rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/check.log >> $S
timeout 60 devbin/hiprim check --require-gpu --suite edge --dtype fp16,bf16 --layout nchw,nhwc --solver 'conv.winograd.fused.*' \
  --report $OUT/conformance_fused16.json > /tmp/c16.log 2>&1; echo "check 16-bit rc=$?" >> $S; grep -E '^conv.winograd|^total' /tmp/c16.log >> $S
echo "== racecheck, memcheck ($SECONDS s)" >> $S
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 devbin/hiprim check --suite smoke --solver 'conv.winograd.fused.*' > /tmp/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san_$tool.log | tail -1) $(grep -E '^total' /tmp/san_$tool.log)" >> $S
done
echo "== ncu full ($SECONDS s)" >> $S
HIPRIM_SOLVER=conv.winograd.fused.f4x3 timeout 150 ncu --clock-control none --set full -k "regex:wino_" --launch-count 2 -o $OUT/reg \
  devbin/hiprim run "$W" --config r64.s16.reg --no-determinism-check > /tmp/ncu_run.txt 2>&1; echo "ncu rc=$?" >> $S
ncu -i $OUT/reg.ncu-rep --page details > /tmp/ncu_details.txt 2>&1
grep -E "^  [a-z_]+.*\(|Duration|Executed Ipc|Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Stall|L1/TEX Hit|L2 Hit|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Block Limit|Executed Instructions  |Theoretical Occ|Mem Busy|Max Bandwidth|Mem Pipes|FMA|ALU|LSU|Shared" /tmp/ncu_details.txt | cut -c1-160 | head -120 >> $S
ncu -i $OUT/reg.ncu-rep -k regex:wino_fused_wgrad_reg --page source --csv --print-source sass > /tmp/ncu_src.csv 2>/dev/null
python3 - /tmp/ncu_src.csv >> $S <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
hdr = next((i for i, r in enumerate(rows) if any("Source" == c for c in r)), None)
if hdr is None:
    print("no source table"); sys.exit()
h = rows[hdr]; body = [r for r in rows[hdr + 1:] if len(r) == len(h)]
src = h.index("Source")
col = next((i for i, c in enumerate(h) if c.startswith("Warp Stall Sampling (All")), None)
ex = next((i for i, c in enumerate(h) if c.startswith("Instructions Executed")), None)
print("columns:", [c for c in h][:40])
def num(v):
    try: return float(v.replace(",", ""))
    except ValueError: return 0.0
tot = sum(num(r[col]) for r in body) or 1
print(f"source lines {len(body)}, stall samples {tot:.0f}")
for r in sorted(body, key=lambda r: -num(r[col]))[:45]:
    print(f"{100*num(r[col])/tot:5.1f}%  exec {r[ex] if ex is not None else '-':>10}  {r[src][:110]}")
# totals by opcode
from collections import Counter
c = Counter(); e = Counter()
for r in body:
    op = r[src].split()[0] if r[src].split() else "?"
    if op.startswith("@"): op = r[src].split()[1] if len(r[src].split()) > 1 else op
    op = op.split(".")[0]
    c[op] += num(r[col]); e[op] += num(r[ex]) if ex is not None else 0
print("by opcode (stall %, executed):")
for op, v in c.most_common(25): print(f"  {op:10s} {100*v/tot:5.1f}%  {e[op]:.0f}")
PY
echo "-- ncu r64.s16.ring ($SECONDS s)" >> $S
HIPRIM_SOLVER=conv.winograd.fused.f4x3 timeout 40 ncu --clock-control none -k "regex:wino_" --launch-count 2 --section SpeedOfLight --section Occupancy \
  --section LaunchStats devbin/hiprim run "$W" --config r64.s16.ring --no-determinism-check > /tmp/ncu_ring.txt 2>&1
grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Dynamic Shared" /tmp/ncu_ring.txt | cut -c1-150 >> $S
echo "== fuzz ($SECONDS s)" >> $S
timeout 60 devbin/hiprim fuzz --op conv --solver 'conv.winograd.fused.*' --time 15 --devices all --jobs-per-device 8 --require-gpu --seed 312 \
  --report $OUT/fuzz_fused.json > /tmp/fuzz.log 2>&1; echo "fuzz rc=$?" >> $S; grep -A3 '^solver' /tmp/fuzz.log | head -4 >> $S
gzip -f /tmp/ncu_details.txt; tar -czf $OUT/logs.tgz -C /tmp check.log c16.log fuzz.log san_memcheck.log san_racecheck.log torch.log ncu_run.txt ncu_ring.txt ncu_details.txt.gz 2>/dev/null
gzip -f $OUT/reg.ncu-rep 2>/dev/null
echo "done ($SECONDS s)" >> $S
