"""The PyTorch call of each hiprim problem (for scripts/torch_crosscheck.py, on the GPU machine).

make_call(torch, row, parsed, rotate_bytes) returns a Call: `sets` input sets whose read tensors
together cover rotate_bytes (3x the L2), call(i) enqueues the op once on set i and returns its
outputs, `how` says which torch function ran. Tensors are [N, C, (D,) H, W] in hiprim's dims,
channels_last memory for nhwc; bnorm parameters are fp32 [C] as in hiprim. Backward ops call the
aten function autograd runs (threshold_backward, convolution_backward, ...), or autograd itself
where the op's saved state is internal (batch norm, LRN); such forward passes run at setup, on the
stream the calls are captured on, so their backward nodes run there too.
"""
import math

MAX_SETS = 64
DEVICE = "cuda"  # the tests set "cpu" to check every call's signature and shapes without a GPU


class Call:
    def __init__(self, data, fn, set_bytes, how):
        self.data, self.fn, self.set_bytes, self.how = data, fn, set_bytes, how
        self.sets = len(data)

    def __call__(self, i):
        return self.fn(self.data[i])


def n_sets(set_bytes, rotate_bytes):
    return max(1, min(MAX_SETS, int(math.ceil(rotate_bytes / max(set_bytes, 1)))))


def dtype_of(torch, name):
    return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[name]


def make_tensor(torch, shape, dtype, channels_last, positive=False):
    t = torch.randn(shape, device=DEVICE, dtype=torch.float32)
    if positive:
        t = t.abs() + 0.5
    t = t.to(dtype)
    if channels_last and len(shape) in (4, 5):
        t = t.contiguous(memory_format=torch.channels_last if len(shape) == 4 else torch.channels_last_3d)
    return t


def nbytes(*ts):
    return sum(t.numel() * t.element_size() for t in ts)


def rotating(torch, make_set, rotate_bytes):
    """Sets from make_set() (a dict of tensors plus '_read': the bytes one call reads)."""
    first = make_set()
    data = [first] + [make_set() for _ in range(n_sets(first["_read"], rotate_bytes) - 1)]
    return data, first["_read"]


def conv_call(torch, row, rotate_bytes):
    F = torch.nn.functional
    L, n = row["layer"], row["batch"]
    dt, cl = dtype_of(torch, row["dtype"]), row["layout"] == "nhwc"
    st, pad = [L["stride"]] * 2, [L["pad"]] * 2
    ho = (L["h"] + 2 * L["pad"] - L["r"]) // L["stride"] + 1
    wo = (L["w"] + 2 * L["pad"] - L["s"]) // L["stride"] + 1
    xs, ws, ys = [n, L["c"], L["h"], L["w"]], [L["k"], L["c"], L["r"], L["s"]], [n, L["k"], ho, wo]
    d = row["group"]
    shared_x = make_tensor(torch, xs, dt, cl) if d == "bwd-data" else None  # only its shape is used
    shared_w = make_tensor(torch, ws, dt, cl) if d == "bwd-weights" else None

    def make_set():
        if d == "fwd":
            x, w = make_tensor(torch, xs, dt, cl), make_tensor(torch, ws, dt, cl)
            return dict(x=x, w=w, _read=nbytes(x, w))
        dy = make_tensor(torch, ys, dt, cl)
        if d == "bwd-data":
            w = make_tensor(torch, ws, dt, cl)
            return dict(x=shared_x, w=w, dy=dy, _read=nbytes(dy, w))
        x = make_tensor(torch, xs, dt, cl)
        return dict(x=x, w=shared_w, dy=dy, _read=nbytes(x, dy))

    data, read = rotating(torch, make_set, rotate_bytes)
    if d == "fwd":
        return Call(data, lambda s: F.conv2d(s["x"], s["w"], None, st, pad), read, "F.conv2d")
    mask = [True, False, False] if d == "bwd-data" else [False, True, False]
    pick = 0 if d == "bwd-data" else 1
    fn = lambda s: torch.ops.aten.convolution_backward(s["dy"], s["x"], s["w"], None, st, pad, [1, 1], False, [0, 0], 1,
                                                       mask)[pick]
    return Call(data, fn, read, f"aten.convolution_backward(output_mask={mask})")


