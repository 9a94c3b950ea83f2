"""Plain numpy formulas the tests check hiprim against (written here, independent of the library):
float64 math over logical (N, C, H, W) arrays."""
import math

import numpy as np


def conv2d(x, w, stride=1, padding=0, dilation=1):
    """y[n, k, p, q] = sum_{c, r, s} x[n, c, p*str - pad + r*dil, q*str - pad + s*dil] w[k, c, r, s]."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    n, c, h, wd = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    p = (h + 2 * padding - dilation * (r - 1) - 1) // stride + 1
    q = (wd + 2 * padding - dilation * (s - 1) - 1) // stride + 1
    y = np.zeros((n, k, p, q))
    for i in range(r):
        for j in range(s):
            patch = xp[:, :, i * dilation: i * dilation + stride * (p - 1) + 1: stride,
                       j * dilation: j * dilation + stride * (q - 1) + 1: stride]
            y += np.einsum("nchw,kc->nkhw", patch, w[:, :, i, j])
    return y


def batch_norm_train(x, scale, bias, eps):
    """(y, mean, invstd) with the batch's biased variance, per channel."""
    x = np.asarray(x, np.float64)
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))
    inv = 1.0 / np.sqrt(var + eps)
    shape = (1, -1, 1, 1)
    return (x - mean.reshape(shape)) * inv.reshape(shape) * np.reshape(scale, shape) + np.reshape(bias, shape), mean, inv


def batch_norm_backward(x, dy, scale, mean, inv):
    """dbias = sum dy, dscale = sum dy xhat, dx = scale inv / M (M dy - dbias - xhat dscale)."""
    x, dy = np.asarray(x, np.float64), np.asarray(dy, np.float64)
    shape = (1, -1, 1, 1)
    m = x.shape[0] * x.shape[2] * x.shape[3]
    xhat = (x - np.reshape(mean, shape)) * np.reshape(inv, shape)
    dbias = dy.sum(axis=(0, 2, 3))
    dscale = (dy * xhat).sum(axis=(0, 2, 3))
    dx = np.reshape(np.asarray(scale, np.float64) * inv, shape) / m * (m * dy - dbias.reshape(shape) - xhat * dscale.reshape(shape))
    return dx, dscale, dbias


def gelu(x):
    return np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))(np.asarray(x, np.float64))


def log_softmax_rows(x):
    """Over axis 1 of a 2-D array."""
    x = np.asarray(x, np.float64)
    m = x.max(axis=1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))


def max_pool2d(x, k, s):
    """(y, dx_of(dy)) without padding; ties go to the first maximum in scan order."""
    x = np.asarray(x, np.float64)
    n, c, h, w = x.shape
    p, q = (h - k) // s + 1, (w - k) // s + 1
    y = np.zeros((n, c, p, q))
    arg = np.zeros((n, c, p, q), dtype=np.int64)
    for i in range(p):
        for j in range(q):
            win = x[:, :, i * s: i * s + k, j * s: j * s + k].reshape(n, c, -1)
            y[:, :, i, j], arg[:, :, i, j] = win.max(axis=2), win.argmax(axis=2)

    def backward(dy):
        dx = np.zeros_like(x)
        for i in range(p):
            for j in range(q):
                for a in range(n):
                    for b in range(c):
                        r, t = divmod(int(arg[a, b, i, j]), k)
                        dx[a, b, i * s + r, j * s + t] += dy[a, b, i, j]
        return dx
    return y, backward


def avg_pool2d(x, k, s):
    x = np.asarray(x, np.float64)
    n, c, h, w = x.shape
    p, q = (h - k) // s + 1, (w - k) // s + 1
    y = np.zeros((n, c, p, q))
    for i in range(p):
        for j in range(q):
            y[:, :, i, j] = x[:, :, i * s: i * s + k, j * s: j * s + k].mean(axis=(2, 3))
    return y


def integers(shape, seed, lo=-3, hi=3):
    """Small integers (every sum of a few hundred products is exact in fp32 and fp16)."""
    return np.random.default_rng(seed).integers(lo, hi + 1, size=shape).astype(np.float32)


def nhwc(a):
    """The same logical (N, C, H, W) array stored channels last."""
    return np.ascontiguousarray(np.asarray(a).transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
