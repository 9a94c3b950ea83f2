"""hiprim.torch on CUDA tensors (the device backend) against the same calls on CPU copies (the host
backend: hiprim's reference solvers), forward and backward, in bf16 and fp32 at the shapes of the
training client's network (python/examples/train_digits.py: x [64, 1, 16, 16], conv-BN-ReLU blocks
of 16 and 32 channels, 2x2 max and average pooling, log-softmax over 10 classes).

Bound: the host computes in double and rounds each output once; the device accumulates in fp32
in its own order and rounds once. So |device - host| <= 2 ulp(dtype) |host| (the two roundings)
+ (2 ulp(dtype) / 64 + L u) max|host| (u = 2^-24; L u a tolerance for the fp32 accumulation order,
L = 1024, far above what these sums produce: conv's 144 terms, pooling's 4, batch norm's 16384 in a
tree, about log2(n) u; the ulp/64 term for outputs that cancel to near zero, batch norm's centred
values and its gradients). A kernel computing a different function (a wrong statistic, stride or
parameter dtype, a race) misses it by orders of magnitude. This is a localising test; the
conformance bounds are `hiprim check`'s.
Skipped without a CUDA device."""
import unittest

try:
    import torch
except ImportError:
    torch = None

if torch is not None:
    import hiprim.torch as ht

ULP = {"bf16": 2.0 ** -8, "fp32": 2.0 ** -23}


def _cuda():
    return torch is not None and torch.cuda.is_available()


@unittest.skipIf(not _cuda(), "no CUDA device: the device backend is compared with the host on a GPU machine")
class DeviceAgainstHost(unittest.TestCase):
    def run_both(self, fn, inputs, dtype):
        """fn's output and input gradients on CPU and on CUDA copies of the same inputs and dy."""
        out = {}
        dy = None
        for dev in ("cpu", "cuda"):
            xs = [t.detach().to(dev, dtype).requires_grad_(t.is_floating_point()) for t in inputs]
            y = fn(*xs)
            if dy is None:
                dy = torch.randn(y.shape, generator=torch.Generator().manual_seed(7)).to(dtype)
            y.backward(dy.to(dev))
            out[dev] = [y.detach().cpu().double()] + [x.grad.cpu().double() for x in xs if x.grad is not None]
        return out["cpu"], out["cuda"]

    def check(self, name, fn, inputs, dtypes=("bf16", "fp32")):
        for dt in dtypes:
            dtype = torch.bfloat16 if dt == "bf16" else torch.float32
            with self.subTest(op=name, dtype=dt):
                host, dev = self.run_both(fn, inputs, dtype)
                for i, (h, d) in enumerate(zip(host, dev)):
                    what = "y" if i == 0 else f"grad {i - 1}"
                    self.assertEqual(h.shape, d.shape, f"{name} {dt} {what}")
                    scale = h.abs().max().item()
                    bound = 2 * ULP[dt] * (h.abs() + scale / 64) + 1024 * 2.0 ** -24 * scale
                    excess = ((d - h).abs() - bound).max().item()
                    worst = (d - h).abs().max().item()
                    print(f"{name} {dt} {what}: max |device - host| {worst:.3g} (max |host| {scale:.3g})")
                    self.assertLessEqual(excess, 0.0, f"{name} {dt} {what}: max |device - host| {worst:.3g}, max |host| {scale:.3g}")

    def test_convolutions_of_the_digits_net(self):
        g = torch.Generator().manual_seed(1)
        for c, k, hw in ((1, 16, 16), (16, 16, 16), (16, 32, 8)):
            x, w = torch.randn(64, c, hw, hw, generator=g), torch.randn(k, c, 3, 3, generator=g) / (3 * c ** 0.5)
            self.check(f"conv c{c} k{k} {hw}x{hw}", lambda x, w: ht.conv2d(x, w, padding=1), [x, w])

    def test_batch_norm_training_and_eval(self):
        g = torch.Generator().manual_seed(2)
        for c, hw in ((16, 16), (32, 8)):
            x = torch.randn(64, c, hw, hw, generator=g) * 1.5 + 0.5
            scale, shift = torch.rand(c, generator=g) + 0.5, torch.randn(c, generator=g)
            stats = {}

            def train(x, s, b, dev_stats=stats):
                key = x.device.type
                dev_stats[key] = (torch.zeros(c, dtype=x.dtype, device=x.device), torch.ones(c, dtype=x.dtype, device=x.device))
                return ht.batch_norm(x, dev_stats[key][0], dev_stats[key][1], s, b, True, 0.1, 1e-5)
            self.check(f"bnorm train c{c} {hw}x{hw}", train, [x, scale, shift])
            mean, var = torch.randn(c, generator=g), torch.rand(c, generator=g) + 0.5
            self.check(f"bnorm infer c{c} {hw}x{hw}",
                       lambda x, s, b: ht.batch_norm(x, mean.to(x.device, x.dtype), var.to(x.device, x.dtype), s, b, False, 0.1, 1e-5),
                       [x, scale, shift])

    def test_running_statistics(self):
        x = torch.randn(64, 16, 16, 16, generator=torch.Generator().manual_seed(3)) * 2 + 1
        got = {}
        for dev in ("cpu", "cuda"):
            rm, rv = torch.zeros(16, device=dev), torch.ones(16, device=dev)
            ht.batch_norm(x.to(dev), rm, rv, torch.ones(16, device=dev), torch.zeros(16, device=dev), True, 0.1, 1e-5)
            got[dev] = (rm.cpu().double(), rv.cpu().double())
        for h, d in zip(got["cpu"], got["cuda"]):
            self.assertLessEqual((h - d).abs().max().item(), 1e-5 * h.abs().max().item())

    def test_relu_pools_and_log_softmax(self):
        g = torch.Generator().manual_seed(4)
        x16, x8 = torch.randn(64, 16, 16, 16, generator=g), torch.randn(64, 32, 8, 8, generator=g)
        self.check("relu", ht.relu, [x16])
        # Max pooling: integers distinct within each 2x2 window (exact in bf16), so no tie decides dx.
        base = torch.randint(-30, 30, (64, 16, 8, 8, 1), generator=g) * 4
        offsets = torch.argsort(torch.rand(64, 16, 8, 8, 4, generator=g), dim=-1)
        xm = (base + offsets).float().view(64, 16, 8, 8, 2, 2).permute(0, 1, 2, 4, 3, 5).reshape(64, 16, 16, 16)
        self.check("max pool 2x2", lambda x: ht.max_pool2d(x, 2), [xm])
        self.check("avg pool 2x2", lambda x: ht.avg_pool2d(x, 2), [x8])
        self.check("log softmax", lambda z: ht.log_softmax(z, 1), [torch.randn(64, 10, generator=g) * 3])
        # The counter-based mask is the same on both backends for one seed: equal within the bound.
        self.check("dropout", lambda x: ht.dropout(x, 0.3, True, seed=5), [x8])


if __name__ == "__main__":
    unittest.main()
