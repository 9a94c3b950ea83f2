"""The primitives on arrays (numpy / torch / CUDA arrays; see _arrays.py for what is taken).
Each function checks its arguments, allocates what it returns unless `out=` (and friends) are
given, and runs on the arrays' backend. Tensors are 4-D (N, C, H, W) or 5-D (N, C, D, H, W),
packed NCHW or NHWC, float32 / float16 / bfloat16; all of one call share dtype, device and
channel order (batch norm's parameters: float32 or the data's dtype)."""
import ctypes

from . import _arrays
from ._core import Call, TensorDesc, check, run_problem, shape_tokens
from ._lib import lib

_ONE, _ZERO = ctypes.c_float(1.0), ctypes.c_float(0.0)
_1, _0 = ctypes.byref(_ONE), ctypes.byref(_ZERO)


def _tuple(v, n, name):
    t = (v,) * n if isinstance(v, int) else tuple(int(x) for x in v)
    if len(t) != n:
        raise ValueError(f"{name}: {v!r} has {len(t)} values for {n} spatial axes")
    return t


# ---- convolution: y = conv(x, w); dx = conv^T(dy, w); dw = corr(x, dy) ----

class _Conv:
    """A hiprimConvolutionDescriptor_t: pads, strides, dilations per spatial axis, groups."""

    def __init__(self, spatial, stride, padding, dilation, groups):
        self.d = ctypes.c_void_p()
        self.stride, self.padding = _tuple(stride, spatial, "stride"), _tuple(padding, spatial, "padding")
        self.dilation, self.groups = _tuple(dilation, spatial, "dilation"), int(groups)
        check(lib().hiprimCreateConvolutionDescriptor(ctypes.byref(self.d)), "hiprimCreateConvolutionDescriptor")
        arr = ctypes.c_int * spatial
        check(lib().hiprimInitConvolutionNdDescriptor(self.d, spatial, arr(*self.padding), arr(*self.stride), arr(*self.dilation), 0),
              f"hiprimInitConvolutionNdDescriptor(padding {self.padding}, stride {self.stride}, dilation {self.dilation})")
        check(lib().hiprimSetConvolutionGroupCount(self.d, self.groups), f"hiprimSetConvolutionGroupCount({groups})")

    def out_shape(self, x_shape, w_shape):
        sp = [(i + 2 * p - d * (k - 1) - 1) // s + 1
              for i, k, p, s, d in zip(x_shape[2:], w_shape[2:], self.padding, self.stride, self.dilation)]
        if any(o < 1 for o in sp):
            raise ValueError(f"convolution of x {tuple(x_shape)} with w {tuple(w_shape)} (padding {self.padding}, stride "
                             f"{self.stride}, dilation {self.dilation}) has an empty output {tuple(sp)}")
        return (x_shape[0], w_shape[0], *sp)

    def __del__(self):
        if self.d:
            lib().hiprimDestroyConvolutionDescriptor(self.d)


def _conv_run(fn, size_fn, call, conv, descs, size_order, ptrs, workspace):
    """Sizes the workspace (size_fn over descs in size_order), then fn(handle, 1, a, pa, b, pb,
    conv, 0, out, pout, ws, bytes)."""
    need = ctypes.c_size_t()
    name = fn.__name__
    check(size_fn(call.h, *[descs[i].d for i in size_order[:2]], conv.d, descs[size_order[2]].d, ctypes.byref(need)),
          size_fn.__name__, call.h)
    _, ws = call.workspace(need.value, workspace)
    (a, pa), (b, pb), (o, po) = zip(descs, ptrs)
    check(fn(call.h, _1, a.d, pa, b.d, pb, conv.d, _0, o.d, po, ws, need.value), name, call.h)


