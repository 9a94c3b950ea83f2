#!/usr/bin/env bash
# One GPU-machine call for the CTC loss (issue 18: ctc.alpha_beta, gpu/ctc/), from the repository root
# with devbin/ made here by
#   scripts/device_build.sh hiprim test_gpu_ops_ctc
# Steps (each under its own time limit; reports and logs under $OUT/ctc, packed into $OUT/ctc.tgz):
#   1. hiprim check --require-gpu on the ctc lines of smoke_ops and of ops (ops' in fp32, fp16, bf16):
#      every output judged against reference/ctc.hpp's fp32 bound           -> check_smoke.json, check_ops.json
#   2. test_gpu_ops_ctc (the device tests: the same problems, the data rules' NaN) -> test_gpu_ops_ctc.log
#   3. hiprim fuzz --op ctc --solver 'ctc.*' for FUZZ_S seconds (default 60), every GPU, large sizes,
#      shrunk failures into corpus/                                       -> fuzz_ctc.json, fuzz.log
#   4. compute-sanitizer memcheck and racecheck over the smoke ctc lines  -> sanitizer_{memcheck,racecheck}.log
#   5. hiprim bench --op ctc on bench/suites/ctc.txt (every timed output verified in full first; BENCH_S,
#      default 120) and PyTorch's F.ctc_loss + autograd.grad on the same strings (scripts/torch_crosscheck.py
#      --problems --kernels; CUDA-graph replay, or CUDA events where capture fails: the rows' `timing`; each call's kernels
#      under torch.profiler: which library ran, and its summed GPU kernel time), joined
#      -> perf_ctc.json, torch_ctc.json, bench.log, torch.log (T=200 N=32 C=100 L=50 is the suite's first line)
# Usage on the device: OUT=/path scripts/device_ctc.sh   (optional: FUZZ_S=60 BENCH_S=120 TORCH_S=120 STEPS=check,test,fuzz,sanitize,bench)
set -u
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder the reports go to}"
for a in devbin/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C devbin && rm -f "$a"; done
W="$OUT/ctc"
mkdir -p "$W"
start=$(date +%s)
steps=",${STEPS:-check,test,fuzz,sanitize,bench},"
devbin/hiprim --version > "$W/build_version.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$W/nvidia_smi.txt" 2>&1
pack() { ( cd "$OUT" && tar -czf "$OUT/ctc.tgz" ctc ); }
elapsed() { echo "$(( $(date +%s) - start )) s"; }

# The ctc problems of the built-in suites as suite files (ops.txt's lines in its three dtypes, as its generator makes them).
grep '^ctc ' verify/suites/smoke_ops.txt > "$W/suite_smoke_ctc.txt"
for dt in fp32 fp16 bf16; do grep '^ctc ' verify/suites/ops.txt | sed -E "s/^ctc (fp32|fp16|bf16) /ctc $dt /"; done > "$W/suite_ops_ctc.txt"

if [[ $steps == *,check,* ]]; then
  echo "== 1. check ($(elapsed))"
  for s in smoke ops; do
    timeout 300 devbin/hiprim check --require-gpu --suite "$W/suite_${s}_ctc.txt" --solver 'ctc.*' --report "$W/check_$s.json" > "$W/check_$s.log" 2>&1
    echo "check $s rc=$? $(grep -E '^total|passed|failed' "$W/check_$s.log" | tail -2 | tr '\n' ' ')"
  done
  pack
fi

if [[ $steps == *,test,* ]] && [ -x devbin/test_gpu_ops_ctc ]; then
  echo "== 2. device tests ($(elapsed))"
  timeout 300 devbin/test_gpu_ops_ctc --gtest_brief=1 > "$W/test_gpu_ops_ctc.log" 2>&1
  echo "test_gpu_ops_ctc rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$W/test_gpu_ops_ctc.log" | tr '\n' ' ')"
  pack
fi

if [[ $steps == *,fuzz,* ]]; then
  echo "== 3. fuzz ${FUZZ_S:-60} s ($(elapsed))"
  timeout $(( ${FUZZ_S:-60} + 90 )) devbin/hiprim fuzz --op ctc --solver 'ctc.*' --time "${FUZZ_S:-60}" --seed 1 --size large \
    --devices all --jobs-per-device 8 --require-gpu --shrink-runs 200 --report "$W/fuzz_ctc.json" --corpus "$W/corpus" > "$W/fuzz.log" 2>&1
  echo "fuzz rc=$? (0 clean; 1 failures found, or no GPU)"; grep -vE '^\[(gpu|worker)' "$W/fuzz.log" | grep -E "ctc|case|fail|repro" | head -12
  pack
fi

if [[ $steps == *,sanitize,* ]]; then
  echo "== 4. compute-sanitizer ($(elapsed))"
  for tool in memcheck racecheck; do
    timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 99 devbin/hiprim check --suite "$W/suite_smoke_ctc.txt" --solver 'ctc.*' \
      --report "$W/sanitizer_$tool.json" > "$W/sanitizer_$tool.log" 2>&1
    echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$W/sanitizer_$tool.log" | tail -1)"
  done
  pack
fi

if [[ $steps == *,bench,* ]]; then
  echo "== 5. bench vs PyTorch ($(elapsed))"
  timeout $(( ${BENCH_S:-120} + 120 )) devbin/hiprim bench --op ctc --suite bench/suites/ctc.txt --solver 'ctc.*' --peer none --repeats 3 \
    --time-limit "${BENCH_S:-120}" --report "$W/perf_ctc.json" > "$W/bench.log" 2>&1
  echo "bench rc=$?"; tail -15 "$W/bench.log" | cut -c1-200
  bench_arg=()
  [ -f "$W/perf_ctc.json" ] && bench_arg=(--bench "$W/perf_ctc.json")
  timeout $(( ${TORCH_S:-120} + 60 )) python3 scripts/torch_crosscheck.py --problems bench/suites/ctc.txt --replays 5 --target-ms 5 \
    --time-budget "${TORCH_S:-120}" --kernels --out "$W/torch_ctc.json" "${bench_arg[@]}" > "$W/torch.log" 2>&1
  echo "torch rc=$?"; tail -20 "$W/torch.log" | cut -c1-200
  pack
fi
echo "== done ($(elapsed)); reports in $W and $OUT/ctc.tgz"
