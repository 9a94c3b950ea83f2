#!/usr/bin/env python3
"""scripts/torch_rnn.py's pure part (no torch needed): every rnn line of bench/suites/rnn.txt and
verify/suites/rnn_large.txt parses into the fields of hiprim's canonical string, and strings that are
not canonical are refused naming themselves. With torch installed (the GPU machine), each
direction's call also runs on the CPU at a small size and returns the gradients asked for."""
import os
import sys
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import torch_rnn  # noqa: E402


def rnn_lines(path):
    with open(os.path.join(REPO, path)) as fh:
        return [ln.strip() for ln in fh if ln.startswith("rnn ")]


class Parse(unittest.TestCase):
    def test_suite_lines_parse(self):
        lines = rnn_lines("bench/suites/rnn.txt") + rnn_lines("verify/suites/rnn_large.txt")
        self.assertGreaterEqual(len(lines), 6)
        for line in lines:
            p = torch_rnn.parse_rnn(line)
            back = (f"rnn {p['dir']} {p['mode']} {p['dtype']} layers{p['layers']} hidden{p['hidden']} input{p['input']} "
                    f"seq{p['seq']} n{p['n']} {'bidir' if p['bidirectional'] else 'uni'} {'bias' if p['bias'] else 'nobias'}"
                    f"{' math=h16' if p['h16'] else ''}")
            self.assertEqual(back, line)

    def test_bench_lines_are_the_issue_cases(self):
        ps = [torch_rnn.parse_rnn(s) for s in rnn_lines("bench/suites/rnn.txt")]
        self.assertEqual({(p["mode"], p["dir"]) for p in ps},
                         {(m, d) for m in ("lstm", "gru") for d in ("fwd", "bwd-data", "bwd-weights")})
        for p in ps:
            self.assertEqual((p["layers"], p["hidden"], p["n"], p["seq"], p["dtype"]), (2, 1024, 64, 128, "bf16"))

    def test_non_canonical_strings_are_refused(self):
        for bad in ("rnn lstm fp32 layers1 hidden4 input4 seq2 n1 uni bias", "rnn fwd lstm fp32 layers1 hidden4 input4 seq2 n1 bias uni",
                    "rnn fwd lstm fp64 layers1 hidden4 input4 seq2 n1 uni bias"):
            with self.assertRaises(ValueError) as e:
                torch_rnn.parse_rnn(bad)
            self.assertIn(bad, str(e.exception))


@unittest.skipUnless(__import__("importlib").util.find_spec("torch"), "torch is not installed")
class OnCpu(unittest.TestCase):
    def test_each_direction_returns_what_it_asks_for(self):
        import torch
        import torch_ops
        torch_ops.DEVICE = "cpu"
        for d, count in (("fwd", 3), ("bwd-data", 3), ("bwd-weights", 8)):
            row = dict(problem=f"rnn {d} lstm fp32 layers2 hidden3 input2 seq4 n2 uni bias")
            call = torch_rnn.rnn_call(torch, row, 1)
            self.assertEqual(len(call(0)), count, d)


if __name__ == "__main__":
    unittest.main()