def conv_forward(x, w, stride=1, padding=0, dilation=1, groups=1, out=None, workspace=None, stream=None):
    """y = conv(x, w): x (N, C, in...), w (K, C/groups, filter...) -> y (N, K, out...)."""
    bx, bw = _arrays.tensor(x, "x"), _arrays.tensor(w, "w")
    if len(bw.shape) != len(bx.shape):
        raise ValueError(f"w: rank {len(bw.shape)}, x rank {len(bx.shape)}")
    if bw.dtype != bx.dtype:
        raise TypeError(f"w: dtype {bw.dtype}, x {bx.dtype}")
    call = Call({"x": bx, "w": bw}, stream)
    conv = _Conv(len(bx.shape) - 2, stride, padding, dilation, groups)
    out, by = call.output("y", out, conv.out_shape(bx.shape, bw.shape))
    descs = [TensorDesc.of(b, call.layout) for b in (bx, bw, by)]
    _conv_run(lib().hiprimConvolutionForward, lib().hiprimConvolutionForwardGetWorkSpaceSize, call, conv, descs, (1, 0, 2),
              (bx.ptr, bw.ptr, by.ptr), workspace)
    return out


def conv_backward_data(dy, w, x_shape, stride=1, padding=0, dilation=1, groups=1, out=None, workspace=None, stream=None):
    """dx (x_shape) = the adjoint of conv_forward in x, from dy (N, K, out...) and w."""
    bdy, bw = _arrays.tensor(dy, "dy"), _arrays.tensor(w, "w", dtype=None)
    if bw.dtype != bdy.dtype:
        raise TypeError(f"w: dtype {bw.dtype}, dy {bdy.dtype}")
    call = Call({"dy": bdy, "w": bw}, stream)
    conv = _Conv(len(bdy.shape) - 2, stride, padding, dilation, groups)
    x_shape = tuple(int(d) for d in x_shape)
    if len(x_shape) != len(bdy.shape) or conv.out_shape(x_shape, bw.shape) != bdy.shape:
        raise ValueError(f"dy: shape {bdy.shape}, but x {x_shape} and w {bw.shape} give y {conv.out_shape(x_shape, bw.shape)}")
    out, bdx = call.output("dx", out, x_shape)
    descs = [TensorDesc.of(b, call.layout) for b in (bdy, bw, bdx)]
    _conv_run(lib().hiprimConvolutionBackwardData, lib().hiprimConvolutionBackwardDataGetWorkSpaceSize, call, conv, descs,
              (0, 1, 2), (bdy.ptr, bw.ptr, bdx.ptr), workspace)
    return out


def conv_backward_weights(dy, x, w_shape, stride=1, padding=0, dilation=1, groups=1, out=None, workspace=None, stream=None):
    """dw (w_shape) = the adjoint of conv_forward in w, from dy and x."""
    bdy, bx = _arrays.tensor(dy, "dy"), _arrays.tensor(x, "x")
    if bx.dtype != bdy.dtype:
        raise TypeError(f"x: dtype {bx.dtype}, dy {bdy.dtype}")
    call = Call({"dy": bdy, "x": bx}, stream)
    conv = _Conv(len(bdy.shape) - 2, stride, padding, dilation, groups)
    w_shape = tuple(int(d) for d in w_shape)
    if len(w_shape) != len(bdy.shape) or conv.out_shape(bx.shape, w_shape) != bdy.shape:
        raise ValueError(f"dy: shape {bdy.shape}, but x {bx.shape} and w {w_shape} give y {conv.out_shape(bx.shape, w_shape)}")
    out, bdw = call.output("dw", out, w_shape)
    descs = [TensorDesc.of(b, call.layout) for b in (bdy, bx, bdw)]
    _conv_run(lib().hiprimConvolutionBackwardWeights, lib().hiprimConvolutionBackwardWeightsGetWorkSpaceSize, call, conv,
              descs, (0, 1, 2), (bdy.ptr, bx.ptr, bdw.ptr), workspace)
    return out


# ---- batch normalization (spatial: statistics per channel over N and the spatial dims) ----

