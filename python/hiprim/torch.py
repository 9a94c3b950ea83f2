"""torch.autograd wrappers over hiprim's primitives, and nn.Module layers that use them.

Forward and backward of each run through libhiprim.so on the tensors' device (CPU tensors: the
host backend; CUDA tensors: the device backend, on torch's current stream):
  conv2d (the bias added by torch), batch_norm (training: hiprim's forward-training and backward;
  eval: hiprim's inference forward, its backward dx = dy * scale / sqrt(var + eps) in torch),
  relu (and any hiprim.ACTIVATION_MODES via activation), max_pool2d / avg_pool2d (floor mode),
  log_softmax / softmax over dim 1, dropout (hiprim's counter-based mask, its seed drawn from torch's
  CPU generator per call, so torch.manual_seed makes a run repeatable).
The layers Conv2d, BatchNorm2d, ReLU, MaxPool2d, AvgPool2d and LogSoftmax subclass torch.nn's, so
parameters, buffers, initialisation and state_dict are torch's; only forward differs."""
import torch
import torch.nn.functional as F

from . import ops


def _format(*tensors):
    """The one memory format of a call: channels_last when the first tensor is (only) that."""
    x = tensors[0]
    if x.dim() == 4 and not x.is_contiguous() and x.is_contiguous(memory_format=torch.channels_last):
        return torch.channels_last
    return torch.contiguous_format


def _packed(fmt, *tensors):
    return [t.contiguous(memory_format=fmt) if t.dim() == 4 else t.contiguous() for t in tensors]


class _Conv2dFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, stride, padding, dilation, groups):
        fmt = _format(x)
        x, w = _packed(fmt, x, w)
        ctx.geometry, ctx.fmt = (stride, padding, dilation, groups), fmt
        ctx.save_for_backward(x, w)
        return ops.conv_forward(x, w, stride, padding, dilation, groups)

    @staticmethod
    def backward(ctx, gy):
        x, w = ctx.saved_tensors
        (gy,) = _packed(ctx.fmt, gy)
        gx = ops.conv_backward_data(gy, w, x.shape, *ctx.geometry) if ctx.needs_input_grad[0] else None
        gw = ops.conv_backward_weights(gy, x, w.shape, *ctx.geometry) if ctx.needs_input_grad[1] else None
        return gx, gw, None, None, None, None


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """F.conv2d through hiprim (padding an int or a pair; 'same'/'valid' strings are not taken)."""
    if isinstance(padding, str):
        raise ValueError(f"padding {padding!r}: pass the padding as numbers")
    y = _Conv2dFunction.apply(x, weight, stride, padding, dilation, groups)
    return y if bias is None else y + bias.view(1, -1, 1, 1)


class _BatchNormTrainFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var, momentum, eps):
        (x,) = _packed(_format(x), x)
        y, save_mean, save_invstd = ops.batch_norm_train(x, weight, bias, running_mean, running_var, momentum, eps)
        ctx.eps = eps
        ctx.save_for_backward(x, weight, save_mean, save_invstd)
        return y

    @staticmethod
    def backward(ctx, gy):
        x, weight, save_mean, save_invstd = ctx.saved_tensors
        (gy,) = _packed(_format(x), gy)
        dx, dscale, dbias = ops.batch_norm_backward(x, gy, weight, save_mean, save_invstd, ctx.eps)
        return dx, dscale, dbias, None, None, None, None