def shape_of(p):
    return [p["n"], p["c"]] + p["in"]


def autograd_call(torch, forward, inputs, out_like_dy, rotate_bytes, how):
    """Backward through autograd: each set runs forward(x) once at setup; a call is
    torch.autograd.grad(y, (x, *params), dy, retain_graph=True)."""
    params = inputs()

    def make_set():
        x = params["make_x"]().requires_grad_(True)
        y = forward(x)
        dy = out_like_dy(y)
        return dict(x=x, y=y, dy=dy, _read=nbytes(x, dy))

    data, read = rotating(torch, make_set, rotate_bytes)
    leaves = params["leaves"]
    name = data[0]["y"].grad_fn.name() if data[0]["y"].grad_fn is not None else "?"
    fn = lambda s: torch.autograd.grad(s["y"], [s["x"]] + leaves, s["dy"], retain_graph=True)
    return Call(data, fn, read, f"{how} ({name})")


def op_call(torch, row, p, rotate_bytes):
    F = torch.nn.functional
    op, words = p["op"], p["words"]
    dt = dtype_of(torch, p["dtype"])
    cl = p["layout"] in ("nhwc", "ndhwc")
    new = lambda shape, positive=False: make_tensor(torch, shape, dt, cl, positive)

    def unary(fn, how, extra=None, reads=("x",)):
        """Sets of one input x [N, C, (D,) H, W] plus extra(set)'s tensors; `reads` names what a call reads."""
        def make_set():
            s = dict(x=new(shape_of(p)))
            if extra:
                s.update(extra(s))
            s["_read"] = nbytes(*[s[k] for k in reads])
            return s
        data, read = rotating(torch, make_set, rotate_bytes)
        return Call(data, fn, read, how)

    if op == "bnorm":
        if "spatial" not in words:
            raise NotImplementedError("per-activation batch norm has no torch op")
        c = p["c"]
        f32 = dict(device=DEVICE, dtype=torch.float32)
        w, b = torch.rand(c, **f32) + 0.5, torch.randn(c, **f32)
        rm, rv = torch.randn(c, **f32), torch.rand(c, **f32) + 0.5
        eps, mom = p.get("eps", 1e-5), p.get("momentum", 0.1)
        if "fwd-train" in words or "fwd-infer" in words:
            train = "fwd-train" in words
            return unary(lambda s: F.batch_norm(s["x"], rm, rv, w, b, train, mom, eps), f"F.batch_norm(training={train})")
        w.requires_grad_(True)
        b.requires_grad_(True)
        return autograd_call(torch, lambda x: F.batch_norm(x, rm, rv, w, b, True, mom, eps),
                             lambda: dict(make_x=lambda: new(shape_of(p)), leaves=[w, b]),
                             lambda y: torch.randn_like(y), rotate_bytes, "autograd of F.batch_norm(training=True)")
    if op == "activ":
        if "relu" not in words:
            raise NotImplementedError(f"activ mode {words}: only relu is mapped")
        if "fwd" in words:
            return unary(lambda s: torch.relu(s["x"]), "torch.relu")
        return unary(lambda s: torch.ops.aten.threshold_backward(s["dy"], s["x"], 0.0), "aten.threshold_backward",
                     lambda s: dict(dy=new(shape_of(p))), ("x", "dy"))
    if op == "pool":
        if len(p["in"]) != 2:
            raise NotImplementedError("3-D pooling is not mapped")
        k, st, pad = p["win"], p["str"], p["pad"]
        if "max" in words:
            if "fwd" in words:
                return unary(lambda s: torch.ops.aten.max_pool2d_with_indices(s["x"], k, st, pad, [1, 1], False),
                             "aten.max_pool2d_with_indices")

            def saved(s):
                y, idx = torch.ops.aten.max_pool2d_with_indices(s["x"], k, st, pad, [1, 1], False)
                return dict(dy=torch.randn_like(y), idx=idx)
            return unary(lambda s: torch.ops.aten.max_pool2d_with_indices_backward(s["dy"], s["x"], k, st, pad, [1, 1],
                                                                                   False, s["idx"]),
                         "aten.max_pool2d_with_indices_backward", saved, ("dy", "idx"))
        incl = "avg_incl" in words
        if "fwd" in words:
            return unary(lambda s: torch.ops.aten.avg_pool2d(s["x"], k, st, pad, False, incl, None),
                         f"aten.avg_pool2d(count_include_pad={incl})")
        return unary(lambda s: torch.ops.aten.avg_pool2d_backward(s["dy"], s["x"], k, st, pad, False, incl, None),
                     f"aten.avg_pool2d_backward(count_include_pad={incl})",
                     lambda s: dict(dy=torch.randn_like(torch.ops.aten.avg_pool2d(s["x"], k, st, pad, False, incl, None))),
                     ("dy",))
    if op == "softmax":
        if "channel" not in words:
            raise NotImplementedError("instance softmax is not mapped")
        log = "log" in words
        fwd = torch.log_softmax if log else torch.softmax
        if "fwd" in words:
            return unary(lambda s: fwd(s["x"], 1), "torch.log_softmax" if log else "torch.softmax")
        bwd = torch.ops.aten._log_softmax_backward_data if log else torch.ops.aten._softmax_backward_data
        return unary(lambda s: bwd(s["dy"], s["y"], 1, dt), "aten._log_softmax_backward_data" if log else
                     "aten._softmax_backward_data", lambda s: dict(y=fwd(s["x"], 1), dy=new(shape_of(p))), ("y", "dy"))
    if op == "tensorop":
        if p.get("alpha1", 1) != 1 or p.get("beta", 0) != 0:
            raise NotImplementedError("tensorop with alpha1 != 1 or beta != 0 is not mapped")
        fns = {"add": lambda a, b: torch.add(a, b, alpha=p.get("alpha2", 1)), "mul": torch.mul, "min": torch.minimum,
               "max": torch.maximum}
        kind = words[0]
        if kind != "add" and p.get("alpha2", 1) != 1:
            raise NotImplementedError(f"tensorop {kind} with alpha2 != 1 is not mapped")

        def make_set():
            a, b = new(p["a"]), new(p["b"])
            return dict(a=a, b=b, _read=nbytes(a, b))
        data, read = rotating(torch, make_set, rotate_bytes)
        return Call(data, lambda s: fns[kind](s["a"], s["b"]), read, f"torch.{kind}")
    if op == "reduce":
        over = p["over"]
        fns = {"add": lambda x: x.sum(dim=over), "max": lambda x: x.amax(dim=over), "min": lambda x: x.amin(dim=over),
               "avg": lambda x: x.mean(dim=over), "amax": lambda x: x.abs().amax(dim=over),
               "norm1": lambda x: torch.linalg.vector_norm(x, 1, dim=over),
               "norm2": lambda x: torch.linalg.vector_norm(x, 2, dim=over)}
        if words[0] not in fns:
            raise NotImplementedError(f"reduce {words[0]} is not mapped")
        if "indices" in words:
            raise NotImplementedError("reduce with indices is not mapped")

        def make_set():
            x = new(p["dims"])
            return dict(x=x, _read=nbytes(x))
        data, read = rotating(torch, make_set, rotate_bytes)
        return Call(data, lambda s: fns[words[0]](s["x"]), read, f"reduce {words[0]} over {over}")
    if op == "dropout":
        rate = p["rate"]
        if "fwd" in words:
            return unary(lambda s: torch.ops.aten.native_dropout(s["x"], rate, True), "aten.native_dropout")
        return unary(lambda s: torch.ops.aten.native_dropout_backward(s["dy"], s["mask"], 1.0 / (1.0 - rate)),
                     "aten.native_dropout_backward",
                     lambda s: dict(dy=new(shape_of(p)), mask=torch.ops.aten.native_dropout(s["x"], rate, True)[1]),
                     ("dy", "mask"))
    if op == "lrn":
        if "across" not in words:
            raise NotImplementedError("torch has no within-channel LRN")
        size, alpha, beta, k = p["size"], p["alpha"], p["beta"], p["k"]
        lrn = lambda x: F.local_response_norm(x, size, alpha, beta, k)
        if "fwd" in words:
            return unary(lambda s: lrn(s["x"]), "F.local_response_norm")
        return autograd_call(torch, lrn, lambda: dict(make_x=lambda: new(shape_of(p)), leaves=[]),
                             lambda y: torch.randn_like(y), rotate_bytes, "autograd of F.local_response_norm")
    raise NotImplementedError(f"op {op} is not mapped")