def _bn_params(call, x, named, dtype=None):
    """Per-channel vectors of C elements, one dtype (float32 or x's); the bn descriptor."""
    c = x.shape[1]
    bufs = {}
    for name, v in named.items():
        b = _arrays.vector(v, name, c, dtype=dtype or ("fp32", x.dtype))
        dtype = dtype or b.dtype
        bufs[name] = b
    call.buffers.update(bufs)
    return bufs, dtype, TensorDesc((1, c) + (1,) * (len(x.shape) - 2), dtype, "nchw")


def _same_device(call, bufs):
    for name, b in bufs.items():
        if (b.device, b.device_index) != (call.ref().device, call.ref().device_index):
            raise ValueError(f"{name}: on {b.device}:{b.device_index}, x on {call.ref().device}")


def batch_norm_train(x, scale, bias, running_mean, running_var, momentum=0.1, eps=1e-5, out=None, stream=None):
    """y = scale (x - mean) / sqrt(var + eps) + bias with the batch's per-channel mean and (biased)
    var; running_mean/var updated in place: r = (1 - momentum) r + momentum stat (var unbiased).
    Returns (y, save_mean, save_invstd), the last two what batch_norm_backward takes."""
    bx = _arrays.tensor(x, "x")
    call = Call({"x": bx}, stream)
    p, dt, bd = _bn_params(call, bx, {"scale": scale, "bias": bias, "running_mean": running_mean, "running_var": running_var})
    for n in ("running_mean", "running_var"):
        if p[n].readonly:
            raise ValueError(f"{n}: read-only, but training updates it")
    _same_device(call, p)
    out, by = call.output("y", out, bx.shape)
    save_mean, bm = call.output("save_mean", None, (bx.shape[1],), dt, layout=None)
    save_inv, bi = call.output("save_invstd", None, (bx.shape[1],), dt, layout=None)
    xd = TensorDesc.of(bx, call.layout)
    check(lib().hiprimBatchNormalizationForwardTraining(call.h, 1, _1, _0, xd.d, bx.ptr, xd.d, by.ptr, bd.d, p["scale"].ptr,
                                                        p["bias"].ptr, float(momentum), p["running_mean"].ptr,
                                                        p["running_var"].ptr, float(eps), bm.ptr, bi.ptr),
          "hiprimBatchNormalizationForwardTraining", call.h)
    return out, save_mean, save_inv


def batch_norm_infer(x, scale, bias, mean, var, eps=1e-5, out=None, stream=None):
    """y = scale (x - mean) / sqrt(var + eps) + bias with the given per-channel statistics."""
    bx = _arrays.tensor(x, "x")
    call = Call({"x": bx}, stream)
    p, dt, bd = _bn_params(call, bx, {"scale": scale, "bias": bias, "mean": mean, "var": var})
    _same_device(call, p)
    out, by = call.output("y", out, bx.shape)
    xd = TensorDesc.of(bx, call.layout)
    check(lib().hiprimBatchNormalizationForwardInference(call.h, 1, _1, _0, xd.d, bx.ptr, xd.d, by.ptr, bd.d, p["scale"].ptr,
                                                         p["bias"].ptr, p["mean"].ptr, p["var"].ptr, float(eps)),
          "hiprimBatchNormalizationForwardInference", call.h)
    return out


