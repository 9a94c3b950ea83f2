"""Bad input to hiprim's Python API: a clear exception naming the argument and what is wrong (the
library's own message where the library refuses), and nothing written."""
import os
import subprocess
import sys
import unittest

import numpy as np

import hiprim
from reference import integers, nhwc

SENTINEL = -7.0


def sentinel(shape):
    return np.full(shape, SENTINEL, np.float32)


class BadInput(unittest.TestCase):
    def setUp(self):
        self.x, self.w = integers((2, 3, 6, 6), 1), integers((4, 3, 3, 3), 2)
        self.out = sentinel((2, 4, 6, 6))

    def assertUntouched(self, *arrays):
        for a in arrays:
            self.assertTrue(np.all(a == SENTINEL), "a refused call wrote its output")

    def test_wrong_dtype(self):
        with self.assertRaisesRegex(TypeError, r"x: dtype float64 is not float32, float16 or bfloat16"):
            hiprim.conv_forward(self.x.astype(np.float64), self.w, padding=1, out=self.out)
        with self.assertRaisesRegex(TypeError, r"w: dtype fp16, x fp32"):
            hiprim.conv_forward(self.x, self.w.astype(np.float16), padding=1, out=self.out)
        with self.assertRaisesRegex(TypeError, r"y: dtype fp16, wanted fp32"):
            hiprim.conv_forward(self.x, self.w, padding=1, out=self.out.astype(np.float16))
        with self.assertRaisesRegex(TypeError, r"int32"):
            hiprim.activation_forward(np.zeros((1, 1, 2, 2), np.int32))
        self.assertUntouched(self.out)

    def test_non_contiguous(self):
        with self.assertRaisesRegex(ValueError, r"x: strides .* are neither packed NCHW .* nor packed NHWC"):
            hiprim.conv_forward(integers((2, 3, 6, 12), 3)[:, :, :, ::2], self.w, padding=1, out=self.out)
        out = sentinel((2, 4, 6, 12))
        with self.assertRaisesRegex(ValueError, r"y: strides"):
            hiprim.conv_forward(self.x, self.w, padding=1, out=out[:, :, :, ::2])
        self.assertUntouched(self.out, out)

    def test_wrong_rank(self):
        with self.assertRaisesRegex(ValueError, r"x: rank 3 \(shape \(3, 6, 6\)\); wanted rank 4 or 5"):
            hiprim.conv_forward(self.x[0], self.w, out=self.out)
        with self.assertRaisesRegex(ValueError, r"w: rank 5, x rank 4"):
            hiprim.conv_forward(self.x, self.w[..., None], out=self.out)
        with self.assertRaisesRegex(ValueError, r"scale: rank 2"):
            hiprim.batch_norm_infer(self.x, np.ones((3, 1), np.float32), np.zeros(3, np.float32), np.zeros(3, np.float32),
                                    np.ones(3, np.float32), out=sentinel(self.x.shape))
        self.assertUntouched(self.out)

    def test_mismatched_shapes(self):
        # Channel counts disagree: the library refuses, with its message.
        with self.assertRaises(hiprim.Error) as e:
            hiprim.conv_forward(self.x, integers((4, 2, 3, 3), 4), padding=1, out=self.out)
        self.assertIn("hiprimConvolutionForward", str(e.exception))
        self.assertIn("hiprimStatusBadParm", str(e.exception))
        self.assertEqual(e.exception.status, 3)
        with self.assertRaisesRegex(ValueError, r"y: shape \(2, 4, 6, 6\), wanted \(2, 4, 4, 4\)"):
            hiprim.conv_forward(self.x, self.w, padding=0, out=self.out)
        with self.assertRaisesRegex(ValueError, r"bias: shape \(4,\), wanted \(3,\)"):
            hiprim.batch_norm_infer(self.x, np.ones(3, np.float32), np.zeros(4, np.float32), np.zeros(3, np.float32),
                                    np.ones(3, np.float32), out=sentinel(self.x.shape))
        with self.assertRaisesRegex(ValueError, r"dy: shape"):
            hiprim.pool_backward(sentinel((2, 3, 2, 2)), self.x.shape, "avg", kernel=2, out=sentinel(self.x.shape))
        with self.assertRaisesRegex(ValueError, r"buffer 1 \(y\): 8 bytes"):
            hiprim.run_problem("activ fwd relu fp32 nchw n1 c2 in3x4", [sentinel((1, 2, 3, 4)), sentinel((2,))])
        self.assertUntouched(self.out)

    def test_mixed_layouts_and_read_only_outputs(self):
        with self.assertRaisesRegex(ValueError, r"different channel orders"):
            hiprim.conv_forward(nhwc(self.x), self.w, padding=1, out=self.out)
        self.out.flags.writeable = False
        with self.assertRaisesRegex(ValueError, r"y: the output array is read-only"):
            hiprim.conv_forward(self.x, self.w, padding=1, out=self.out)
        rmean = np.zeros(3, np.float32)
        rmean.flags.writeable = False
        with self.assertRaisesRegex(ValueError, r"running_mean: read-only"):
            hiprim.batch_norm_train(self.x, np.ones(3, np.float32), np.zeros(3, np.float32), rmean, np.ones(3, np.float32))
        self.assertUntouched(self.out)

    def test_bad_modes_and_arguments(self):
        with self.assertRaisesRegex(ValueError, r"activation mode 'relu6' is not one of"):
            hiprim.activation_forward(self.x, "relu6")
        with self.assertRaisesRegex(ValueError, r"softmax algorithm 'fastest'"):
            hiprim.softmax_forward(self.x, "fastest")
        with self.assertRaisesRegex(ValueError, r"pooling mode 'min'"):
            hiprim.pool_forward(self.x, "min")
        with self.assertRaisesRegex(ValueError, r"indices: max pooling's backward needs"):
            hiprim.pool_backward(sentinel((2, 3, 3, 3)), self.x.shape, "max", kernel=2)
        with self.assertRaisesRegex(ValueError, r"stride: \(1, 1, 1\) has 3 values for 2 spatial axes"):
            hiprim.conv_forward(self.x, self.w, stride=(1, 1, 1))
        # The library's own refusal of a bad coefficient (clippedrelu's ceiling must be >= 0).
        with self.assertRaisesRegex(hiprim.Error, r"alpha"):
            hiprim.activation_forward(self.x, "clippedrelu", alpha=-1.0)
        with self.assertRaisesRegex(TypeError, r"x: list is not a numpy array, a torch tensor"):
            hiprim.activation_forward([[1.0]])

    def test_a_missing_library_is_named(self):
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(hiprim.__file__)))
        env = dict(os.environ, HIPRIM_LIBRARY="/nonexistent/libhiprim.so", PYTHONPATH=package_root)
        r = subprocess.run([sys.executable, "-c", "import hiprim; hiprim.version()"], env=env, capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("/nonexistent/libhiprim.so", r.stderr)
        self.assertIn("HIPRIM_LIBRARY", r.stderr)


if __name__ == "__main__":
    unittest.main()
