#!/usr/bin/env python3
"""Trains a small CNN on scikit-learn's digits (8x8 images, upsampled to 16x16) in bfloat16 twice
from the same initial weights and the same batches: once with every convolution, batch norm,
activation, pooling and (log-)softmax through hiprim (hiprim.torch), once in plain PyTorch. The
linear classifier and the loss's negative log-likelihood are PyTorch in both.

Writes DIR/train_digits.json (both loss curves, per-step times, final test accuracies) and
DIR/train_digits.png (the loss curves; skipped with a message when matplotlib is absent).

  python train_digits.py --device cpu --steps 200 --out out/    # host backend, torch CPU tensors
  python train_digits.py --device cuda --steps 500 --out out/   # device backend, torch CUDA tensors

libhiprim.so: HIPRIM_LIBRARY, else next to the hiprim package, else the system loader."""
import argparse
import json
import math
import os
import sys
import time

MARK = "HIPRIM_PYTHON_SKIPPED"
try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:
    print(f"{MARK}: {e.name} is not installed (pip install torch scikit-learn)")
    sys.exit(0)
try:  # optional with --split (a split saved by --save-split on a machine that has scikit-learn)
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
except ImportError:
    load_digits = None

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import hiprim.torch as ht  # noqa: E402


def make_net(layers):
    """conv-BN-ReLU x2, max pool, conv-BN-ReLU, avg pool, linear; `layers` supplies the classes."""
    conv, bn, relu, max_pool, avg_pool = layers
    return torch.nn.Sequential(
        conv(1, 16, 3, padding=1), bn(16), relu(),
        conv(16, 16, 3, padding=1), bn(16), relu(), max_pool(2),   # 16x16 -> 8x8
        conv(16, 32, 3, padding=1), bn(32), relu(), avg_pool(2),   # 8x8 -> 4x4
        torch.nn.Flatten(), torch.nn.Linear(32 * 4 * 4, 10))


HIPRIM_LAYERS = (ht.Conv2d, ht.BatchNorm2d, ht.ReLU, ht.MaxPool2d, ht.AvgPool2d)
TORCH_LAYERS = (torch.nn.Conv2d, torch.nn.BatchNorm2d, torch.nn.ReLU, torch.nn.MaxPool2d, torch.nn.AvgPool2d)


def load_data(seed, split=None, save_split=None):
    """(x_train, x_test, y_train, y_test); from the .npz `split` when given, else from scikit-learn
    (then also written to `save_split` when given)."""
    if split:
        z = np.load(split)
        return z["x_train"], z["x_test"], z["y_train"], z["y_test"]
    if load_digits is None:
        print(f"{MARK}: sklearn is not installed (pip install scikit-learn, or pass --split FILE.npz)")
        sys.exit(0)
    out = digits_split(seed)
    if save_split:
        np.savez_compressed(save_split, x_train=out[0], x_test=out[1], y_train=out[2], y_test=out[3])
    return out


def digits_split(seed):
    digits = load_digits()
    x = np.kron(digits.images / 16.0, np.ones((1, 2, 2)))[:, None].astype(np.float32)  # (n, 1, 16, 16) in [0, 1]
    x = (x - 0.3) / 0.4
    return train_test_split(x, digits.target.astype(np.int64), test_size=0.2, random_state=seed, stratify=digits.target)


def batches(n, batch, steps, seed):
    """The index batches of every step (reshuffled each epoch), shared by both runs."""
    rng = np.random.default_rng(seed)
    out, order = [], np.array([], dtype=np.int64)
    while len(out) < steps:
        if len(order) < batch:
            order = np.concatenate([order, rng.permutation(n)])
        out.append(order[:batch])
        order = order[batch:]
    return out


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def train(model, log_softmax, data, steps, args):
    x_train, x_test, y_train, y_test = data
    dev = torch.device(args.device)
    xt = torch.from_numpy(x_train).to(dev, torch.bfloat16)
    yt = torch.from_numpy(y_train).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    losses, step_ms, evals = [], [], []
    for i, idx in enumerate(steps):
        idx = torch.from_numpy(idx).to(dev)
        sync(args.device)
        t0 = time.perf_counter()
        model.train()
        opt.zero_grad(set_to_none=True)
        loss = F.nll_loss(log_softmax(model(xt[idx])).float(), yt[idx])
        loss.backward()
        opt.step()
        sync(args.device)
        step_ms.append((time.perf_counter() - t0) * 1e3)
        losses.append(loss.item())
        if (i + 1) % args.eval_every == 0 or i + 1 == len(steps):
            evals.append({"step": i + 1, "test_accuracy": accuracy(model, log_softmax, x_test, y_test, dev)})
    return {"loss": losses, "step_ms": step_ms, "median_step_ms": float(np.median(step_ms)), "evals": evals,
            "test_accuracy": evals[-1]["test_accuracy"],
            "final_train_loss": train_loss(model, log_softmax, x_train, y_train, dev),
            "final_loss_last20_mean": float(np.mean(losses[-20:]))}


