#!/usr/bin/env bash
# Register and spill report of the op kernels (gpu/<name>/*.hip for every row of core/primitives.def,
# in name order), made HERE with the same nvcc flags as the build plus -Xptxas -v, one line per
# kernel: registers, spill stores/loads (bytes), demangled name with fp16/bf16 shortened.
# Writes reports/cpu/ops_ptxas.txt (committed beside the kernels it describes) and prints it.
# Usage: scripts/ops_ptxas_report.sh [OUTFILE]   (about 5 minutes of nvcc on two cores)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-reports/cpu/ops_ptxas.txt}"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d /tmp/ops_ptxas.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
{
  echo "# nvcc -Xptxas -v of the op kernels, sm_90 ($("$nvcc" --version | tail -1)), git $(git rev-parse --short HEAD)"
  echo "# regs  spill st/ld (bytes)  kernel"
  ops=$(sed -n 's/^HIPRIM_PRIMITIVE(\([a-z0-9_]*\),.*/\1/p' core/primitives.def | sort)
  for f in $(for op in $ops; do echo gpu/"$op"/*.hip; done); do
    echo "## $f"
    "$nvcc" -O3 -std=c++20 --expt-relaxed-constexpr --generate-code=arch=compute_90,code=sm_90 -I. -x cu -c "$f" \
      -o "$tmp/k.o" -Xptxas -v 2>&1 | python3 -c '
import re, subprocess, sys
props, order, ent = {}, [], None
for l in sys.stdin:
    m = re.search(r"(?:Compiling entry function|Function properties for) .?(_Z\w+)", l)
    if m:
        ent = m.group(1)
        if ent not in props: props[ent] = {}; order.append(ent)
        continue
    m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", l)
    if m and ent: props[ent]["spill"] = (m.group(1), m.group(2))
    m = re.search(r"Used (\d+) registers", l)
    if m and ent: props[ent]["regs"] = m.group(1)
names = subprocess.run(["c++filt"], input="\n".join(order), capture_output=True, text=True).stdout.splitlines()
for e, d in zip(order, names):
    p = props[e]
    if "regs" not in p: continue
    d = re.sub(r"hiprim::gpu::\(anonymous namespace\)::", "", d)
    d = re.sub(r"\(.*$", "", d).replace("__nv_bfloat16", "bf16").replace("__half", "fp16")
    st, ld = p.get("spill", ("0", "0"))
    regs = p["regs"]
    print(f"{regs:>4}  {st:>5}/{ld:<5}  {d}")
'
  done
} > "$out"
cat "$out"