def batch_norm_backward(x, dy, scale, save_mean, save_invstd, eps=1e-5, stream=None):
    """(dx, dscale, dbias) of batch_norm_train from the statistics it saved."""
    bx, bdy = _arrays.tensor(x, "x"), _arrays.tensor(dy, "dy")
    if bdy.shape != bx.shape or bdy.dtype != bx.dtype:
        raise ValueError(f"dy: {bdy.dtype} {bdy.shape}, x {bx.dtype} {bx.shape}")
    call = Call({"x": bx, "dy": bdy}, stream)
    p, dt, bd = _bn_params(call, bx, {"scale": scale, "save_mean": save_mean, "save_invstd": save_invstd})
    _same_device(call, p)
    dx, bdx = call.output("dx", None, bx.shape)
    dscale, bs = call.output("dscale", None, (bx.shape[1],), dt, layout=None)
    dbias, bb = call.output("dbias", None, (bx.shape[1],), dt, layout=None)
    xd = TensorDesc.of(bx, call.layout)
    check(lib().hiprimBatchNormalizationBackward(call.h, 1, _1, _0, _1, _0, xd.d, bx.ptr, xd.d, bdy.ptr, xd.d, bdx.ptr, bd.d,
                                                 p["scale"].ptr, bs.ptr, bb.ptr, float(eps), p["save_mean"].ptr,
                                                 p["save_invstd"].ptr),
          "hiprimBatchNormalizationBackward", call.h)
    return dx, dscale, dbias


# ---- activations (MIOpen's modes and coefficients; hiprim's gelu, gelu_tanh, silu) ----

ACTIVATION_MODES = ("passthru", "logistic", "tanh", "relu", "softrelu", "abs", "power", "clippedrelu", "leakyrelu", "elu",
                    "gelu", "gelu_tanh", "silu")


class _Activation:
    def __init__(self, mode, alpha, beta, gamma):
        self.d = ctypes.c_void_p()
        if mode not in ACTIVATION_MODES:
            raise ValueError(f"activation mode {mode!r} is not one of {', '.join(ACTIVATION_MODES)}")
        check(lib().hiprimCreateActivationDescriptor(ctypes.byref(self.d)), "hiprimCreateActivationDescriptor")
        check(lib().hiprimSetActivationDescriptor(self.d, ACTIVATION_MODES.index(mode), float(alpha), float(beta), float(gamma)),
              f"hiprimSetActivationDescriptor({mode})")

    def __del__(self):
        if self.d:
            lib().hiprimDestroyActivationDescriptor(self.d)


def activation_forward(x, mode="relu", alpha=1.0, beta=1.0, gamma=1.0, out=None, stream=None):
    """y = f(x) elementwise; alpha, beta, gamma as MIOpen uses them (leave unused ones at 1)."""
    bx = _arrays.tensor(x, "x")
    call = Call({"x": bx}, stream)
    a = _Activation(mode, alpha, beta, gamma)
    out, by = call.output("y", out, bx.shape)
    xd = TensorDesc.of(bx, call.layout)
    check(lib().hiprimActivationForward(call.h, a.d, _1, xd.d, bx.ptr, _0, xd.d, by.ptr), f"hiprimActivationForward({mode})", call.h)
    return out


def activation_backward(x, dy, mode="relu", alpha=1.0, beta=1.0, gamma=1.0, out=None, stream=None):
    """dx = dy * f'(x)."""
    bx, bdy = _arrays.tensor(x, "x"), _arrays.tensor(dy, "dy")
    if bdy.shape != bx.shape or bdy.dtype != bx.dtype:
        raise ValueError(f"dy: {bdy.dtype} {bdy.shape}, x {bx.dtype} {bx.shape}")
    call = Call({"x": bx, "dy": bdy}, stream)
    a = _Activation(mode, alpha, beta, gamma)
    out, bdx = call.output("dx", out, bx.shape)
    xd = TensorDesc.of(bx, call.layout)
    # y is checked but not read by the library (dx from x): x's buffer stands in for it.
    check(lib().hiprimActivationBackward(call.h, a.d, _1, xd.d, bx.ptr, xd.d, bdy.ptr, xd.d, bx.ptr, _0, xd.d, bdx.ptr),
          f"hiprimActivationBackward({mode})", call.h)
    return out


# ---- softmax (rows: channel mode over C per pixel, instance mode over C*H*W per n) ----

_SOFTMAX_ALGORITHMS = ("fast", "accurate", "log")
_SOFTMAX_MODES = ("instance", "channel")