def ctc_call(torch, row, rotate_bytes):
    """hiprim's "ctc <dtype> t<T> n<N> c<C> l<L> blank<B> softmax|probs" as F.ctc_loss (reduction none)
    and its gradient by torch.autograd.grad of the summed losses: w.r.t. the logits through
    F.log_softmax over C (softmax), or w.r.t. the probabilities through their log (probs); fp16/bf16
    inputs are converted to fp32 inside the call (torch's CUDA ctc_loss takes fp32/fp64). Every
    sequence is full length (T_b = T, L_b = L, labels uniform over the non-blank ids): hiprim's fill
    mixes shorter sequences too, but its time is set by its full-length ones (one block per sequence,
    all in parallel). With blank 0 and L < 256 the targets are one concatenated int32 device tensor
    and the lengths int32 tensors in pinned host memory: torch then takes cuDNN's CTC (its tensor
    overload), which reads the lengths on the host (s23 call 1: device lengths were copied to pageable
    host memory inside the call, 132 copies, and capture refused it; s22: host-list lengths made
    torch's native kernel copy them to the device). Otherwise lengths are host lists (torch's native
    CUDA kernels)."""
    import re
    F = torch.nn.functional
    m = re.match(r"^ctc (fp32|fp16|bf16) t(\d+) n(\d+) c(\d+) l(\d+) blank(\d+) (softmax|probs)$", row["problem"])
    if not m:
        raise ValueError(f"not a ctc problem string: {row['problem']}")
    dt = dtype_of(torch, m.group(1))
    T, N, C, L, blank = (int(m.group(i)) for i in range(2, 7))
    softmax = m.group(7) == "softmax"
    if L > T:
        raise ValueError(f"L = {L} > T = {T}: full-length sequences need L <= T")
    cudnn_form = blank == 0 and L < 256
    if cudnn_form:
        in_lens = torch.full((N,), T, dtype=torch.int32)
        tg_lens = torch.full((N,), L, dtype=torch.int32)
        if DEVICE == "cuda":
            in_lens, tg_lens = in_lens.pin_memory(), tg_lens.pin_memory()
    else:
        in_lens, tg_lens = [T] * N, [L] * N

    def make_set():
        x = torch.randn((T, N, C), device=DEVICE, dtype=torch.float32)
        if not softmax:
            x = torch.softmax(x, dim=2)
        x = x.to(dt).requires_grad_(True)
        tg = (blank + 1 + torch.randint(0, C - 1, (N, L), device=DEVICE)) % C  # never the blank
        if cudnn_form:
            tg = tg.to(torch.int32).reshape(-1)  # concatenated, as cuDNN's CTC takes them
        return dict(x=x, tg=tg, _read=nbytes(x))

    def fn(d):
        x = d["x"].float()
        lp = F.log_softmax(x, dim=2) if softmax else x.log()
        loss = F.ctc_loss(lp, d["tg"], in_lens, tg_lens, blank=blank, reduction="none", zero_infinity=False)
        (grad,) = torch.autograd.grad(loss.sum(), d["x"])
        return loss, grad

    data, read = rotating(torch, make_set, rotate_bytes)
    form = "int32 device targets, pinned int32 host lengths (cuDNN's CTC where torch takes it)" if cudnn_form else "host-list lengths"
    return Call(data, fn, read, "F.ctc_loss(reduction=none, " + form + ") + autograd.grad w.r.t. " +
                ("the logits" if softmax else "the probabilities"))


def make_call(torch, row, parsed, rotate_bytes):
    if row["kind"] == "conv":
        return conv_call(torch, row, rotate_bytes)
    if parsed["op"] == "ctc":
        return ctc_call(torch, row, rotate_bytes)
    if parsed["op"] == "rnn":
        import torch_rnn  # scripts/torch_rnn.py: nn.RNN / nn.LSTM / nn.GRU
        return torch_rnn.rnn_call(torch, row, rotate_bytes)
    if parsed["op"] == "fusion":
        import torch_fusion  # scripts/torch_fusion.py: the chain as eager unfused steps
        return torch_fusion.fusion_call(torch, row, rotate_bytes)
    return op_call(torch, row, parsed, rotate_bytes)