class _BatchNormInferFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, mean, var, eps):
        (x,) = _packed(_format(x), x)
        ctx.eps = eps
        ctx.save_for_backward(x, weight, mean, var)
        return ops.batch_norm_infer(x, weight, bias, mean, var, eps)

    @staticmethod
    def backward(ctx, gy):
        x, weight, mean, var = ctx.saved_tensors
        shape = (1, -1) + (1,) * (x.dim() - 2)
        inv = torch.rsqrt(var.float() + ctx.eps).view(shape)
        xhat = (x.float() - mean.float().view(shape)) * inv
        dims = [0] + list(range(2, x.dim()))
        gx = (gy.float() * weight.float().view(shape) * inv).to(x.dtype)
        return gx, (gy.float() * xhat).sum(dims).to(weight.dtype), gy.float().sum(dims).to(weight.dtype), None, None, None


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """F.batch_norm through hiprim (spatial: per channel). Without weight/bias: 1 and 0; without
    running statistics in training: batch statistics only."""
    c = x.shape[1]
    pdtype = weight.dtype if weight is not None else running_mean.dtype if running_mean is not None else torch.float32
    if weight is None:
        weight = torch.ones(c, dtype=pdtype, device=x.device)
    if bias is None:
        bias = torch.zeros(c, dtype=pdtype, device=x.device)
    # hiprim's device solvers take fp32 parameters and statistics (as MIOpen's and cuDNN's do for fp16/bf16
    # data): lower-precision ones (a module moved to bf16) run as fp32 copies, exact widenings; the
    # running statistics are rounded back after the update and the gradients cast back by autograd.
    weight, bias = weight.float(), bias.float()
    if training:
        if momentum is None:
            raise ValueError("momentum None (a cumulative average) is not taken: pass a number")
        if running_mean is None:
            running_mean, running_var = torch.zeros(c, dtype=pdtype, device=x.device), torch.ones(c, dtype=pdtype, device=x.device)
        rm, rv = running_mean.float(), running_var.float()  # the same tensors when already fp32
        y = _BatchNormTrainFunction.apply(x, weight, bias, rm, rv, momentum, eps)
        if rm is not running_mean:
            with torch.no_grad():
                running_mean.copy_(rm), running_var.copy_(rv)
        return y
    if running_mean is None:
        raise ValueError("inference batch norm needs running_mean and running_var")
    return _BatchNormInferFunction.apply(x, weight, bias, running_mean.float(), running_var.float(), eps)


class _ActivationFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, mode, alpha, beta, gamma):
        (x,) = _packed(_format(x), x)
        ctx.args = (mode, alpha, beta, gamma)
        ctx.save_for_backward(x)
        return ops.activation_forward(x, mode, alpha, beta, gamma)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        (gy,) = _packed(_format(x), gy)
        return ops.activation_backward(x, gy, *ctx.args), None, None, None, None


def activation(x, mode="relu", alpha=1.0, beta=1.0, gamma=1.0):
    return _ActivationFunction.apply(x, mode, alpha, beta, gamma)


def relu(x):
    return activation(x, "relu")


class _PoolFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, mode, kernel, stride, padding):
        fmt = _format(x)
        (x,) = _packed(fmt, x)
        ctx.args, ctx.x_shape, ctx.fmt = (mode, kernel, stride, padding), x.shape, fmt
        if mode == "max":
            y, idx = ops.pool_forward(x, mode, kernel, stride, padding)
            ctx.save_for_backward(idx)
            ctx.mark_non_differentiable(idx)
            return y
        ctx.save_for_backward()
        return ops.pool_forward(x, mode, kernel, stride, padding)

    @staticmethod
    def backward(ctx, gy):
        (gy,) = _packed(ctx.fmt, gy)
        mode, kernel, stride, padding = ctx.args
        idx = ctx.saved_tensors[0] if mode == "max" else None
        return ops.pool_backward(gy, ctx.x_shape, mode, kernel, stride, padding, indices=idx), None, None, None, None


def _pool_args(ceil_mode, dilation=1):
    if ceil_mode:
        raise ValueError("ceil_mode=True is not taken (hiprim pools in floor mode)")
    if dilation not in (1, (1, 1)):
        raise ValueError(f"dilation {dilation!r} is not taken (1 only)")


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    _pool_args(ceil_mode, dilation)
    return _PoolFunction.apply(x, "max", kernel_size, stride or kernel_size, padding)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    _pool_args(ceil_mode)
    if divisor_override is not None:
        raise ValueError("divisor_override is not taken")
    return _PoolFunction.apply(x, "avg_incl" if count_include_pad else "avg_excl", kernel_size, stride or kernel_size, padding)


