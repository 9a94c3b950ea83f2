"""hiprim's Python API on the host backend over numpy arrays, against tests/reference.py:
exact where the data makes every sum exact (convolution on small integers, relu, max pooling),
else within a few units in the last place of fp32 (1e-5 relative)."""
import unittest

import numpy as np

import hiprim
from reference import avg_pool2d, batch_norm_backward, batch_norm_train, conv2d, gelu, integers, log_softmax_rows, max_pool2d, nhwc

RTOL, ATOL = 1e-5, 1e-5


class Conv(unittest.TestCase):
    def test_forward_equals_a_direct_convolution_nchw_and_nhwc(self):
        for stride, padding, dilation in ((1, 1, 1), (2, 0, 1), (1, 2, 2)):
            x, w = integers((2, 3, 9, 8), 1), integers((4, 3, 3, 3), 2)
            want = conv2d(x, w, stride, padding, dilation)
            for layout in (lambda a: a, nhwc):
                y = hiprim.conv_forward(layout(x), layout(w), stride=stride, padding=padding, dilation=dilation)
                self.assertEqual(y.shape, want.shape)
                np.testing.assert_array_equal(y, want.astype(np.float32))
        self.assertTrue(hiprim.last_solver("host"))

    def test_nhwc_output_is_channels_last(self):
        y = hiprim.conv_forward(nhwc(integers((1, 2, 5, 5), 3)), nhwc(integers((3, 2, 3, 3), 4)), padding=1)
        self.assertEqual(y.strides, (5 * 5 * 3 * 4, 4, 5 * 3 * 4, 3 * 4))

    def test_backward_directions_are_the_adjoints(self):
        # <conv(x, w), dy> = <x, dx> = <w, dw>, exact on small integers.
        x, w = integers((2, 3, 7, 6), 5), integers((4, 3, 3, 3), 6)
        dy = integers((2, 4, 4, 3), 7)
        dx = hiprim.conv_backward_data(dy, w, x.shape, stride=2, padding=1)
        dw = hiprim.conv_backward_weights(dy, x, w.shape, stride=2, padding=1)
        inner = float((conv2d(x, w, 2, 1) * dy).sum())
        self.assertEqual(float((x.astype(np.float64) * dx).sum()), inner)
        self.assertEqual(float((w.astype(np.float64) * dw).sum()), inner)
        self.assertNotEqual(inner, 0.0)

    def test_fp16_and_grouped(self):
        x, w = integers((1, 4, 6, 6), 8), integers((6, 2, 3, 3), 9)
        y = hiprim.conv_forward(x.astype(np.float16), w.astype(np.float16), padding=1, groups=2)
        want = np.concatenate([conv2d(x[:, :2], w[:3], 1, 1), conv2d(x[:, 2:], w[3:], 1, 1)], axis=1)
        self.assertEqual(y.dtype, np.float16)
        np.testing.assert_array_equal(y.astype(np.float64), want)

    def test_out_is_written_in_place(self):
        x, w = integers((1, 2, 4, 4), 10), integers((2, 2, 1, 1), 11)
        out = np.full((1, 2, 4, 4), -9.0, np.float32)
        self.assertIs(hiprim.conv_forward(x, w, out=out), out)
        np.testing.assert_array_equal(out, conv2d(x, w))


