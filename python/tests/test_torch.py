"""hiprim.torch (autograd wrappers and nn layers) against torch's own functions on CPU tensors
(the host backend): forward values and gradients, a small network, and bf16. Skipped, with the
reason, when torch is not installed."""
import unittest

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # the whole module skips
    torch = None

if torch is not None:
    import hiprim.torch as ht


def _close(test, got, want, rtol=1e-4, atol=1e-5):
    test.assertEqual(got.shape, want.shape)
    test.assertTrue(torch.allclose(got.float(), want.float(), rtol=rtol, atol=atol),
                    f"max |diff| {(got.float() - want.float()).abs().max().item():.3g}")


@unittest.skipIf(torch is None, "torch is not installed (pip install torch)")
class TorchFunctions(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def grads(self, fn, *inputs, dy=None):
        inputs = [t.detach().clone().requires_grad_(True) for t in inputs]
        y = fn(*inputs)
        y.backward(torch.randn(y.shape, generator=torch.Generator().manual_seed(5)) if dy is None else dy)
        return y.detach(), [t.grad for t in inputs]

    def check(self, ours, theirs, *inputs, rtol=1e-4, atol=1e-5):
        y1, g1 = self.grads(ours, *inputs)
        y2, g2 = self.grads(theirs, *inputs)
        _close(self, y1, y2, rtol, atol)
        for a, b in zip(g1, g2):
            _close(self, a, b, rtol, atol)

    def test_conv2d(self):
        x, w, b = torch.randn(2, 3, 9, 8), torch.randn(4, 3, 3, 3), torch.randn(4)
        self.check(lambda x, w, b: ht.conv2d(x, w, b, stride=2, padding=1), lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
                   x, w, b)
        xl = x.contiguous(memory_format=torch.channels_last)
        self.check(lambda x, w: ht.conv2d(x, w, padding=1), lambda x, w: F.conv2d(x, w, padding=1), xl, w)

    def test_batch_norm_training_and_eval(self):
        x, g, b = torch.randn(4, 3, 5, 5) * 2 + 1, torch.rand(3) + 0.5, torch.randn(3)
        rm1, rv1, rm2, rv2 = torch.zeros(3), torch.ones(3), torch.zeros(3), torch.ones(3)
        self.check(lambda x, g, b: ht.batch_norm(x, rm1, rv1, g, b, True, 0.1, 1e-5),
                   lambda x, g, b: F.batch_norm(x, rm2, rv2, g, b, True, 0.1, 1e-5), x, g, b)
        _close(self, rm1, rm2)
        _close(self, rv1, rv2)
        self.check(lambda x, g, b: ht.batch_norm(x, rm1, rv1, g, b, False, 0.1, 1e-5),
                   lambda x, g, b: F.batch_norm(x, rm2, rv2, g, b, False, 0.1, 1e-5), x, g, b)

    def test_relu_pools_and_log_softmax(self):
        x = torch.randn(2, 3, 8, 6)
        self.check(ht.relu, F.relu, x, atol=0)
        self.check(lambda x: ht.max_pool2d(x, 2), lambda x: F.max_pool2d(x, 2), x, atol=0)
        self.check(lambda x: ht.max_pool2d(x, 3, 2, 1), lambda x: F.max_pool2d(x, 3, 2, 1), x, atol=0)
        self.check(lambda x: ht.avg_pool2d(x, 2), lambda x: F.avg_pool2d(x, 2), x)
        self.check(lambda x: ht.avg_pool2d(x, 3, 1, 1, count_include_pad=False),
                   lambda x: F.avg_pool2d(x, 3, 1, 1, count_include_pad=False), x)
        logits = torch.randn(6, 10) * 3
        self.check(lambda z: ht.log_softmax(z, 1), lambda z: F.log_softmax(z, 1), logits)

    def test_a_network_of_hiprim_layers_matches_torch(self):
        def net(conv, bn, relu, pool):
            return torch.nn.Sequential(conv(1, 4, 3, padding=1), bn(4), relu(), pool(2), torch.nn.Flatten(), torch.nn.Linear(64, 10))
        torch.manual_seed(1)
        ours = net(ht.Conv2d, ht.BatchNorm2d, ht.ReLU, ht.MaxPool2d)
        theirs = net(torch.nn.Conv2d, torch.nn.BatchNorm2d, torch.nn.ReLU, torch.nn.MaxPool2d)
        theirs.load_state_dict(ours.state_dict())
        x, labels = torch.randn(8, 1, 8, 8), torch.randint(0, 10, (8,))
        for model, log_softmax in ((ours, ht.LogSoftmax(1)), (theirs, torch.nn.LogSoftmax(1))):
            F.nll_loss(log_softmax(model(x)), labels).backward()
        for (name, p1), p2 in zip(ours.named_parameters(), theirs.parameters()):
            with self.subTest(parameter=name):
                _close(self, p1.grad, p2.grad, rtol=1e-4, atol=1e-5)
        _close(self, ours[1].running_var, theirs[1].running_var)
        self.assertEqual(int(ours[1].num_batches_tracked), 1)

    def test_bf16(self):
        x, w = torch.randn(2, 3, 6, 6).bfloat16(), torch.randn(4, 3, 3, 3).bfloat16()
        y = ht.conv2d(x, w, padding=1)
        self.assertEqual(y.dtype, torch.bfloat16)
        _close(self, y, F.conv2d(x.float(), w.float(), padding=1), rtol=2e-2, atol=5e-2)

    def test_dropout_masks_forward_and_backward_alike(self):
        x = torch.randn(4, 5, 20, 25) + 3.0  # no zeros: a zero output marks a dropped element
        xg = x.clone().requires_grad_(True)
        y = ht.dropout(xg, 0.3, True, seed=11)
        kept = y != 0
        self.assertAlmostEqual(1.0 - kept.float().mean().item(), 0.3, delta=0.02)  # 10000 draws: sd 0.0046
        scale = torch.tensor(1.0 / 0.7, dtype=torch.float32)  # fl32(1 / (1 - rate))
        self.assertTrue(torch.equal(y[kept], x[kept] * scale))
        dy = torch.randn(x.shape)
        y.backward(dy)
        self.assertTrue(torch.equal(xg.grad, torch.where(kept, dy * scale, torch.zeros(()))))
        self.assertTrue(torch.equal(ht.dropout(x, 0.3, True, seed=11), y.detach()))  # the mask is a function of the seed
        self.assertFalse(torch.equal(ht.dropout(x, 0.3, True, seed=12), y.detach()))
        self.assertIs(ht.dropout(x, 0.3, False), x)  # eval: identity
        m = ht.Dropout(0.5).eval()
        self.assertIs(m(x), x)
        z = ht.Dropout(0.5).train()(torch.randn(8, 16) + 3.0)  # 2-D input (a classifier's features)
        self.assertEqual(z.shape, (8, 16))
        with self.assertRaisesRegex(ValueError, r"dropout probability 1"):
            ht.dropout(x, 1.0)

    def test_bad_input_names_the_problem(self):
        with self.assertRaisesRegex(TypeError, r"x: dtype torch.float64 is not torch.float32"):
            ht.relu(torch.randn(1, 2, 3, 3, dtype=torch.float64))
        with self.assertRaisesRegex(ValueError, r"ceil_mode=True is not taken"):
            ht.max_pool2d(torch.randn(1, 1, 4, 4), 2, ceil_mode=True)
        with self.assertRaisesRegex(ValueError, r"dim 0"):
            ht.log_softmax(torch.randn(3, 4), 0)

    @unittest.skipIf(torch is None or not torch.cuda.is_available(), "no CUDA device: the device backend is tested on a GPU machine")
    def test_cuda_tensors_use_the_device_backend(self):
        x, w = torch.randn(2, 3, 9, 8), torch.randn(4, 3, 3, 3)
        self.check(lambda x, w: ht.conv2d(x.cuda(), w.cuda(), padding=1).cpu(), lambda x, w: F.conv2d(x, w, padding=1), x, w,
                   rtol=1e-3, atol=1e-3)


if __name__ == "__main__":
    unittest.main()
