#!/usr/bin/env bash
# Whether a change to conv.igemm.wgmma's kernel headers left the library's kernels alone: compiles a
# few production kernels (default template arguments: no IgemmMutant, gpu/conv/igemm_sm90_mutant.hpp)
# to PTX from git REF (default HEAD) and from the working tree, and compares each kernel's PTX with
# its own symbol (and function-local statics) normalised and the defaulted mutant argument dropped
# from its name. ptxas is deterministic, so identical PTX means identical SASS. Exit 0: all identical.
# Usage: scripts/sm90_ptx_unchanged.sh [REF]     (here, nvcc only; about a minute on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
ref=${1:-HEAD}
tmp=$(mktemp -d /tmp/sm90_ptx.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/before"
git archive "$ref" gpu core reference | tar -x -C "$tmp/before"
cat > "$tmp/kernels.cu" <<'EOF'
#include "gpu/conv/igemm_sm90_launch.hpp"
namespace s = hiprim::gpu::sm90;
void* kernels[] = {
  (void*)s::igemm_sm90_kernel<hiprim_bf16_t, 128, 128, s::IgemmDir::fwd, true, true>,
  (void*)s::igemm_sm90_kernel<hiprim_bf16_t, 128, 128, s::IgemmDir::fwd, false, false>,
  (void*)s::igemm_sm90_kernel<hiprim_bf16_t, 128, 128, s::IgemmDir::fwd, true, true, true>,
  (void*)s::igemm_sm90_kernel<__half, 64, 128, s::IgemmDir::bwd_weights, true, true>,
  (void*)s::igemm_sm90_kernel<__half, 64, 64, s::IgemmDir::bwd_data, true, false>,
  (void*)s::igemm_sm90_reduce<hiprim_bf16_t, 1>,
  (void*)s::igemm_sm90_reduce<hiprim_bf16_t, 8>,
};
EOF
flags=(-O3 -DNDEBUG -gencode=arch=compute_90a,code=compute_90a --expt-relaxed-constexpr -std=c++20 -x cu -ptx)
nvcc "${flags[@]}" -I"$tmp/before" "$tmp/kernels.cu" -o "$tmp/before.ptx" &
nvcc "${flags[@]}" -I. "$tmp/kernels.cu" -o "$tmp/after.ptx"
wait
python3 - "$tmp/before.ptx" "$tmp/after.ptx" "$ref" <<'PY'
import re, subprocess, sys
def kernels(path):
    parts = re.split(r'\n(?=(?:\.visible )?\.entry )', open(path).read())
    out = {}
    for p in parts[1:]:
        name = re.match(r'(?:\.visible )?\.entry (\S+)\(', p).group(1)
        key = subprocess.run(['c++filt', name], capture_output=True, text=True).stdout.strip()
        key = re.sub(r', \(hiprim::gpu::sm90::IgemmMutant\)0', '', key)
        body = re.sub(r'\n\s*// \.globl.*', '', p.replace(name, 'KERNEL'))
        out[key] = re.sub(r'_ZZ\w+EE(\d+)([A-Za-z_]\w*)', r'LOCAL_\2', body)
    return out
a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
bad = 0
for k in sorted(a):
    same = b.get(k) == a[k]
    bad += not same
    print('%-9s %6d PTX lines  %s' % ('identical' if same else 'DIFFERENT', len(a[k].splitlines()), k.split('(')[0]))
print('%d kernels, %d different from %s' % (len(a), bad, sys.argv[3]))
sys.exit(1 if bad or len(a) != len(b) else 0)
PY
