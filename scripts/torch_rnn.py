"""PyTorch's nn.RNN / nn.LSTM / nn.GRU (cuDNN underneath on an NVIDIA GPU) on hiprim's rnn problem
strings (core/rnn_problem.hpp): the peer of the rnn.gemm solvers, called by scripts/torch_ops.py's
make_call for scripts/torch_crosscheck.py (which times every call by CUDA-graph replay, or by CUDA
events around eager calls where a call cannot be captured; the row's `timing` says which).

  fwd          the module's forward under torch.no_grad() (cuDNN's inference forward, no reserve
               space: what hiprim's fwd computes; hiprim has one fwd for training and inference)
  bwd-data     a training forward, then torch.autograd.grad of sum(dy*y) + sum(dhy*hy) (+ sum(dcy*cy))
               w.r.t. x, hx (, cx): the forward runs inside the timed call, as hiprim's bwd-data
               recomputes its forward (it takes no reserve space)
  bwd-weights  the same w.r.t. the module's parameters (cuDNN runs its backward data first: its weight
               gradient reads that pass's workspace)

Same math as hiprim's (GRU: n = tanh(W_n x + b_n + r (R_n h + b_Rn)), cuDNN's and MIOpen's form), its own
parameter layout (reference/rnn_packing.hpp converts) and init: only the time is compared here.
Sequence-major x [T, N, X], hx / cx [L*D, N, H], as hiprim's tensors.
"""
import re

RNN_RE = re.compile(r"^rnn (fwd|bwd-data|bwd-weights) (relu|tanh|lstm|gru) (fp32|fp16|bf16) layers(\d+) hidden(\d+) "
                    r"input(\d+) seq(\d+) n(\d+) (uni|bidir) (bias|nobias)( math=h16)?$")


def parse_rnn(problem):
    """hiprim's canonical rnn string as a dict (ValueError naming the string otherwise)."""
    m = RNN_RE.match(problem)
    if not m:
        raise ValueError(f"not a canonical rnn problem string: '{problem}'")
    # math=h16 (h rounded to the dtype where it is a GEMM operand) is what cuDNN's bf16/fp16 RNNs do anyway
    d, mode, dtype, layers, hidden, inp, seq, n, bidir, bias, math = m.groups()
    return dict(dir=d, mode=mode, dtype=dtype, layers=int(layers), hidden=int(hidden), input=int(inp), seq=int(seq), n=int(n),
                bidirectional=bidir == "bidir", bias=bias == "bias", h16=math is not None)


def make_module(torch, p, device, dtype):
    kw = dict(input_size=p["input"], hidden_size=p["hidden"], num_layers=p["layers"], bias=p["bias"],
              bidirectional=p["bidirectional"])
    if p["mode"] in ("relu", "tanh"):
        net = torch.nn.RNN(nonlinearity=p["mode"], **kw)
    else:
        net = (torch.nn.LSTM if p["mode"] == "lstm" else torch.nn.GRU)(**kw)
    net = net.to(device=device, dtype=dtype)
    # One contiguous weight buffer, as cuDNN wants it: without it torch warns "RNN module weights are not
    # part of single contiguous chunk of memory" and compacts them in every call (s23 call 4: timed so).
    net.flatten_parameters()
    return net


def rnn_call(torch, row, rotate_bytes):
    import torch_ops
    p = parse_rnn(row["problem"])
    dt, dev = torch_ops.dtype_of(torch, p["dtype"]), torch_ops.DEVICE
    net = make_module(torch, p, dev, dt)
    lstm, bwd = p["mode"] == "lstm", p["dir"] != "fwd"
    T, N, X, H, D = p["seq"], p["n"], p["input"], p["hidden"], 2 if p["bidirectional"] else 1
    states = (p["layers"] * D, N, H)

    def make_set():
        def t(shape, grad=False):
            return torch.randn(shape, device=dev, dtype=torch.float32).to(dt).requires_grad_(grad)
        s = dict(x=t((T, N, X), bwd), hx=t(states, bwd), cx=t(states, bwd) if lstm else None)
        if bwd:
            s.update(dy=t((T, N, D * H)), dhy=t(states), dcy=t(states) if lstm else None)
        s["_read"] = sum(torch_ops.nbytes(v) for k, v in s.items() if v is not None and not k.startswith("_"))
        return s

    def forward(s):
        if lstm:
            y, (hy, cy) = net(s["x"], (s["hx"], s["cx"]))
            return (y, hy, cy)
        y, hy = net(s["x"], s["hx"])
        return (y, hy)

    def fn(s):
        if not bwd:
            with torch.no_grad():
                return forward(s)
        outs = forward(s)
        grads = (s["dy"], s["dhy"], s["dcy"]) if lstm else (s["dy"], s["dhy"])
        wrt = ([s["x"], s["hx"]] + ([s["cx"]] if lstm else [])) if p["dir"] == "bwd-data" else list(net.parameters())
        return torch.autograd.grad(outs, wrt, grads)

    data, read = torch_ops.rotating(torch, make_set, rotate_bytes)
    how = {"fwd": "forward under no_grad (cuDNN inference)", "bwd-data": "training forward + autograd.grad w.r.t. x, hx(, cx)",
           "bwd-weights": "training forward + autograd.grad w.r.t. the parameters"}[p["dir"]]
    return torch_ops.Call(data, fn, read, f"torch.nn.{type(net).__name__}: {how}")
