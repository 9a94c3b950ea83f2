"""hiprim: deep-learning primitives (libhiprim.so through ctypes).

    import numpy as np, hiprim
    x = np.random.rand(2, 3, 8, 8).astype(np.float32)       # host memory -> the host backend
    w = np.random.rand(4, 3, 3, 3).astype(np.float32)
    y = hiprim.conv_forward(x, w, padding=1)                 # (2, 4, 8, 8)
    y, idx = hiprim.pool_forward(hiprim.activation_forward(y, "relu"), "max", kernel=2)

CUDA tensors (torch, or any __cuda_array_interface__ / DLPack producer) run on the device backend;
hiprim.torch has torch.autograd wrappers and nn.Module layers. The library: HIPRIM_LIBRARY, else a
libhiprim.so next to this package, else the system loader."""
from ._core import Error, last_solver, run_problem, version
from .ops import (ACTIVATION_MODES, activation_backward, activation_forward, batch_norm_backward, batch_norm_infer,
                  batch_norm_train, conv_backward_data, conv_backward_weights, conv_forward, dropout_backward,
                  dropout_forward, pool_backward, pool_forward, softmax_backward, softmax_forward)

__all__ = ["Error", "version", "last_solver", "run_problem", "ACTIVATION_MODES", "conv_forward", "conv_backward_data",
           "conv_backward_weights", "batch_norm_train", "batch_norm_infer", "batch_norm_backward", "activation_forward",
           "activation_backward", "softmax_forward", "softmax_backward", "pool_forward", "pool_backward", "dropout_forward",
           "dropout_backward"]