def _softmax_tensor(v, name):
    """A 2-D (N, C) array is taken as (N, C, 1, 1)."""
    b = _arrays.tensor(v, name, ranks=(2, 4, 5))
    if len(b.shape) == 2:
        b.shape, b.strides, b.either = b.shape + (1, 1), b.strides + (1, 1), True
    return b


def _softmax_enums(algorithm, mode):
    if algorithm not in _SOFTMAX_ALGORITHMS:
        raise ValueError(f"softmax algorithm {algorithm!r} is not fast, accurate or log")
    if mode not in _SOFTMAX_MODES:
        raise ValueError(f"softmax mode {mode!r} is not instance or channel")
    return _SOFTMAX_ALGORITHMS.index(algorithm), _SOFTMAX_MODES.index(mode)


def softmax_forward(x, algorithm="accurate", mode="channel", out=None, stream=None):
    """y = softmax (algorithm 'log': log-softmax) over each row of x; x 2-D (N, C), 4-D or 5-D."""
    alg, md = _softmax_enums(algorithm, mode)
    bx = _softmax_tensor(x, "x")
    call = Call({"x": bx}, stream)
    shape = tuple(bx.obj.shape)
    out, by = call.output("y", out, shape, layout=call.layout if len(shape) > 2 else "nchw")
    if len(shape) == 2:
        by = _softmax_tensor(out, "y")
    xd = TensorDesc.of(bx, call.layout)
    check(lib().hiprimSoftmaxForward(call.h, _1, xd.d, bx.ptr, _0, xd.d, by.ptr, alg, md), "hiprimSoftmaxForward", call.h)
    return out


def softmax_backward(y, dy, algorithm="accurate", mode="channel", out=None, stream=None):
    """dx from the forward output y and dy (log: dx = dy - e^y sum dy; else y (dy - sum dy y))."""
    alg, md = _softmax_enums(algorithm, mode)
    by, bdy = _softmax_tensor(y, "y"), _softmax_tensor(dy, "dy")
    if bdy.shape != by.shape or bdy.dtype != by.dtype:
        raise ValueError(f"dy: {bdy.dtype} {tuple(bdy.obj.shape)}, y {by.dtype} {tuple(by.obj.shape)}")
    call = Call({"y": by, "dy": bdy}, stream)
    shape = tuple(by.obj.shape)
    out, bdx = call.output("dx", out, shape, layout=call.layout if len(shape) > 2 else "nchw")
    if len(shape) == 2:
        bdx = _softmax_tensor(out, "dx")
    yd = TensorDesc.of(by, call.layout)
    check(lib().hiprimSoftmaxBackward(call.h, _1, yd.d, by.ptr, yd.d, bdy.ptr, _0, yd.d, bdx.ptr, alg, md),
          "hiprimSoftmaxBackward", call.h)
    return out


# ---- pooling (hiprimRunProblem with a "pool ..." problem string; floor mode) ----

_POOL_MODES = {"max": "max", "avg": "avg_incl", "avg_incl": "avg_incl", "avg_excl": "avg_excl"}


