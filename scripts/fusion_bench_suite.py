#!/usr/bin/env python3
"""Writes bench/suites/resnet50_fusion_bf16_nhwc.txt from verify/suites/resnet50_layers.txt: per unique
ResNet-50 v1.5 layer at batch 32, bf16 NHWC, the plain conv (a fusion of conv alone), conv+bias+ReLU
and conv+bias+add+ReLU (BN folded into the bias, as an inference graph runs it), and conv+bias for the
projection shortcuts (scripts/resnet50_inference.py: which chain each conv runs in the network).
Usage: scripts/fusion_bench_suite.py > bench/suites/resnet50_fusion_bf16_nhwc.txt"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from resnet50_inference import ROLES  # noqa: E402

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
rows = [l.split() for l in open(os.path.join(root, "verify/suites/resnet50_layers.txt")) if l.strip() and not l.startswith("#")]
print("# ResNet-50 v1.5 inference blocks at batch 32, bf16 NHWC, BN folded into the conv's bias (what a fused")
print("# inference graph runs): per unique layer the plain conv (a fusion of conv alone), conv+bias+ReLU and")
print("# conv+bias+add+ReLU (the residual block's last conv), conv+bias (the projection shortcuts). For")
print("# `hiprim bench --op fusion --suite <this file>`; scripts/resnet50_inference.py sums a report of it")
print("# into the whole-net inference time.")
print("# generated from verify/suites/resnet50_layers.txt by scripts/fusion_bench_suite.py.")
for c, k, h, w, r, s, st, pad, _count in rows:
    conv = f"conv(n32 c{c} k{k} in{h}x{w} f{r}x{s} pad{pad}x{pad} str{st}x{st} dil1x1 g1)"
    chains = ["", " bias activ(relu)", " bias add(alpha1 beta1) activ(relu)"]
    if "bias" in ROLES[(int(c), int(k), int(h), int(r), int(st))]:
        chains.append(" bias")
    for chain in chains:
        print(f"fusion fwd bf16 nhwc {conv}{chain}")
