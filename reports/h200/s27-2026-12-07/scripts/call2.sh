#!/usr/bin/env bash
# Session 27, call 2: rnn.mma's exact-mode check (wgmma P on layer 0) and fuzz; ncu of the fp16 NHWC batch
# norm kernels where PyTorch (cuDNN) is faster, and of PyTorch's own kernels on the same problems.
set -u
for a in devbin/*.tar.xz; do [ -f $a ] && tar -xJf $a -C devbin && rm -f $a; done
S=$OUT/summary2.txt
devbin/hiprim --version | head -1 > $S
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $S
grep -E '^rnn ' verify/suites/rnn_mma.txt | grep -v math=h16 > /tmp/r.txt
timeout 100 devbin/hiprim check --require-gpu --suite /tmp/r.txt --solver 'rnn.mma.*' --report $OUT/check_mma.json > /tmp/cm.log 2>&1
echo "check_mma rc=$?" >> $S; tail -8 /tmp/cm.log >> $S
timeout 70 devbin/hiprim fuzz --op rnn --solver 'rnn.mma.fwd' --time 25 --seed 11 --devices all --jobs-per-device 8 --require-gpu \
  --shrink-runs 100 --report $OUT/fuzz_rnn_mma.json > /tmp/fz.log 2>&1
echo "fuzz rc=$? (0 clean)" >> $S; grep -E '^rnn.mma|cases|fail' /tmp/fz.log | head -5 >> $S
P=spatial\ fp16\ nhwc\ n32
J="bnorm fwd-train $P c256 in28x28 eps1e-05 momentum0.1|bnorm.spatial.persistent|bnorm"
J="$J;bnorm fwd-train $P c256 in14x14 eps1e-05 momentum0.1|bnorm.spatial.tile|bnorm"
J="$J;bnorm bwd $P c256 in28x28 eps1e-05|bnorm.spatial.persistent|bnorm"
J="$J;bnorm fwd-train $P c64 in112x112 eps1e-05 momentum0.1|bnorm.spatial.persistent|bnorm"
mkdir -p $OUT/ncu
OUT=$OUT/ncu NCU_VIA=run NCU_JOBS="$J" scripts/device_ncu_kernels.sh >> $S 2>&1
cat > /tmp/tbn.py <<'PY'
import torch, torch.nn.functional as F
for c, hw in ((256, 28), (256, 14), (64, 112)):
    x = torch.randn(32, c, hw, hw, device='cuda', dtype=torch.half).to(memory_format=torch.channels_last).requires_grad_()
    w = torch.ones(c, device='cuda', requires_grad=True); b = torch.zeros(c, device='cuda', requires_grad=True)
    rm = torch.zeros(c, device='cuda'); rv = torch.ones(c, device='cuda')
    y = F.batch_norm(x, rm, rv, w, b, training=True)
    y.backward(torch.randn_like(y))
    torch.cuda.synchronize()
PY
timeout 150 ncu --clock-control none -k 'regex:(?i)(bn_|batch_norm|norm)' --launch-count 9 --section SpeedOfLight --section LaunchStats \
  --section Occupancy --section MemoryWorkloadAnalysis python3 /tmp/tbn.py > $OUT/ncu/ncu_torch_bn.txt 2>&1
echo "torch ncu rc=$?" >> $S
grep -E '^  [a-zA-Z_].*\(|Duration|Grid Size|Block Size|Registers Per|Dynamic Shared|DRAM Throughput' $OUT/ncu/ncu_torch_bn.txt | head -60 >> $S
echo done2 >> $S