class BatchNorm(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(12)
        self.x = rng.normal(1.0, 2.0, (4, 3, 5, 6)).astype(np.float32)
        self.scale, self.bias = np.array([1.5, -0.5, 2.0], np.float32), np.array([0.25, 1.0, -3.0], np.float32)

    def test_training_forward_and_running_statistics(self):
        rmean, rvar = np.array([0.5, -1, 2], np.float32), np.array([1, 2, 0.5], np.float32)
        r0, v0 = rmean.copy(), rvar.copy()
        y, mean, inv = hiprim.batch_norm_train(self.x, self.scale, self.bias, rmean, rvar, momentum=0.1, eps=1e-5)
        want, wmean, winv = batch_norm_train(self.x, self.scale, self.bias, 1e-5)
        np.testing.assert_allclose(y, want, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(mean, wmean, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(inv, winv, rtol=RTOL)
        m = self.x.size // 3
        np.testing.assert_allclose(rmean, 0.9 * r0 + 0.1 * wmean, rtol=RTOL)
        np.testing.assert_allclose(rvar, 0.9 * v0 + 0.1 * self.x.astype(np.float64).var(axis=(0, 2, 3)) * m / (m - 1), rtol=RTOL)

    def test_inference_and_backward(self):
        mean, var = np.array([0.5, -1, 2], np.float32), np.array([1, 2, 0.5], np.float32)
        y = hiprim.batch_norm_infer(nhwc(self.x), self.scale, self.bias, mean, var, eps=1e-3)
        want = (self.x - mean.reshape(1, -1, 1, 1)) / np.sqrt(var.reshape(1, -1, 1, 1) + 1e-3) * self.scale.reshape(1, -1, 1, 1) + \
            self.bias.reshape(1, -1, 1, 1)
        np.testing.assert_allclose(y, want, rtol=RTOL, atol=ATOL)
        _, smean, sinv = hiprim.batch_norm_train(self.x, self.scale, self.bias, mean.copy(), var.copy())
        dy = np.cos(np.arange(self.x.size, dtype=np.float32)).reshape(self.x.shape)
        dx, dscale, dbias = hiprim.batch_norm_backward(self.x, dy, self.scale, smean, sinv)
        wdx, wds, wdb = batch_norm_backward(self.x, dy, self.scale, smean.astype(np.float64), sinv.astype(np.float64))
        np.testing.assert_allclose(dbias, wdb, rtol=RTOL, atol=1e-4)
        np.testing.assert_allclose(dscale, wds, rtol=RTOL, atol=1e-4)
        np.testing.assert_allclose(dx, wdx, rtol=1e-4, atol=1e-5)


class Activation(unittest.TestCase):
    def test_relu_forward_backward_exact(self):
        x = np.linspace(-3, 3, 2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
        dy = integers(x.shape, 13)
        np.testing.assert_array_equal(hiprim.activation_forward(x, "relu"), np.maximum(x, 0))
        np.testing.assert_array_equal(hiprim.activation_backward(x, dy, "relu"), np.where(x > 0, dy, 0))

    def test_gelu_and_leaky_relu(self):
        x = np.linspace(-4, 4, 120, dtype=np.float32).reshape(2, 3, 4, 5)
        np.testing.assert_allclose(hiprim.activation_forward(x, "gelu"), gelu(x), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(hiprim.activation_forward(x, "leakyrelu", alpha=0.1), np.where(x > 0, x, 0.1 * x), rtol=1e-6)


class Softmax(unittest.TestCase):
    def test_log_softmax_rows_forward_backward(self):
        x = np.random.default_rng(14).normal(0, 3, (5, 10)).astype(np.float32)
        y = hiprim.softmax_forward(x, "log")
        self.assertEqual(y.shape, (5, 10))
        np.testing.assert_allclose(y, log_softmax_rows(x), rtol=1e-5, atol=1e-5)
        dy = np.random.default_rng(15).normal(0, 1, x.shape).astype(np.float32)
        dx = hiprim.softmax_backward(y, dy, "log")
        want = dy - np.exp(y.astype(np.float64)) * dy.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(dx, want, rtol=1e-5, atol=1e-5)

    def test_softmax_channel_mode_4d(self):
        x = np.random.default_rng(16).normal(0, 2, (2, 4, 3, 3)).astype(np.float32)
        y = hiprim.softmax_forward(x, "accurate", "channel")
        e = np.exp(x - x.max(axis=1, keepdims=True))
        np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


class Pool(unittest.TestCase):
    def test_max_forward_backward(self):
        x = np.random.default_rng(17).normal(0, 1, (2, 3, 6, 8)).astype(np.float32)
        y, idx = hiprim.pool_forward(x, "max", kernel=2)
        want, backward = max_pool2d(x, 2, 2)
        np.testing.assert_array_equal(y, want.astype(np.float32))
        self.assertEqual(idx.dtype, np.float32)
        dy = integers(y.shape, 18)
        np.testing.assert_array_equal(hiprim.pool_backward(dy, x.shape, "max", kernel=2, indices=idx), backward(dy))

    def test_avg_forward_backward_nhwc(self):
        x = nhwc(np.random.default_rng(19).normal(0, 1, (2, 3, 6, 6)).astype(np.float32))
        y = hiprim.pool_forward(x, "avg", kernel=3, stride=3)
        np.testing.assert_allclose(y, avg_pool2d(x, 3, 3), rtol=1e-6, atol=1e-6)
        dx = hiprim.pool_backward(np.ones(y.shape, np.float32), x.shape, "avg", kernel=3, stride=3)
        np.testing.assert_allclose(dx, np.full(x.shape, 1 / 9), rtol=1e-6)


class DLPackOnly:
    """An array seen only through the DLPack protocol (numpy's export underneath)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class CudaArrayInterfaceOnly:
    """Claims to be CUDA memory (__cuda_array_interface__), as cupy or numba arrays do."""

    def __init__(self, a):
        self.a = a
        self.__cuda_array_interface__ = {"shape": a.shape, "typestr": a.dtype.str, "data": (a.ctypes.data, False), "version": 3,
                                         "strides": None}


class ArrayProtocols(unittest.TestCase):
    def test_dlpack_inputs_on_the_host(self):
        x, w = integers((1, 2, 5, 5), 20), integers((3, 2, 3, 3), 21)
        out = np.full((1, 3, 5, 5), -9.0, np.float32)
        hiprim.conv_forward(DLPackOnly(x), DLPackOnly(w), padding=1, out=out)
        np.testing.assert_array_equal(out, conv2d(x, w, 1, 1))
        with self.assertRaisesRegex(ValueError, r"cannot allocate an output for a dlpack input; pass it as out="):
            hiprim.activation_forward(DLPackOnly(x))

    def test_cuda_arrays_go_to_the_device_backend(self):
        from hiprim import _core
        try:
            _core.handle("cuda")
        except hiprim.Error:
            pass
        else:  # a host pointer posing as CUDA memory must not reach a real device
            self.skipTest("a GPU is usable here: the device backend is tested with real CUDA arrays (test_torch.py)")
        x = integers((1, 2, 4, 4), 22)
        out = CudaArrayInterfaceOnly(np.full((1, 2, 4, 4), -9.0, np.float32))
        with self.assertRaises(hiprim.Error) as e:  # no usable GPU: the device backend says so, nothing ran
            hiprim.activation_forward(CudaArrayInterfaceOnly(x), "relu", out=out)
        self.assertIn("hiprimCreateWithBackend(cuda)", str(e.exception))
        self.assertIn("hiprimStatusNotInitialized", str(e.exception))
        self.assertTrue(np.all(out.a == -9.0))
        with self.assertRaisesRegex(ValueError, r"arrays on different devices: x on cuda:0, w on host:0"):
            hiprim.conv_forward(CudaArrayInterfaceOnly(x), integers((2, 2, 1, 1), 23))


class Library(unittest.TestCase):
    def test_version_and_generic_problem(self):
        self.assertEqual(len(hiprim.version()), 3)
        self.assertGreaterEqual(hiprim.version()[0], 0)
        x = np.arange(-12, 12, dtype=np.float32).reshape(1, 2, 3, 4)
        y = np.full_like(x, -9)
        self.assertEqual(hiprim.run_problem("activ fwd abs fp32 nchw n1 c2 in3x4", [x, y]), "ref.activ")
        np.testing.assert_array_equal(y, np.abs(x))


if __name__ == "__main__":
    unittest.main()
