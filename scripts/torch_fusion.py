"""PyTorch's unfused sequence for hiprim's fusion strings (reports/README.md, "Fused chains"): the
cross-check of the bench's fused-graph peer (cuDNN's conv -> pointwise graphs), called by
scripts/torch_ops.py's make_call for scripts/torch_crosscheck.py. Eager PyTorch runs each step as its
own kernel (cuDNN's convolution with cudnn.benchmark, then torch's elementwise kernels), so its time
is what the chain costs unfused; a fused-graph peer slower than it would be suspect.

  conv(...)            F.conv2d(x, w, bias, stride, pad, dilation, groups) (bias folded in when given)
  bnorm-infer(eps e)   F.batch_norm(v, mean, var, scale, shift, training=False, eps=e), parameters fp32 [K]
  add(alpha a beta b)  a v + b residual (residual shaped like y)
  activ(relu)          F.relu; activ(leakyrelu alpha a) F.leaky_relu; other modes are not mapped

x, w, the residual and bias in the string's dtype, channels_last for nhwc; inputs rotate over sets
covering rotate_bytes (3x the L2) like every other call.
"""
import re

CONV_RE = re.compile(r"conv\(([^)]*)\)")
STEP_RE = re.compile(r"(bias|bnorm-infer(?:\([^)]*\))?|add(?:\([^)]*\))?|activ\([^)]*\))")


def _pairs(text):
    """'n32 c64 in56x56 f3x3 ...' -> {'n': [32], 'c': [64], 'in': [56, 56], 'f': [3, 3], ...}."""
    out = {}
    for tok in text.split():
        m = re.match(r"^([a-z]+)(-?[0-9][0-9x.e+-]*)$", tok)
        if not m:
            raise ValueError(f"fusion: cannot read '{tok}'")
        k, v = m.group(1), m.group(2)
        out[k] = [float(x) if "." in x or "e" in x else int(x) for x in v.split("x")]
    return out


def parse_fusion(problem):
    """hiprim's canonical fusion string as a dict: dtype, layout, conv sizes, steps [(name, {args})]."""
    toks = problem.split()
    if len(toks) < 5 or toks[0] != "fusion" or toks[1] != "fwd":
        raise ValueError(f"not a fusion fwd problem string: '{problem}'")
    m = CONV_RE.search(problem)
    if not m:
        raise ValueError(f"fusion: no conv(...) in '{problem}'")
    conv = _pairs(m.group(1))
    rest = problem[m.end():]
    steps = []
    for s in STEP_RE.findall(rest):
        name = s.split("(", 1)[0]
        args = s[len(name) + 1:-1] if "(" in s else ""
        words = args.split()
        mode = words[0] if name == "activ" and words else None
        steps.append((name, dict(_pairs(" ".join(words[1:] if mode else words)), mode=mode)))
    if "rounding=unfused" in rest:
        steps.append(("rounding", {}))
    return dict(dtype=toks[2], layout=toks[3], conv=conv, steps=steps)


def fusion_call(torch, row, rotate_bytes):
    import torch_ops
    F = torch.nn.functional
    p = parse_fusion(row["problem"])
    dt, dev, cl = torch_ops.dtype_of(torch, p["dtype"]), torch_ops.DEVICE, p["layout"] == "nhwc"
    c = p["conv"]
    n, ch, k, g = c["n"][0], c["c"][0], c["k"][0], c.get("g", [1])[0]
    h, w_ = c["in"]
    r, s = c["f"]
    pad, st, dil = c.get("pad", [0, 0]), c.get("str", [1, 1]), c.get("dil", [1, 1])
    ho = (h + 2 * pad[0] - dil[0] * (r - 1) - 1) // st[0] + 1
    wo = (w_ + 2 * pad[1] - dil[1] * (s - 1) - 1) // st[1] + 1
    names = [name for name, _ in p["steps"]]
    mk = lambda shape: torch_ops.make_tensor(torch, shape, dt, cl)
    bias = mk([k]) if "bias" in names else None
    bn = None
    for name, a in p["steps"]:
        if name == "bnorm-infer":
            f32 = dict(device=dev, dtype=torch.float32)
            bn = dict(mean=torch.randn(k, **f32), var=torch.rand(k, **f32) + 0.5, scale=torch.randn(k, **f32),
                      shift=torch.randn(k, **f32), eps=a.get("eps", [1e-5])[0])
        if name == "activ" and a["mode"] not in ("relu", "leakyrelu"):
            raise NotImplementedError(f"fusion activ({a['mode']}): only relu and leakyrelu are mapped")
        if name == "rounding":
            raise NotImplementedError("rounding=unfused: the unfused torch sequence is the same call")

    def make_set():
        d = dict(x=mk([n, ch, h, w_]), w=mk([k, ch // g, r, s]))
        if "add" in names:
            d["res"] = mk([n, k, ho, wo])
        d["_read"] = torch_ops.nbytes(*[v for key, v in d.items() if not key.startswith("_")])
        return d

    def fn(d):
        v = F.conv2d(d["x"], d["w"], bias, st, pad, dil, g)
        for name, a in p["steps"]:
            if name == "bnorm-infer":
                v = F.batch_norm(v, bn["mean"], bn["var"], bn["scale"], bn["shift"], False, 0.0, bn["eps"])
            elif name == "add":
                alpha, beta = a.get("alpha", [1])[0], a.get("beta", [1])[0]
                v = torch.add(v if alpha == 1 else v * alpha, d["res"], alpha=beta)
            elif name == "activ":
                v = F.relu(v) if a["mode"] == "relu" else F.leaky_relu(v, a.get("alpha", [0.01])[0])
        return v

    data, read = torch_ops.rotating(torch, make_set, rotate_bytes)
    how = "F.conv2d" + (" with bias" if bias is not None else "") + "".join(
        {"bnorm-infer": " -> F.batch_norm(eval)", "add": " -> add", "activ": " -> activation"}.get(nm, "") for nm in names)
    return torch_ops.Call(data, fn, read, how + " (unfused, eager kernels)")