def _pool_geometry(x_shape, kernel, stride, padding):
    n = len(x_shape) - 2
    k = _tuple(kernel, n, "kernel")
    s = k if stride is None else _tuple(stride, n, "stride")
    p = _tuple(padding, n, "padding")
    if any(pi >= ki for pi, ki in zip(p, k)):
        raise ValueError(f"padding {p} must be smaller than the kernel {k}")
    out = tuple((i + 2 * pi - ki) // si + 1 for i, ki, pi, si in zip(x_shape[2:], k, p, s))
    if any(o < 1 for o in out):
        raise ValueError(f"pooling x {tuple(x_shape)} with kernel {k}, stride {s}, padding {p} has an empty output {out}")
    return k, s, p, tuple(x_shape[:2]) + out


def _pool_problem(direction, mode, dtype, layout, x_shape, k, s, p):
    if mode not in _POOL_MODES:
        raise ValueError(f"pooling mode {mode!r} is not max, avg (avg_incl: divides by the window) or avg_excl")
    j = "x".join
    return (f"pool {direction} {_POOL_MODES[mode]} {shape_tokens(dtype, layout, x_shape)} win{j(map(str, k))} "
            f"pad{j(map(str, p))} str{j(map(str, s))}")


def pool_forward(x, mode="max", kernel=2, stride=None, padding=0, out=None, indices=None, stream=None):
    """y = max or average over each window (stride defaults to the kernel). Max mode returns
    (y, idx): idx (float32, y's shape) the index of each maximum inside its window, which
    pool_backward takes; average modes return y."""
    bx = _arrays.tensor(x, "x")
    call = Call({"x": bx}, stream)
    k, s, p, y_shape = _pool_geometry(bx.shape, kernel, stride, padding)
    problem = _pool_problem("fwd", mode, bx.dtype, call.layout, bx.shape, k, s, p)
    out, _ = call.output("y", out, y_shape)
    if _POOL_MODES.get(mode) != "max":
        run_problem(problem, [x, out], stream=stream)
        return out
    indices, _ = call.output("idx", indices, y_shape, dtype="fp32")
    run_problem(problem, [x, out, indices], stream=stream)
    return out, indices


def pool_backward(dy, x_shape, mode="max", kernel=2, stride=None, padding=0, indices=None, out=None, stream=None):
    """dx (x_shape): each dy spread over its window (max: to the saved index only)."""
    bdy = _arrays.tensor(dy, "dy")
    x_shape = tuple(int(d) for d in x_shape)
    if len(x_shape) != len(bdy.shape):
        raise ValueError(f"x_shape {x_shape}: rank {len(x_shape)}, dy rank {len(bdy.shape)}")
    k, s, p, y_shape = _pool_geometry(x_shape, kernel, stride, padding)
    if bdy.shape != y_shape:
        raise ValueError(f"dy: shape {bdy.shape}, but pooling x {x_shape} gives {y_shape}")
    bufs = {"dy": bdy}
    if _POOL_MODES.get(mode) == "max":
        if indices is None:
            raise ValueError("indices: max pooling's backward needs the idx pool_forward returned")
        bufs["idx"] = _arrays.tensor(indices, "indices", dtype="fp32", shape=y_shape)
    call = Call(bufs, stream)
    problem = _pool_problem("bwd", mode, bdy.dtype, call.layout, x_shape, k, s, p)
    out, _ = call.output("dx", out, x_shape)
    run_problem(problem, [dy] + ([indices] if "idx" in bufs else []) + [out], stream=stream)
    return out


# ---- dropout (counter-based mask: element i of x, in NCHW order, is dropped iff Philox(seed, i) < rate * 2^32) ----

def _dropout(direction, src, rate, seed, out, stream):
    if not 0.0 <= float(rate) < 1.0:
        raise ValueError(f"rate {rate}: expected 0 <= rate < 1")
    if not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"seed {seed!r}: expected an integer in [0, 2^64)")
    name = "x" if direction == "fwd" else "dy"
    b = _arrays.tensor(src, name)
    call = Call({name: b}, stream)
    out, _ = call.output("y" if direction == "fwd" else "dx", out, b.shape)
    run_problem(f"dropout {direction} {shape_tokens(b.dtype, call.layout, b.shape)} rate{float(rate)!r} seed{seed}", [src, out],
                stream=stream)
    return out


def dropout_forward(x, rate=0.5, seed=0, out=None, stream=None):
    """y = x * scale where kept, 0 where dropped (scale = fl32(1 / (1 - rate))); the mask is a function
    of (seed, element index) only, so dropout_backward with the same seed drops the same elements."""
    return _dropout("fwd", x, rate, seed, out, stream)


def dropout_backward(dy, rate=0.5, seed=0, out=None, stream=None):
    """dx = dy * scale where the forward with this seed kept the element, else 0."""
    return _dropout("bwd", dy, rate, seed, out, stream)