@torch.no_grad()
def train_loss(model, log_softmax, x, y, dev):
    """The trained net's NLL over the whole training set (eval mode: running BN statistics), fp32 mean:
    the run's final loss without the noise of its last batch."""
    model.eval()
    out = log_softmax(model(torch.from_numpy(x).to(dev, torch.bfloat16))).float()
    return float(F.nll_loss(out, torch.from_numpy(y).to(dev)).item())


@torch.no_grad()
def accuracy(model, log_softmax, x, y, dev):
    model.eval()
    pred = log_softmax(model(torch.from_numpy(x).to(dev, torch.bfloat16))).argmax(1).cpu().numpy()
    return float((pred == y).mean())


def criterion(ours, theirs):
    """The final loss (whole training set, and the mean of the last 20 batches) relative to PyTorch's,
    and the test accuracy difference in points; reported, not enforced (the losses are bf16 runs that
    start equal and drift apart by rounding)."""
    rel = {k: abs(ours[k] - theirs[k]) / theirs[k] for k in ("final_train_loss", "final_loss_last20_mean")}
    points = 100.0 * abs(ours["test_accuracy"] - theirs["test_accuracy"])
    return {"final_train_loss_rel_diff": rel["final_train_loss"], "last20_loss_rel_diff": rel["final_loss_last20_mean"],
            "test_accuracy_diff_points": points,
            "loss_within_2pct": rel["final_train_loss"] <= 0.02, "accuracy_within_1_point": points <= 1.0}


def plot(result, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no PNG written (pip install matplotlib)")
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, style in (("torch", "-"), ("hiprim", "--")):
        r = result[name]
        ax.plot(range(1, len(r["loss"]) + 1), r["loss"], style,
                label=f"{name}: test acc {r['test_accuracy']:.3f}, {r['median_step_ms']:.1f} ms/step")
    ax.set_xlabel("step")
    ax.set_ylabel("training loss (bf16 forward)")
    ax.set_yscale("log")
    ax.set_title(f"digits CNN, bf16, {result['device']}: hiprim.torch vs PyTorch")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=50, help="test accuracy every N steps (and at the end)")
    ap.add_argument("--out", default="out/train_digits")
    ap.add_argument("--split", help="load the train/test split from this .npz instead of scikit-learn")
    ap.add_argument("--save-split", help="write the scikit-learn split to this .npz (for --split elsewhere)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless every loss is finite and both runs start from the same loss (the smoke test)")
    args = ap.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda: torch sees no CUDA device")
    os.makedirs(args.out, exist_ok=True)
    data = load_data(args.seed, args.split, args.save_split)
    steps = batches(len(data[0]), args.batch, args.steps, args.seed)
    torch.manual_seed(args.seed)
    ours = make_net(HIPRIM_LAYERS)
    theirs = make_net(TORCH_LAYERS)
    theirs.load_state_dict(ours.state_dict())  # the same initial weights
    backend = "host (the CPU reference solvers: correctness, not speed)" if args.device == "cpu" else "device (GPU solvers)"
    result = {"device": args.device, "hiprim_backend": backend, "dtype": "bf16", "steps": args.steps, "batch": args.batch, "lr": args.lr, "seed": args.seed}
    for name, model, log_softmax in (("hiprim", ours, ht.LogSoftmax(1)), ("torch", theirs, torch.nn.LogSoftmax(1))):
        model.to(torch.device(args.device), torch.bfloat16)
        result[name] = train(model, log_softmax, data, steps, args)
        print(f"{name}: loss {result[name]['loss'][0]:.4f} -> {result[name]['loss'][-1]:.4f}, test accuracy "
              f"{result[name]['test_accuracy']:.4f}, median {result[name]['median_step_ms']:.2f} ms/step")
    import hiprim
    result["hiprim_version"] = ".".join(map(str, hiprim.version()))
    result["hiprim_last_solver"] = hiprim.last_solver("host" if args.device == "cpu" else "cuda")
    result["first_loss_diff"] = abs(result["hiprim"]["loss"][0] - result["torch"]["loss"][0])
    result["criterion"] = criterion(result["hiprim"], result["torch"])
    print("criterion (issue 16: final loss within 2% of PyTorch's, test accuracy within 1 point): "
          + json.dumps(result["criterion"]))
    with open(os.path.join(args.out, "train_digits.json"), "w") as f:
        json.dump(result, f, indent=1)
    png = plot(result, os.path.join(args.out, "train_digits.png"))
    print(f"wrote {os.path.join(args.out, 'train_digits.json')}" + (f" and {png}" if png else ""))
    if args.check:
        finite = all(math.isfinite(v) for r in ("hiprim", "torch") for v in result[r]["loss"])
        # bf16 forward: the two first losses (same weights, same batch) differ only by rounding.
        same_start = result["first_loss_diff"] <= 0.02 * max(1.0, result["torch"]["loss"][0])
        if not (finite and same_start):
            print(f"check failed: finite losses {finite}, first losses {result['hiprim']['loss'][0]} vs {result['torch']['loss'][0]}")
            return 1
        print("check passed: finite losses, the same first loss within 2%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