class _SoftmaxFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, algorithm):
        (x,) = _packed(_format(x), x)
        y = ops.softmax_forward(x, algorithm, "channel")
        ctx.algorithm = algorithm
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        (gy,) = _packed(_format(y), gy)
        return ops.softmax_backward(y, gy, ctx.algorithm, "channel"), None


def _softmax_dim(x, dim):
    if dim not in (1, -1 if x.dim() == 2 else 1):
        raise ValueError(f"dim {dim}: hiprim's softmax runs over dim 1 (the channels)")


def log_softmax(x, dim=1):
    _softmax_dim(x, dim)
    return _SoftmaxFunction.apply(x, "log")


def softmax(x, dim=1):
    _softmax_dim(x, dim)
    return _SoftmaxFunction.apply(x, "accurate")


class _DropoutFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, rate, seed):
        (x,) = _packed(_format(x), x)
        ctx.rate, ctx.seed, ctx.fmt = rate, seed, _format(x)
        return ops.dropout_forward(x, rate, seed)

    @staticmethod
    def backward(ctx, gy):
        (gy,) = _packed(ctx.fmt, gy)
        return ops.dropout_backward(gy, ctx.rate, ctx.seed), None, None


def dropout(x, p=0.5, training=True, seed=None):
    """F.dropout through hiprim (2-D and higher inputs: any tensor is viewed as [N, C, ...]); the mask
    comes from hiprim's Philox stream at `seed` (default: drawn from torch's CPU generator)."""
    if not 0.0 <= p < 1.0:
        raise ValueError(f"dropout probability {p}: expected 0 <= p < 1 (p = 1 drops everything: use zeros)")
    if not training or p == 0.0:
        return x
    if seed is None:
        seed = int(torch.randint(0, 2 ** 62, (1,)).item())
    shape = x.shape
    x4 = x.reshape(shape[0], shape[1] if x.dim() > 1 else 1, -1, 1) if x.dim() != 4 else x
    y = _DropoutFunction.apply(x4, p, seed)
    return y.reshape(shape) if x.dim() != 4 else y


class Conv2d(torch.nn.Conv2d):
    def forward(self, x):
        if self.padding_mode != "zeros":
            raise ValueError(f"padding_mode {self.padding_mode!r} is not taken (zeros only)")
        return conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class BatchNorm2d(torch.nn.BatchNorm2d):
    def forward(self, x):
        training = self.training or not self.track_running_stats
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
        return batch_norm(x, self.running_mean if not self.training or self.track_running_stats else None,
                          self.running_var if not self.training or self.track_running_stats else None, self.weight, self.bias,
                          training, self.momentum, self.eps)


class ReLU(torch.nn.ReLU):
    def forward(self, x):
        return relu(x)


class MaxPool2d(torch.nn.MaxPool2d):
    def forward(self, x):
        if self.return_indices:
            raise ValueError("return_indices is not taken")
        return max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


class AvgPool2d(torch.nn.AvgPool2d):
    def forward(self, x):
        return avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                          self.divisor_override)


class Dropout(torch.nn.Dropout):
    def forward(self, x):
        return dropout(x, self.p, self.training)


class LogSoftmax(torch.nn.LogSoftmax):
    def forward(self, x):
        return log_softmax(x, 1 if self.dim is None else self.dim)


__all__ = ["conv2d", "batch_norm", "activation", "relu", "max_pool2d", "avg_pool2d", "log_softmax", "softmax", "dropout",
           "Conv2d", "BatchNorm2d", "ReLU", "MaxPool2d", "AvgPool2d", "Dropout", "LogSoftmax"]
