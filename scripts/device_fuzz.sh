#!/usr/bin/env bash
# Fuzzing on the GPU machine (the H200), from the repository root, with the binaries in $BIN
# (default devbin/, built by scripts/device_build.sh). Writes two files into $OUT:
#   fuzz_h200.json          the GPU campaign's fuzz report (kind "fuzz"): every conv.* solver fuzzed for
#                           $FUZZ_TIME (default 90s) on large problems against the GPU naive oracle
#                           (conv.naive checks the exact-tier cases; 5% of them, the bounded-tier and
#                           the special-value cases go to the CPU reference; conv.naive itself gets
#                           small problems and the CPU reference), by $JOBS worker processes
#                           sharing the GPU (default 8; the host's cores fill inputs and compare).
#                           campaign.throughput compares cases/s with two CPU-oracle campaigns of
#                           $CPU_TIME (default 20s) on the same solvers and workers: the same large
#                           sizes, and the small sizes; campaign.corpus_found lists the shrunk repro
#                           lines of the failures.
#   fuzz_mutants_h200.json  the GPU mutants (tests/fuzz/mutant_gpu.hip: missing barrier, dropped
#                           tail, bf16 truncation) hunted by the fuzzer: catch rate, cases to catch,
#                           shrunk sizes; the control kernel must survive.
# Usage: OUT=/some/dir scripts/device_fuzz.sh    (FUZZ_TIME=90s CPU_TIME=20s JOBS=8 SEED=1 BIN=devbin;
#        SOLVER='conv.*' and ORACLE=gpu can be changed to try the script without a GPU, e.g.
#        SOLVER=ref.conv.fast ORACLE=cpu)
set -u
BIN=${BIN:-devbin}
OUT=${OUT:-out}
FUZZ_TIME=${FUZZ_TIME:-90s}
CPU_TIME=${CPU_TIME:-20s}
JOBS=${JOBS:-8}
SEED=${SEED:-1}
SOLVER=${SOLVER:-conv.*}
ORACLE=${ORACLE:-gpu}
mkdir -p "$OUT"
tmp=$(mktemp -d /tmp/device_fuzz.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1
workers=(--devices all --jobs-per-device "$JOBS")

echo "== campaign: $SOLVER for $FUZZ_TIME, oracle $ORACLE (large sizes where the GPU oracle checks), $JOBS workers per GPU"
timeout 400 "$BIN/hiprim" fuzz --op conv --solver "$SOLVER" --time "$FUZZ_TIME" --seed "$SEED" --oracle "$ORACLE" --size auto \
  --cpu-check-rate 0.05 "${workers[@]}" --report "$tmp/main.json" --corpus "$tmp/corpus" > "$tmp/main.log" 2>&1
echo "hiprim fuzz rc=$? (1 = failures found)"
grep -vE '^\[(gpu|worker)' "$tmp/main.log" | tail -n 80

for size in large small; do
  echo "== throughput reference: CPU oracle, $size sizes, $CPU_TIME"
  timeout 200 "$BIN/hiprim" fuzz --op conv --solver "$SOLVER" --time "$CPU_TIME" --seed "$SEED" --oracle cpu --size "$size" \
    "${workers[@]}" --report "$tmp/cpu_$size.json" > "$tmp/cpu_$size.log" 2>&1
  echo "hiprim fuzz (cpu oracle, $size) rc=$?"
done

echo "== GPU mutants"
HIPRIM_FUZZ_MUTANT_REPORT="$OUT/fuzz_mutants_h200.json" timeout 600 "$BIN/test_fuzz_gpu" --gtest_brief=1 2>&1 | tail -n 30
echo "test_fuzz_gpu rc=${PIPESTATUS[0]}"

# One report: the main campaign's, with the throughput comparison and the corpus lines it found.
if [ -f "$tmp/main.json" ]; then
  if command -v python3 >/dev/null; then
    python3 - "$tmp" "$OUT/fuzz_h200.json" "$JOBS" <<'PY'
import glob, json, os, sys
tmp, out, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def load(name):
    p = os.path.join(tmp, name)
    return json.load(open(p)) if os.path.exists(p) else None
def rates(r):
    if not r:
        return None
    c = r["campaign"]
    per = {t["solver"]: t["cases"] / max(1e-9, c["seconds"] - c["shrink_seconds"] / max(1, len(c.get("shards", [0])))) for t in c["targets"]}
    return {"oracle": c.get("oracle"), "cases": c["cases"], "failures": c["failures"], "seconds": c["seconds"],
            "cases_per_second": c["cases_per_second"], "per_solver_cases_per_second": per}
main = load("main.json")
main["campaign"]["throughput"] = {"workers_per_gpu": jobs, "gpu_oracle_large": rates(main),
                                  "cpu_oracle_large": rates(load("cpu_large.json")), "cpu_oracle_small": rates(load("cpu_small.json"))}
main["campaign"]["corpus_found"] = [open(f).read().strip() for f in sorted(glob.glob(os.path.join(tmp, "corpus", "*.repro")))]
json.dump(main, open(out, "w"), indent=1)
for k, v in main["campaign"]["throughput"].items():
    if isinstance(v, dict):
        print("throughput %-17s %8.1f cases/s (%d cases)" % (k, v["cases_per_second"], v["cases"]))
PY
  else
    cp "$tmp/main.json" "$OUT/fuzz_h200.json"
  fi
fi
ls -l "$OUT"
