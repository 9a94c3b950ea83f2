#!/usr/bin/env bash
# Fuzzing on the GPU machine (the H200), from the repository root, with the binaries in $BIN
# (default devbin/, built by scripts/device_build.sh). Writes two files into $OUT:
#   fuzz_h200.json          the GPU campaign's fuzz report (kind "fuzz"): every conv.* solver fuzzed for
#                           $FUZZ_TIME (default 90s) against the GPU naive oracle (conv.naive checks the
#                           exact-tier cases; 5% of them, the bounded-tier and the special-value cases
#                           go to the CPU reference), with campaign.throughput comparing it to a
#                           CPU-oracle campaign of $CPU_TIME (default 30s) on the same solvers, and
#                           campaign.corpus_found listing the shrunk repro lines of its failures.
#   fuzz_mutants_h200.json  the GPU mutants (tests/fuzz/mutant_gpu.hip: missing barrier, dropped
#                           tail, bf16 truncation) hunted by the fuzzer: catch rate, cases to catch,
#                           shrunk sizes; the control kernel must survive.
# Usage: OUT=/some/dir scripts/device_fuzz.sh    (FUZZ_TIME=90s CPU_TIME=30s SEED=1 BIN=devbin)
set -u
BIN=${BIN:-devbin}
OUT=${OUT:-out}
FUZZ_TIME=${FUZZ_TIME:-90s}
CPU_TIME=${CPU_TIME:-30s}
SEED=${SEED:-1}
mkdir -p "$OUT"
tmp=$(mktemp -d /tmp/device_fuzz.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1

echo "== GPU campaign: conv.* for $FUZZ_TIME, GPU naive oracle + sampled CPU checks"
timeout 400 "$BIN/hiprim" fuzz --op conv --solver 'conv.*' --time "$FUZZ_TIME" --seed "$SEED" --oracle gpu --cpu-check-rate 0.05 \
  --report "$tmp/gpu_oracle.json" --corpus "$tmp/corpus" > "$tmp/gpu_oracle.log" 2>&1
echo "hiprim fuzz (gpu oracle) rc=$? (1 = failures found)"
tail -n 60 "$tmp/gpu_oracle.log"

echo "== throughput reference: the same solvers for $CPU_TIME with the CPU oracle only"
timeout 200 "$BIN/hiprim" fuzz --op conv --solver 'conv.*' --time "$CPU_TIME" --seed "$SEED" --oracle cpu \
  --report "$tmp/cpu_oracle.json" > "$tmp/cpu_oracle.log" 2>&1
echo "hiprim fuzz (cpu oracle) rc=$?"
grep -E '^(solver|conv\.)' "$tmp/cpu_oracle.log" | head -20

echo "== GPU mutants"
HIPRIM_FUZZ_MUTANT_REPORT="$OUT/fuzz_mutants_h200.json" timeout 600 "$BIN/test_fuzz_gpu" --gtest_brief=1 2>&1 | tail -n 30
echo "test_fuzz_gpu rc=${PIPESTATUS[0]}"

# One report: the GPU campaign's, with the throughput comparison and the corpus lines it found.
if [ -f "$tmp/gpu_oracle.json" ]; then
  if command -v python3 >/dev/null; then
    python3 - "$tmp" "$OUT/fuzz_h200.json" <<'PY'
import glob, json, os, sys
tmp, out = sys.argv[1], sys.argv[2]
g = json.load(open(os.path.join(tmp, "gpu_oracle.json")))
c = json.load(open(os.path.join(tmp, "cpu_oracle.json"))) if os.path.exists(os.path.join(tmp, "cpu_oracle.json")) else None
per = lambda r: {t["solver"]: t["cases"] / max(1e-9, r["campaign"]["seconds"] - r["campaign"]["shrink_seconds"]) for t in r["campaign"]["targets"]}
g["campaign"]["throughput"] = {
    "gpu_oracle_cases_per_second": g["campaign"]["cases_per_second"],
    "gpu_oracle_per_solver": per(g),
    "cpu_oracle_cases_per_second": c["campaign"]["cases_per_second"] if c else None,
    "cpu_oracle_per_solver": per(c) if c else None,
    "cpu_oracle_cases": c["campaign"]["cases"] if c else None,
    "cpu_oracle_failures": c["campaign"]["failures"] if c else None,
}
g["campaign"]["corpus_found"] = [open(f).read().strip() for f in sorted(glob.glob(os.path.join(tmp, "corpus", "*.repro")))]
json.dump(g, open(out, "w"), indent=1)
t = g["campaign"]["throughput"]
print("throughput: gpu oracle %.1f cases/s, cpu oracle %s cases/s" % (t["gpu_oracle_cases_per_second"], t["cpu_oracle_cases_per_second"]))
PY
  else
    cp "$tmp/gpu_oracle.json" "$OUT/fuzz_h200.json"
  fi
fi
ls -l "$OUT"
