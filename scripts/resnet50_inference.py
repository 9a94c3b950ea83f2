#!/usr/bin/env python3
"""ResNet-50 v1.5 inference at batch 32 with every batch norm folded into its conv's bias: which fused
chain each of the 53 convolutions runs (torchvision's bottleneck: conv1 1x1 and conv2 3x3 take
bias+ReLU, conv3 1x1 takes bias + the residual add + ReLU, the projection shortcut takes bias only,
the stem bias+ReLU), keyed by the conv of verify/suites/resnet50_layers.txt.

As a script: reads a `hiprim bench --op fusion` JSON report (gz or plain) of
bench/suites/resnet50_fusion_bf16_nhwc.txt and prints the whole-net inference time, hiprim's fused
chains against the peer's (cuDNN's fused graph) measured in the same run, summed with these counts,
plus hiprim's plain conv total (the same layers unfused epilogue-free) for the fusion overhead.
Usage: scripts/resnet50_inference.py perf_fusion_h200.json[.gz] [--json out.json]"""
import gzip
import json
import sys

# (C, K, H, R, stride) -> {chain: count}; chain "relu" = bias activ(relu), "add" = bias add activ(relu),
# "bias" = bias alone (the projection shortcut). 33 relu + 16 add + 4 bias = 53 convolutions.
ROLES = {
    (3, 64, 224, 7, 2): {"relu": 1},
    (64, 64, 56, 1, 1): {"relu": 1},
    (64, 64, 56, 3, 1): {"relu": 3},
    (64, 256, 56, 1, 1): {"add": 3, "bias": 1},
    (256, 64, 56, 1, 1): {"relu": 2},
    (256, 128, 56, 1, 1): {"relu": 1},
    (128, 128, 56, 3, 2): {"relu": 1},
    (128, 512, 28, 1, 1): {"add": 4},
    (256, 512, 56, 1, 2): {"bias": 1},
    (512, 128, 28, 1, 1): {"relu": 3},
    (128, 128, 28, 3, 1): {"relu": 3},
    (512, 256, 28, 1, 1): {"relu": 1},
    (256, 256, 28, 3, 2): {"relu": 1},
    (256, 1024, 14, 1, 1): {"add": 6},
    (512, 1024, 28, 1, 2): {"bias": 1},
    (1024, 256, 14, 1, 1): {"relu": 5},
    (256, 256, 14, 3, 1): {"relu": 5},
    (1024, 512, 14, 1, 1): {"relu": 1},
    (512, 512, 14, 3, 2): {"relu": 1},
    (512, 2048, 7, 1, 1): {"add": 3},
    (1024, 2048, 14, 1, 2): {"bias": 1},
    (2048, 512, 7, 1, 1): {"relu": 2},
    (512, 512, 7, 3, 1): {"relu": 2},
}
CHAINS = {"": "conv", " bias activ(relu)": "relu", " bias add(alpha1 beta1) activ(relu)": "add", " bias": "bias"}


def key_of(problem):
    """(C, K, H, R, stride) and the chain name of a fusion problem string of the bench suite."""
    conv = problem[problem.index("conv(") + 5:problem.index(")")]
    tok = {}
    for t in conv.split():
        for name in ("str", "in", "c", "k", "f"):
            if t.startswith(name) and t[len(name):len(name) + 1].isdigit():
                tok.setdefault(name, t[len(name):])
                break
    key = (int(tok["c"]), int(tok["k"]), int(tok["in"].split("x")[0]), int(tok["f"].split("x")[0]),
           int(tok["str"].split("x")[0]))
    return key, CHAINS.get(problem[problem.index(")") + 1:], "?")


def peer_ms(case):
    p = case.get("peer") or {}
    if p.get("status") != "timed":
        return None
    return p["timing"]["median_ms"]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rep = json.load(f)
    cases = {}
    for c in rep["cases"]:
        if c.get("status") != "passed" or not c.get("best", True):
            continue
        cases[key_of(c["problem"])] = c
    tot = {"hiprim_fused_ms": 0.0, "peer_fused_ms": 0.0, "hiprim_plain_ms": 0.0, "convs": 0}
    missing = []
    for key, roles in ROLES.items():
        for chain, count in roles.items():
            fused, plain = cases.get((key, chain)), cases.get((key, "conv"))
            if not fused or peer_ms(fused) is None or not plain:
                missing.append(f"{key} {chain}")
                continue
            tot["hiprim_fused_ms"] += count * fused["time_ms"]
            tot["peer_fused_ms"] += count * peer_ms(fused)
            tot["hiprim_plain_ms"] += count * plain["time_ms"]
            tot["convs"] += count
    tot["missing"] = missing
    if tot["hiprim_fused_ms"] > 0:
        tot["peer_over_hiprim"] = tot["peer_fused_ms"] / tot["hiprim_fused_ms"]
        tot["fused_over_plain"] = tot["hiprim_fused_ms"] / tot["hiprim_plain_ms"]
    print(f"ResNet-50 inference (BN folded, batch 32), {tot['convs']} of 53 convolutions: hiprim fused "
          f"{tot['hiprim_fused_ms']:.3f} ms, cuDNN fused graph {tot['peer_fused_ms']:.3f} ms "
          f"(peer/hiprim x{tot.get('peer_over_hiprim', 0):.3f}); hiprim plain convs {tot['hiprim_plain_ms']:.3f} ms "
          f"(fused/plain x{tot.get('fused_over_plain', 0):.3f})")
    if missing:
        print("missing (not passed, no timed peer, or no plain conv):", ", ".join(missing))
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(tot, f, indent=1)


if __name__ == "__main__":
    main()
