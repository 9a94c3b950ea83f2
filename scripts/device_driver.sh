#!/usr/bin/env bash
# MIOpenDriver lines on the GPU machine: real MIOpenDriver command lines (MIOpen's driver README,
# its test CMake files and perf models, LogCmd lines; batch sizes cut so the CPU reference stays
# quick) run through `hiprim driver`, i.e. every applicable GPU solver of each direction the line
# means, verified against the CPU reference. Also checks that bnormfp16's fp16 parameters
# (scale=fp16 stats=fp16) are refused by the GPU bnorm solvers with their reason and pass on ref.bnorm.
# Run from the repository root with devbin/ (scripts/device_build.sh hiprim) copied there. About 1-2 min.
# Writes $OUT/driver_lines.log (every case line) and prints a summary table last.
set -uo pipefail
cd "$(dirname "$0")/.."
H="${HIPRIM:-devbin/hiprim}"
OUT="${OUT:-/tmp/driver_out}"
mkdir -p "$OUT"
LOG="$OUT/driver_lines.log"
: > "$LOG"
lines=(
  "./bin/MIOpenDriver conv -n 4 -c 3 -H 32 -W 32 -k 32 -x 5 -y 5 -p 2 -q 2"
  "./bin/MIOpenDriver convfp16 -W 32 -H 32 -c 3 -k 32 -x 5 -y 5 -p 2 -q 2 -s 0 -F 1 -n 4"
  "./bin/MIOpenDriver convbfp16 -W 32 -H 32 -c 3 -k 32 -x 5 -y 5 -p 2 -q 2 -s 0 -F 1 -n 4"
  "MIOpenDriver convfp16 --batchsize 2 --spatial_dim 2 --pad_h 1 --pad_w 1 --pad_d 0 --conv_stride_h 1 --conv_stride_w 1 --conv_stride_d 0 --dilation_h 1 --dilation_w 1 --dilation_d 0 --group_count 1 --mode conv --pad_mode default --trans_output_pad_h 0 --trans_output_pad_w 0 --trans_output_pad_d 0 --out_layout NCHW --in_d 1 --in_h 14 --in_w 14 --fil_d 1 --fil_h 3 --fil_w 3 --in_channels 256 --out_channels 256 --forw 1"
  "MIOpenDriver conv --batchsize 2 --spatial_dim 2 --pad_h 0 --pad_w 0 --conv_stride_h 2 --conv_stride_w 2 --group_count 1 --mode conv --in_h 28 --in_w 28 --fil_h 1 --fil_w 1 --in_channels 128 --out_channels 256 --forw 4"
  "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver convbfp16 -n 2 -c 64 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 --in_layout NHWC --fil_layout NHWC --out_layout NHWC -m conv -g 1 -F 2 -t 1"
  "MIOpenDriver conv -m trans -x 3 -y 3 -W 27 -H 27 -c 3 -n 2 -k 16 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -g 1 -F 0 -V 1"
  "MIOpenDriver convfp16 -n 1 -c 16 --in_d 8 -H 16 -W 16 -k 16 --fil_d 3 -y 3 -x 3 --pad_d 1 -p 1 -q 1 --conv_stride_d 1 -u 1 -v 1 --dilation_d 1 -l 1 -j 1 --spatial_dim 3 -m conv -g 1 -F 1 -t 1"
  "MIOpenDriver bnorm -F 1 -n 8 -c 64 -H 16 -W 16 -m 1 -s 1 -r 1"
  "MIOpenDriver bnorm -n 8 -c 64 -H 16 -W 16 -m 1 --forw 0 -b 1 -r 1"
  "MIOpenDriver bnormfp16fp32 -n 8 -c 64 -H 16 -W 16 -m 1 --forw 2 -b 0 -r 1 --layout NHWC"
  "MIOpenDriver bnormfp16 -n 8 -c 64 -H 16 -W 16 -m 1 --forw 1"
  "MIOpenDriver pool -M 0 --input 2x64x56x56,200704x3136x56x1 -y 3 -x 3 -p 1 -q 1 -v 2 -u 2 -m max -F 0 -t 1"
  "MIOpenDriver poolfp16 -M 0 --input 1x3x227x63,42903x14301x63x1 -y 30 -x 30 -p 0 -q 0 -v 1 -u 1 -m avg -F 0 -t 1 -i 1"
  "MIOpenDriver lrn -n 2 -c 96 -H 27 -W 27 -m cross -N 5 -A 0.0001 -B 0.75 -K 1"
  "MIOpenDriver activfp16 -n 8 -c 64 -H 28 -W 28 -m 3"
  "MIOpen(HIP): Command [LogCmdSoftmax] ./bin/MIOpenDriver softmax -n 16 -c 1000 -H 1 -W 1 -F 1 -a 2 -m 1 -A 1.000000 -B 0.000000"
  "MIOpenDriver tensorop -n 8 -c 64 -H 28 -W 28 -o 2 -A 1 -B 1 -G 0"
  "MIOpenDriver reducefp16 -D 16,256,7,7 -R 2,3 -O 5"
)
declare -A rc_of
pass=0
fail=0
for l in "${lines[@]}"; do
  echo "=== $l" >> "$LOG"
  "$H" driver "$l" >> "$LOG" 2>&1
  rc=$?
  rc_of["$l"]=$rc
  if [ $rc -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
# bnormfp16: the GPU bnorm solvers refuse fp16 parameters with a reason; ref.bnorm passes.
echo "=== bnormfp16 GPU refusal" >> "$LOG"
"$H" list solvers --problem "bnorm fwd-train spatial fp16 nchw n8 c64 in16x16 eps0.001 momentum1 scale=fp16 stats=fp16" >> "$LOG" 2>&1
refusals=$(grep -c "scale=/stats= not fp32" "$LOG")
echo
echo "line                                                                      exit"
for l in "${lines[@]}"; do printf '%-72.72s %4s\n' "$l" "${rc_of[$l]}"; done
echo
echo "lines: ${#lines[@]}  exit 0: $pass  nonzero: $fail  (expected: all 0)"
echo "GPU bnorm solvers refusing scale=/stats= (expected 3: multiblock, block_group, thread_group): $refusals"
grep -E "^(failed|mistrusted|error) " "$LOG" | head -20
