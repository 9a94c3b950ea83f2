#!/usr/bin/env bash
# One GPU-machine call that checks a round of work on conv, fusion, the library and the op kernels
# (~9 minutes), from the repository root with devbin/ made by
#   scripts/device_build.sh hiprim test_api_device hiprim_shared test_ops_speed_sweep
# Steps (each script prints its own PASS/FAIL lines; every timed output is verified in full first):
#   1 conv     hiprim check, exact tier, smoke + edge x fp16/bf16 NHWC over conv.igemm.wgmma (the kernels' edges),
#              and smoke + edge + resnet50 (batch 2) x fp16/bf16 NCHW over conv.igemm.wgmma.nchw
#   2 bench    ResNet-50 over BENCH_COMBOS (default bf16:nhwc), three directions, against the graph-API cuDNN
#              peer (device_bench.sh custom, REPEATS 2), then the PyTorch cross-check per combo (TORCH_S)
#   3 fusion   device_fusion.sh: the fusion solvers over smoke_ops + fusion (exact, bounded), the fusion suite
#              per config of FUSION_CONFIGS, a fuzz campaign (FUZZ_S), the ResNet-50 fused bench
#   4 library  device_library.sh: test_api_device, the Python tests, the training client (STEPS)
#   5 ops      device_ops_speed.sh within OPS_S
#   6 find     device_find.sh: Find, tuning and immediate mode on ResNet-50 bf16 NHWC (FIND_LAYERS, default all
#              23 layers per direction; TUNE_LAYERS, default 5; FIND_S / TUNE_S / FIND2_S limits per direction)
#   7 sweep    the conv.igemm.wgmma sweep (test_gpu_igemm_sm90 IgemmSweep.ResNet50Layers, every config verified
#              exactly against conv.naive, then graph-replay timed): SWEEP_SET (e.g. staged), SWEEP_DIRS
#              (default fwd,bwd-data), SWEEP_LAYERS (layer lines "C K H W R S stride pad count", ';'-separated),
#              SWEEP_S (no new problem after it, default 200)
#   8 gates    test_gpu_igemm_sm90: the wgmma probes, IgemmGemm.*, IgemmConv.* (every direction and lowering
#              against the CPU reference), compute-sanitizer memcheck on the probes + IgemmConv.SanitizerSubset
#   9 grouped  conv.direct.grouped: hiprim check smoke + edge x fp32/fp16/bf16 NHWC (exact and bounded tiers), a GPU fuzz
#              campaign with special values (GFUZZ_S), test_gpu's GpuConvDirectGrouped.* and its memcheck (devbin from
#              scripts/device_build.sh ... test_gpu)
#   9b gbench  conv.direct.grouped on bench/suites/grouped_bf16_nhwc.txt (MobileNetV2 depthwise, ResNeXt-50 g32, batch 32,
#              every direction) against the graph-API peer, every timed output verified in full (GBENCH_S limit)
#   9f gtune  hiprim tune of conv.direct.grouped's configs on the same suite (GTUNE_S; not recorded): each config's time (the log's lines
#              survive a timeout; the report does not)
#   9d isimt  conv.igemm.simt: the same gate as grouped over smoke + edge + resnet50 (batch 2) fp32 NHWC, memcheck on
#              hiprim check of the smoke suite
#   9e stune  hiprim tune of conv.igemm.simt's configs on ResNet-50 fp32 NHWC at batch 32 (STUNE_DIRS, STUNE_S per direction;
#              not recorded), every config verified before it is timed; STUNE_PROBLEMS (';'-separated problem
#              strings, STUNE_SOLVER) tunes those instead
#   9c simt   the SIMT/fp32 GEMM solvers (conv.gemm.*): hiprim check smoke + edge x fp32/fp16/bf16 x NCHW/NHWC and
#              resnet50 (batch 2) fp32, exact tier; test_gpu_gemm's Gemm* (incl. conv.gemm.implicit's stride-1
#              bwd-data) and memcheck on the implicit solver's fixed problems (devbin: ... test_gpu_gemm)
#  10 ncu      ncu --clock-control none per NCU_CASES entry ("problem|config", ';'-separated): speed of light,
#              occupancy, memory workload of every kernel of IgemmSweep.Profile's fifth run
# BENCH_COMBOS: comma-separated combos for the bench part.
# PARTS picks the steps (default "conv bench fusion library ops"; e.g. PARTS="library find").
# Everything lands in $OUT/all.tgz (few files come back from the machine).
set -u
cd "$(dirname "$0")/.."
: "${OUT:?}"
for a in devbin/*.tar.xz; do [ -f "$a" ] && tar -xJf "$a" -C devbin && rm -f "$a"; done
W=$(mktemp -d /tmp/round.XXXXXX)
start=$(date +%s)
# mark STEP: the archive so far (a call cut short still brings back what finished), then the step's name.
mark() { ( cd "$W" && tar -czf "$OUT/all.tgz" . ); echo "== $1 at $(( $(date +%s) - start )) s"; }
PARTS=" ${PARTS:-conv bench fusion library ops} "
want() { [[ "$PARTS" == *" $1 "* ]]; }
devbin/hiprim --version > "$W/build_version.txt" 2>&1  # the binaries' build (the tree here may lack .git)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$W/nvidia_smi.txt" 2>&1
if want conv; then
mark conv
mkdir -p "$W/conv"
timeout 60 devbin/hiprim check --require-gpu --suite smoke,edge --dtype fp16,bf16 --layout nhwc --solver conv.igemm.wgmma \
  --report "$W/conv/conformance_wgmma.json" > "$W/conv/check.log" 2>&1
echo "conv check rc=$?"; grep -E "^conv.igemm|^total" "$W/conv/check.log"
# conv.igemm.wgmma.nchw: NCHW through transposed copies, the same suites plus resnet50 at batch 2
timeout 120 devbin/hiprim check --require-gpu --suite smoke,edge,resnet50 --batch 2 --dtype fp16,bf16 --layout nchw \
  --solver conv.igemm.wgmma.nchw --report "$W/conv/conformance_wgmma_nchw.json" > "$W/conv/check_nchw.log" 2>&1
echo "conv nchw check rc=$?"; grep -E "^conv.igemm|^total" "$W/conv/check_nchw.log"
fi
if want bench; then
mark bench
mkdir -p "$W/conv"
: "${BENCH_COMBOS:=bf16:nhwc}"
# The solver of the combos' layouts (conv.igemm.wgmma takes NHWC, conv.igemm.wgmma.nchw NCHW), so no
# layout's problems count as unsupported cases of the other; BENCH_SOLVER overrides.
case ",$BENCH_COMBOS," in
  *nchw*nhwc*|*nhwc*nchw*) bench_solver='conv.igemm.*' ;;
  *nchw*) bench_solver='conv.igemm.wgmma.nchw' ;;
  *) bench_solver='conv.igemm.wgmma' ;;
esac
OUT="$W/conv" COMBOS="${BENCH_COMBOS:-bf16:nhwc}" DIRS=fwd,bwd-data,bwd-weights REPEATS=2 BENCH_LIMIT_S="${BENCH_S:-110}" \
  SOLVER="${BENCH_SOLVER:-$bench_solver}" scripts/device_bench.sh custom > "$W/conv/stdout_bench.log" 2>&1
grep -E "^dtype|^(bf16|fp16|fp32) |cases:" "$W/conv/stdout_bench.log" | tail -12
for combo in ${BENCH_COMBOS//,/ }; do
  dt=${combo%%:*} lay=${combo#*:}
  timeout $(( ${TORCH_S:-20} + 25 )) python3 scripts/torch_crosscheck.py --batch 32 --dtype "$dt" --layout "$lay" --what conv \
    --time-budget "${TORCH_S:-20}" --bench "$W/conv/perf_resnet50_partcustom_h200.json" \
    --out "$W/conv/torch_conv_${dt}_${lay}.json" > "$W/conv/torch_${dt}_${lay}.log" 2>&1
  echo "torch $combo rc=$?"; grep -E "^dtype|^$dt " "$W/conv/torch_${dt}_${lay}.log" | tail -4
done
fi
if want fusion; then
mark fusion
OUT="$W/fusion" CONFIGS="${FUSION_CONFIGS:-m128n128k64.s4.splitk1 m128n64k64.s4.splitk1.ws.tma m64n128k64.s4.splitk3.ws.tma}" \
  FUZZ_S="${FUZZ_S:-20}" BENCH_SUITE=bench/suites/resnet50_fusion_bf16_nhwc.txt BENCH_LIMIT_S="${FUSION_BENCH_S:-110}" \
  scripts/device_fusion.sh 2>&1 | tail -16
fi
if want library; then
mark library
OUT="$W/library" SPLIT="${SPLIT:-}" STEPS="${STEPS:-300}" scripts/device_library.sh 2>&1 | tail -16
fi
if want ops; then
mark ops
OUT="$W/ops" BIN=devbin TOTAL_BUDGET_S="${OPS_S:-170}" scripts/device_ops_speed.sh > "$W/ops_stdout.log" 2>&1
tail -60 "$W/ops_stdout.log"
fi
if want find; then
mark find
OUT="$W/find" BIN=devbin LAYERS="${FIND_LAYERS:-0}" TUNE_LAYERS="${TUNE_LAYERS:-5}" FIND_S="${FIND_S:-100}" TUNE_S="${TUNE_S:-40}" \
  FIND2_S="${FIND2_S:-30}" scripts/device_find.sh > "$W/find_stdout.log" 2>&1
grep -E "^find: |^tune: |^  [a-z_0-9]+ +exit|within 10%" "$W/find_stdout.log" | tail -30
fi
if want gates; then
mark gates
mkdir -p "$W/gates"
T=devbin/test_gpu_igemm_sm90
timeout 150 $T --gtest_filter='*WgmmaProbe.*:IgemmGemm.*:IgemmConv.*:-IgemmConv.SanitizerSubset' > "$W/gates/gates.log" 2>&1
echo "gates rc=$?"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" "$W/gates/gates.log" | head -20
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $T --gtest_filter='*WgmmaProbe.*:IgemmConv.SanitizerSubset' \
  > "$W/gates/memcheck.log" 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$W/gates/memcheck.log" | tail -4
fi
if want gbench; then  # conv.direct.grouped against the peer on the grouped/depthwise suite
mark gbench
mkdir -p "$W/gbench"
( source scripts/cudnn_env.sh
  timeout $(( ${GBENCH_S:-90} + 90 )) devbin/hiprim bench --suite bench/suites/grouped_bf16_nhwc.txt --solver conv.direct.grouped \
    --peer cudnn --repeats 2 --reps 20 --replays 5 --budget-ms 60 --verify full --peer-max-plans 24 \
    --time-limit "${GBENCH_S:-90}" --report "$W/gbench/perf_grouped_h200.json" > "$W/gbench/bench.log" 2>&1
  echo "gbench rc=$?" )
[ -f "$W/gbench/perf_grouped_h200.json" ] && devbin/hiprim report markdown "$W/gbench/perf_grouped_h200.json" \
  -o "$W/gbench/perf_grouped_h200.md" --no-charts > /dev/null 2>&1
grep -E "cases:|^seconds|total" "$W/gbench/bench.log" | tail -6
fi
if want gtune; then  # conv.direct.grouped: every perf config (gather, rows.q2, rows.q4) of the grouped suite, verified, timed
mark gtune
mkdir -p "$W/gtune"
timeout "${GTUNE_S:-120}" devbin/hiprim tune --suite bench/suites/grouped_bf16_nhwc.txt --solver conv.direct.grouped \
  --time-budget-ms 10 --no-record --report "$W/gtune/tune_grouped.json" > "$W/gtune/tune.log" 2>&1
echo "gtune rc=$?"; grep -E "^tuned|^tune:" "$W/gtune/tune.log" | tail -40
fi
if want simt; then  # the SIMT tiled GEMM's solvers (fp32 path) and conv.gemm.implicit's flipped bwd-data
mark simt
mkdir -p "$W/simt"
timeout 150 devbin/hiprim check --require-gpu --suite smoke,edge --dtype fp32,fp16,bf16 --layout nchw,nhwc --solver 'conv.gemm.*' \
  --report "$W/simt/conformance_gemm.json" > "$W/simt/check.log" 2>&1
echo "simt check rc=$?"; grep -E "^conv.gemm|^total" "$W/simt/check.log"
timeout 150 devbin/hiprim check --require-gpu --suite resnet50 --batch 2 --dtype fp32 --layout nchw,nhwc \
  --solver 'conv.gemm.1x1,conv.gemm.implicit,conv.gemm.im2col' --report "$W/simt/conformance_gemm_resnet50.json" \
  > "$W/simt/check_resnet50.log" 2>&1
echo "simt check resnet50 rc=$?"; grep -E "^conv.gemm|^total" "$W/simt/check_resnet50.log"
timeout 150 devbin/test_gpu_gemm --gtest_filter='Gemm*' > "$W/simt/test_gpu.log" 2>&1
echo "simt test_gpu rc=$?"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" "$W/simt/test_gpu.log" | head -10
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 devbin/test_gpu_gemm --gtest_filter='GemmConvImplicit.FwdExactAgainstReference' \
  > "$W/simt/memcheck.log" 2>&1
echo "simt memcheck rc=$?"; grep -E "ERROR SUMMARY" "$W/simt/memcheck.log" | tail -2
fi
if want sweep; then
mark sweep
mkdir -p "$W/sweep"
[ -n "${SWEEP_LAYERS:-}" ] && { tr ';' '\n' <<< "$SWEEP_LAYERS" > "$W/sweep/layers.txt"; SWEEP_LAYERS="$W/sweep/layers.txt"; }
env HIPRIM_IGEMM_SWEEP=1 HIPRIM_IGEMM_SWEEP_SET="${SWEEP_SET:-}" HIPRIM_IGEMM_SWEEP_DIRS="${SWEEP_DIRS:-fwd,bwd-data}" \
  HIPRIM_IGEMM_SWEEP_SECONDS="${SWEEP_S:-200}" HIPRIM_IGEMM_SWEEP_OUT="$W/sweep/sweep_h200.csv" \
  ${SWEEP_LAYERS:+"HIPRIM_IGEMM_SWEEP_LAYERS=$SWEEP_LAYERS"} \
  timeout $(( ${SWEEP_S:-200} + 60 )) devbin/test_gpu_igemm_sm90 --gtest_filter='IgemmSweep.ResNet50Layers' \
  > "$W/sweep/sweep.log" 2>&1
echo "sweep rc=$?"; grep -E "best|whole net|  (fwd|bwd)|FAIL" "$W/sweep/sweep.log" | tail -60
fi
# solver_gate TAG SOLVER DTYPES SUITES TEST_FILTER [LAYOUTS]: hiprim check of SOLVER over SUITES (batch 2) x DTYPES x LAYOUTS
# (default nhwc), exact and
# bounded tiers; a GPU fuzz campaign with special values (GFUZZ_S); test_gpu's TEST_FILTER (when not "-") and compute-sanitizer
# memcheck (on TEST_FILTER, else on hiprim check of the smoke suite).
solver_gate() {
  local tag=$1 solver=$2 dtypes=$3 suites=$4 filter=$5 layouts=${6:-nhwc}
  mark "$tag"
  mkdir -p "$W/$tag"
  local batch=()  # (hiprim check refuses --batch when no selected suite reads it)
  [[ ",$suites," == *,resnet50,* ]] && batch=(--batch 2)
  for fill in exact bounded; do
    timeout 150 devbin/hiprim check --require-gpu --suite "$suites" "${batch[@]}" --dtype "$dtypes" --layout "$layouts" --solver "$solver" \
      --fill "$fill" --report "$W/$tag/conformance_$fill.json" > "$W/$tag/check_$fill.log" 2>&1
    echo "$tag check $fill rc=$?"; grep -E "^conv\.|^total" "$W/$tag/check_$fill.log"
  done
  timeout 120 devbin/hiprim fuzz --op conv --solver "$solver" --time "${GFUZZ_S:-30}s" --seed 11 --oracle gpu --size auto \
    --cpu-check-rate 0.05 --devices all --jobs-per-device 8 --report "$W/$tag/fuzz.json" --corpus "$W/$tag/corpus" \
    > "$W/$tag/fuzz.log" 2>&1
  echo "$tag fuzz rc=$? (1 = failures found)"; grep -vE '^\[(gpu|worker)' "$W/$tag/fuzz.log" | tail -8
  if [ "$filter" != "-" ]; then
    timeout 120 devbin/test_gpu --gtest_filter="$filter" > "$W/$tag/test_gpu.log" 2>&1
    echo "$tag rc=$?"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" "$W/$tag/test_gpu.log" | head -10
    timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 devbin/test_gpu --gtest_filter="$filter" \
      > "$W/$tag/memcheck.log" 2>&1
  else
    timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 devbin/hiprim check --require-gpu --suite smoke \
      --dtype "$dtypes" --layout "$layouts" --solver "$solver" > "$W/$tag/memcheck.log" 2>&1
  fi
  echo "$tag memcheck rc=$?"; grep -E "ERROR SUMMARY" "$W/$tag/memcheck.log" | tail -2
}
# conv.direct.grouped; needs devbin/test_gpu unless GROUPED_TESTS=- (memcheck then runs over hiprim check of the smoke suite)
want grouped && solver_gate grouped conv.direct.grouped fp32,fp16,bf16 smoke,edge "${GROUPED_TESTS:-GpuConvDirectGrouped.*}"
# conv.igemm.simt (fp32 NHWC)
want isimt && solver_gate isimt 'conv.igemm.simt*' fp32 smoke,edge,resnet50 - nhwc,nchw
if want stune; then  # conv.igemm.simt: every perf config of the ResNet-50 layers at batch 32, fp32 NHWC (STUNE_S per direction)
mark stune
mkdir -p "$W/stune"
if [ -n "${STUNE_PROBLEMS:-}" ]; then  # ';'-separated problem strings instead of the suite (STUNE_S each)
  IFS=';' read -ra probs <<< "$STUNE_PROBLEMS"
  for i in "${!probs[@]}"; do
    timeout "${STUNE_S:-50}" devbin/hiprim tune "${probs[$i]}" --solver "${STUNE_SOLVER:-conv.igemm.simt}" --time-budget-ms 10 \
      --budget-s "$(( ${STUNE_S:-50} - 10 ))" --no-record --report "$W/stune/tune_p$i.json" > "$W/stune/tune_p$i.log" 2>&1
    echo "stune p$i rc=$?"; grep -vE '^tune \[' "$W/stune/tune_p$i.log" | tail -n 4
  done
else
for d in ${STUNE_DIRS:-fwd bwd-data bwd-weights}; do
  timeout "${STUNE_S:-50}" devbin/hiprim tune --suite resnet50 --batch 32 --dtype fp32 --layout nhwc --dir "$d" \
    --solver conv.igemm.simt --time-budget-ms 10 --no-record --report "$W/stune/tune_$d.json" > "$W/stune/tune_$d.log" 2>&1
  echo "stune $d rc=$?"; grep -vE '^tune \[' "$W/stune/tune_$d.log" | tail -n 30
done
fi
fi
if want ncu; then
mark ncu
mkdir -p "$W/ncu"
IFS=';' read -ra cases <<< "${NCU_CASES:-}"
for i in "${!cases[@]}"; do
  prob="${cases[$i]%%|*}" cfg="${cases[$i]#*|}"
  { echo "== $prob | $cfg"
    HIPRIM_IGEMM_PROFILE="$prob" HIPRIM_CONV_CONFIG="$cfg" timeout 60 ncu --clock-control none --launch-count 6 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
      devbin/test_gpu_igemm_sm90 --gtest_filter='IgemmSweep.Profile' 2>&1 | grep -vE "^==PROF==|Note:"
  } > "$W/ncu/case$i.txt" 2>&1
  grep -E "^== |^  [a-z_]+.*\(|Duration|Memory Throughput|DRAM Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Grid Size" \
    "$W/ncu/case$i.txt" | tail -40
done
fi
mark done
( cd "$W" && tar -czf "$OUT/all.tgz" . ) && rm -rf "$W"
ls -l "$OUT"
