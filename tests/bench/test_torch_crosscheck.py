#!/usr/bin/env python3
"""The pure parts of scripts/torch_crosscheck.py (no torch needed): hiprim's canonical problem
strings of both suites, the suite rewrites, op parsing, count-weighted totals, the join with a
`hiprim bench` report and the >10% flag, and the command line in --results mode. With HIPRIM_BIN
(the built hiprim), every generated string must read back unchanged through
`hiprim repro "<s>" --print-problem` (the parser's canonical printer)."""
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import torch_crosscheck as tc  # noqa: E402


def read(path):
    with open(path) as fh:
        return fh.read()


class Suites(unittest.TestCase):
    def test_conv_strings_follow_hiprims_printer(self):
        layers = tc.resnet50_layers(read(tc.LAYERS_FILE))
        self.assertEqual(len(layers), 23)
        self.assertEqual(sum(L["count"] for L in layers), 53)  # ResNet-50's 53 convolutions (fc excluded)
        self.assertEqual(tc.conv_problem(layers[0], 32, "bf16", "nhwc", "fwd"),
                         "conv fwd bf16 nhwc n32 c3 k64 in224x224 f7x7 pad3x3 str2x2 dil1x1 g1")
        self.assertEqual(tc.conv_problem(layers[8], 8, "fp32", "nchw", "bwd-weights"),
                         "conv bwd-weights fp32 nchw n8 c256 k512 in56x56 f1x1 pad0x0 str2x2 dil1x1 g1")
        rows = tc.conv_suite(layers, 32, ["fp32", "bf16"], ["nchw", "nhwc"], ["fwd", "bwd-data"])
        self.assertEqual(len(rows), 23 * 2 * 2 * 2)
        self.assertEqual(len({r["problem"] for r in rows}), len(rows))
        self.assertEqual(rows[0]["group"], "fwd")
        self.assertEqual(rows[-1]["problem"].split()[:4], ["conv", "bwd-data", "bf16", "nhwc"])

    def test_tf32_strings_carry_the_token(self):
        layers = tc.resnet50_layers(read(tc.LAYERS_FILE))
        self.assertEqual(tc.conv_problem(layers[1], 32, "fp32", "nhwc", "fwd", "tf32"),
                         "conv fwd fp32 nhwc n32 c64 k64 in56x56 f1x1 pad0x0 str1x1 dil1x1 g1 math=tf32")
        rows = tc.conv_suite(layers, 32, ["fp32"], ["nhwc"], ["fwd"], "tf32")
        self.assertTrue(all(r["problem"].endswith(" math=tf32") for r in rows))

    def test_bad_layer_line_names_the_line(self):
        with self.assertRaisesRegex(tc.InputError, "resnet50_layers.txt:2"):
            tc.resnet50_layers("3 64 224 224 7 7 2 3 1\n1 2 3\n")

    def test_op_rewrites_match_the_bench_suite(self):
        self.assertEqual(tc.rebatch_problem("tensorop add fp32 nchw a32x256x56x56 b1x256x1x1 alpha1=1 alpha2=1 beta=0", 32, 8),
                         "tensorop add fp32 nchw a8x256x56x56 b1x256x1x1 alpha1=1 alpha2=1 beta=0")
        self.assertEqual(tc.rebatch_problem("reduce add fp32 nchw dims32x256x56x56 over0x2x3 nan_ignore", 32, 4),
                         "reduce add fp32 nchw dims4x256x56x56 over0x2x3 nan_ignore")
        self.assertEqual(tc.rebatch_problem("activ fwd relu fp32 nchw n32 c64 in112x112", 32, 2),
                         "activ fwd relu fp32 nchw n2 c64 in112x112")
        self.assertEqual(tc.with_dtype_layout("pool fwd max fp32 nchw n32 c64 in112x112 win3x3 pad1x1 str2x2", "bf16", "nhwc"),
                         "pool fwd max bf16 nhwc n32 c64 in112x112 win3x3 pad1x1 str2x2")
        self.assertEqual(tc.with_dtype_layout("bnorm bwd spatial fp32 ncdhw n2 c3 in4x5x6 eps1e-05", "fp16", "nhwc"),
                         "bnorm bwd spatial fp16 ndhwc n2 c3 in4x5x6 eps1e-05")
        rows = tc.op_suite(read(tc.OPS_FILE), 32, ["bf16"], ["nhwc"], ["all"])
        self.assertEqual(len(rows), 77)  # every line of resnet50_ops.txt: 70 counted, 7 count-0 extras
        self.assertEqual(sum(1 for r in rows if r["count"] == 0), 7)
        self.assertIn("bnorm fwd-train spatial bf16 nhwc n32 c64 in112x112 eps1e-05 momentum0.1", [r["problem"] for r in rows])
        relu = tc.op_suite(read(tc.OPS_FILE), 32, ["bf16"], ["nhwc"], ["relu"])
        self.assertEqual(len(relu), 24)
        self.assertEqual({r["group"] for r in relu}, {"activ fwd", "activ bwd"})
        self.assertEqual(sum(r["count"] for r in relu if r["group"] == "activ fwd"), 49)  # 49 ReLUs in ResNet-50
        self.assertFalse(tc.op_selected("reduce max fp32 nchw dims4x4 over1 nan_ignore max", "ignored-after-dtype"))
        self.assertTrue(tc.op_selected("pool bwd max fp32 nchw n1 c1 in4x4 win2x2 pad0x0 str2x2", "max"))

    def test_problem_list_rows(self):
        rows = tc.problem_list("# the sweep's cases\nbnorm fwd-infer spatial bf16 nhwc n32 c64 in112x112 eps1e-05\n\n"
                               "pool fwd max fp32 ncdhw n2 c3 in4x9x9 win3x3x3 pad1x1x1 str2x2x2  # 3-D\n")
        self.assertEqual([(r["group"], r["dtype"], r["layout"], r["count"], r["kind"]) for r in rows],
                         [("bnorm fwd-infer", "bf16", "nhwc", 1, "op"), ("pool fwd", "fp32", "nchw", 1, "op")])
        self.assertEqual(rows[1]["problem"], "pool fwd max fp32 ncdhw n2 c3 in4x9x9 win3x3x3 pad1x1x1 str2x2x2")
        with self.assertRaises(tc.InputError) as e:
            tc.problem_list("bnorm fwd-infer spatial n32 c64 in7x7\n")
        self.assertIn("line 1", str(e.exception))

    def test_problem_list_takes_the_ctc_bench_suite(self):
        rows = tc.problem_list(read(os.path.join(tc.REPO, "bench", "suites", "ctc.txt")))
        self.assertEqual(rows[0]["problem"], "ctc fp32 t200 n32 c100 l50 blank0 softmax")
        self.assertEqual({(r["kind"], r["layout"], r["count"], r["group"].split()[0]) for r in rows}, {("op", "-", 1, "ctc")})
        self.assertEqual({r["dtype"] for r in rows}, {"fp32", "fp16", "bf16"})

    def test_parse_op_fields(self):
        p = tc.parse_op("pool bwd avg_incl bf16 nhwc n32 c2048 in7x7 win7x7 pad0x0 str1x1")
        self.assertEqual((p["op"], p["dtype"], p["layout"]), ("pool", "bf16", "nhwc"))
        self.assertEqual(p["words"], ["bwd", "avg_incl"])
        self.assertEqual((p["n"], p["c"], p["in"], p["win"], p["pad"], p["str"]), (32, 2048, [7, 7], [7, 7], [0, 0], [1, 1]))
        p = tc.parse_op("lrn fwd across fp32 nchw n32 c96 in55x55 size5 alpha1e-04 beta0.75 k2")
        self.assertEqual((p["size"], p["alpha"], p["beta"], p["k"]), (5, 1e-4, 0.75, 2.0))
        p = tc.parse_op("tensorop add fp16 nchw a32x512x28x28 b32x512x28x28 alpha1=1 alpha2=0.5 beta=0")
        self.assertEqual((p["a"], p["alpha2"], p["beta"]), ([32, 512, 28, 28], 0.5, 0.0))
        p = tc.parse_op("bnorm fwd-train spatial fp32 nchw n32 c64 in112x112 eps1e-05 momentum0.1")
        self.assertEqual((p["eps"], p["momentum"], p["words"]), (1e-5, 0.1, ["fwd-train", "spatial"]))
        p = tc.parse_op("softmax bwd log channel fp32 nchw n32 c1000 in1x1")
        self.assertEqual(p["words"], ["bwd", "log", "channel"])
        p = tc.parse_op("reduce add fp32 nchw dims32x256x56x56 over0x2x3 nan_ignore")
        self.assertEqual((p["dims"], p["over"], p["words"]), ([32, 256, 56, 56], [0, 2, 3], ["add", "nan_ignore"]))

    @unittest.skipUnless(os.environ.get("HIPRIM_BIN") and os.path.exists(os.environ.get("HIPRIM_BIN", "")),
                         "HIPRIM_BIN (the built hiprim) not given")
    def test_every_string_is_canonical_for_hiprim(self):
        layers = tc.resnet50_layers(read(tc.LAYERS_FILE))
        strings = [r["problem"] for r in tc.conv_suite(layers, 32, ["bf16"], ["nhwc"], list(tc.DIRS))]
        strings += [r["problem"] for r in tc.op_suite(read(tc.OPS_FILE), 32, ["fp16"], ["nchw", "nhwc"], ["all"])]
        for s in strings:
            out = subprocess.run([os.environ["HIPRIM_BIN"], "repro", s, "--print-problem"], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, f"{s}: {out.stderr}")
            self.assertEqual(out.stdout.strip(), s)


def torch_or_none():
    try:
        import torch
        return torch
    except ImportError:
        return None


@unittest.skipUnless(torch_or_none(), "torch is not importable here")
class TorchCalls(unittest.TestCase):
    """Every suite problem has a torch call (signatures and output shapes), on the CPU at batch 2."""

    def call(self, row):
        import torch
        import torch_ops
        torch_ops.DEVICE = "cpu"
        parsed = tc.parse_op(row["problem"]) if row["kind"] == "op" else None
        c = torch_ops.make_call(torch, row, parsed, 0)
        self.assertEqual(c.sets, 1)
        self.assertGreater(c.set_bytes, 0)
        return c, c(0)

    def test_conv_directions_give_the_gradient_asked_for(self):
        layers = tc.resnet50_layers(read(tc.LAYERS_FILE))
        for L in (layers[0], layers[6], layers[8]):  # the 7x7 stem, a strided 3x3, a strided 1x1
            for row in tc.conv_suite([L], 2, ["fp32"], ["nchw", "nhwc"], list(tc.DIRS)):
                c, out = self.call(row)
                ho = (L["h"] + 2 * L["pad"] - L["r"]) // L["stride"] + 1
                want = {"fwd": [2, L["k"], ho, ho], "bwd-data": [2, L["c"], L["h"], L["w"]],
                        "bwd-weights": [L["k"], L["c"], L["r"], L["s"]]}[row["group"]]
                self.assertEqual(list(out.shape), want, row["problem"])
                if row["layout"] == "nhwc" and row["group"] != "bwd-weights":
                    self.assertEqual(out.stride(1), 1, row["problem"] + ": channels_last output")

    def test_every_op_line_runs_or_says_why_not(self):
        rows = tc.op_suite(read(tc.OPS_FILE), 2, ["fp32"], ["nchw", "nhwc"], ["all"])
        unmapped = []
        for row in rows:
            try:
                c, out = self.call(row)
            except NotImplementedError as e:
                unmapped.append((row["problem"], str(e)))
                continue
            outs = out if isinstance(out, (tuple, list)) else [out]
            self.assertTrue(all(o is not None for o in outs), row["problem"])
            p = tc.parse_op(row["problem"])
            if p["op"] in ("activ", "bnorm") and "bwd" not in p["words"]:
                self.assertEqual(list(outs[0].shape), [p["n"], p["c"]] + p["in"], row["problem"])
            if p["op"] == "bnorm" and "bwd" in p["words"]:
                self.assertEqual(len(outs), 3, row["problem"] + ": dx, dscale, dbias")
        # ctc (bench/suites/ctc.txt at small sizes): the losses [N] and the gradient of the input's shape.
        for problem in ("ctc fp32 t7 n3 c5 l3 blank0 softmax", "ctc bf16 t6 n2 c4 l2 blank3 probs"):
            row = dict(problem=problem, kind="op", group=tc.op_group(problem), dtype=problem.split()[1], layout="-", count=1)
            c, (loss, grad) = self.call(row)
            p = [int(t[1:]) for t in problem.split()[2:5]]
            self.assertEqual(list(loss.shape), [p[1]], problem)
            self.assertEqual(list(grad.shape), p, problem)
        # Only LRN within a channel has no torch op (2 lines x 2 layouts).
        self.assertEqual([u for u in unmapped if "within" not in u[0]], [])
        self.assertEqual(len(unmapped), 4)


def bench_case(problem, solver, ms, best=False, peer_ms=None, status="passed", count=1):
    peer = {"name": "cudnn", "status": "timed", "timing": {"median_ms": peer_ms}, "engine": "engine7"} \
        if peer_ms is not None else {"name": "cudnn", "status": "unsupported", "reason": "x"}
    return {"problem": problem, "solver": solver, "status": status, "best": best, "count": count,
            "timing": {"median_ms": ms} if ms is not None else None, "peer": peer}


class FusionStrings(unittest.TestCase):
    """scripts/torch_fusion.py's reading of hiprim's fusion strings (the torch call itself needs torch)."""

    def test_every_line_of_the_fusion_bench_suite_reads(self):
        import torch_fusion
        rows = tc.problem_list(read(os.path.join(REPO, "bench", "suites", "resnet50_fusion_bf16_nhwc.txt")))
        self.assertEqual(len(rows), 73)
        kinds = set()
        for r in rows:
            p = torch_fusion.parse_fusion(r["problem"])
            self.assertEqual((p["dtype"], p["layout"]), ("bf16", "nhwc"))
            self.assertEqual(p["conv"]["n"], [32])
            kinds.add(tuple(name for name, _ in p["steps"]))
        self.assertEqual(kinds, {(), ("bias",), ("bias", "activ"), ("bias", "add", "activ")})

    def test_steps_and_their_arguments(self):
        import torch_fusion
        p = torch_fusion.parse_fusion("fusion fwd fp16 nhwc conv(n1 c4 k8 in7x9 f3x5 pad0x1 str2x1 dil1x2 g2) bias "
                                      "bnorm-infer(eps0.001) add(alpha0.5 beta2) activ(leakyrelu alpha0.25)")
        self.assertEqual(p["conv"], {"n": [1], "c": [4], "k": [8], "in": [7, 9], "f": [3, 5], "pad": [0, 1], "str": [2, 1],
                                     "dil": [1, 2], "g": [2]})
        self.assertEqual([name for name, _ in p["steps"]], ["bias", "bnorm-infer", "add", "activ"])
        self.assertEqual(p["steps"][1][1]["eps"], [0.001])
        self.assertEqual((p["steps"][2][1]["alpha"], p["steps"][2][1]["beta"]), ([0.5], [2]))
        self.assertEqual((p["steps"][3][1]["mode"], p["steps"][3][1]["alpha"]), ("leakyrelu", [0.25]))
        for bad in ("fusion bwd bf16 nhwc conv(n1 c4 k8 in7x7 f3x3)", "fusion fwd bf16 nhwc bias", "conv fwd bf16 nhwc n1"):
            with self.assertRaises(ValueError):
                torch_fusion.parse_fusion(bad)


class Comparison(unittest.TestCase):
    def rows(self):
        mk = lambda p, d, c, t: dict(problem=p, kind="conv", group=d, dtype="bf16", layout="nhwc", count=c, torch_ms=t)
        return [mk("A", "fwd", 3, 1.0), mk("B", "fwd", 1, 2.0), mk("C", "bwd-data", 2, 1.0), mk("D", "bwd-data", 0, 9.0),
                mk("E", "bwd-weights", 1, None)]

    def test_totals_weight_by_count_and_count_missing(self):
        t = {r["dir"]: r for r in tc.totals(self.rows())}
        self.assertEqual(t["fwd"]["ms"], 3 * 1.0 + 2.0)
        self.assertEqual((t["fwd"]["problems"], t["fwd"]["layers"]), (2, 4))
        self.assertEqual(t["bwd-data"]["ms"], 2.0)  # the count-0 extra weighs nothing
        self.assertEqual(t["bwd-weights"]["missing"], 1)

    def test_join_with_a_bench_report_flags_more_than_ten_percent(self):
        report = {"kind": "performance", "cases": [
            bench_case("A", "conv.x", 2.0, peer_ms=1.05), bench_case("A", "conv.y", 1.5, best=True, peer_ms=1.05),
            bench_case("B", "conv.x", 4.0, peer_ms=2.0), bench_case("B", "conv.z", 3.0, status="failed"),
            bench_case("C", "conv.x", 2.0, peer_ms=1.5), bench_case("D", "conv.x", 1.0, peer_ms=1.0)]}
        rows = tc.join_bench(self.rows(), tc.bench_index([report]))
        a = rows[0]
        self.assertEqual((a["hiprim_peer_ms"], a["hiprim_best_ms"], a["hiprim_solver"]), (1.05, 1.5, "conv.y"))
        self.assertEqual(rows[1]["hiprim_best_ms"], 4.0)  # the failed faster case does not count
        self.assertFalse(rows[4]["in_bench"])
        cmp = {r["dir"]: r for r in tc.comparison(rows)}
        fwd = cmp["fwd"]
        self.assertAlmostEqual(fwd["torch_ms"], 5.0)
        self.assertAlmostEqual(fwd["peer_ms"], 3 * 1.05 + 2.0)
        self.assertAlmostEqual(fwd["peer_over_torch"], 5.15 / 5.0)
        self.assertAlmostEqual(fwd["hiprim_ms"], 3 * 1.5 + 4.0)
        self.assertFalse(fwd["flagged"])  # 3% off
        self.assertAlmostEqual(cmp["bwd-data"]["peer_over_torch"], 1.5)
        self.assertTrue(cmp["bwd-data"]["flagged"])  # 50% off
        self.assertNotIn("bwd-weights", cmp)  # not in the bench: nothing to compare
        table = tc.format_table(tc.comparison(rows))
        self.assertIn("> 10% OFF", table)
        self.assertIn("1.03", table)

    def test_a_total_missing_the_peer_is_incomplete_not_ok(self):
        report = {"kind": "performance", "cases": [bench_case("A", "conv.x", 2.0, peer_ms=1.0), bench_case("B", "conv.x", 2.0)]}
        cmp = tc.comparison(tc.join_bench(self.rows()[:2], tc.bench_index([report])))
        self.assertEqual(cmp[0]["peer_missing"], 1)
        self.assertIsNone(cmp[0]["peer_over_torch"])
        self.assertTrue(cmp[0]["flagged"])
        self.assertIn("incomplete", tc.format_table(cmp))

    def test_a_conformance_report_is_refused(self):
        with self.assertRaisesRegex(tc.InputError, "not 'performance'"):
            tc.bench_index([{"kind": "conformance", "cases": [], "_path": "c.json"}])


class CommandLine(unittest.TestCase):
    def run_main(self, argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = tc.main(argv)
        return code, out.getvalue(), err.getvalue()

    def test_results_mode_joins_writes_and_prints(self):
        with tempfile.TemporaryDirectory() as d:
            res = {"schema": "hiprim.torch_crosscheck", "rows": Comparison().rows()}
            bench = {"kind": "performance", "cases": [bench_case("A", "s", 1.0, peer_ms=1.0), bench_case("B", "s", 1.0, peer_ms=2.0)]}
            for name, obj in (("r.json", res), ("b.json", bench)):
                with open(os.path.join(d, name), "w") as fh:
                    json.dump(obj, fh)
            out_path = os.path.join(d, "o.json")
            code, out, err = self.run_main(["--results", os.path.join(d, "r.json"), "--bench", os.path.join(d, "b.json"),
                                            "--out", out_path])
            self.assertEqual(code, 0, err)
            self.assertIn("peer/torch", out)
            with open(out_path) as fh:
                o = json.load(fh)
            self.assertEqual(o["comparison"][0]["peer_over_torch"], 1.0)
            self.assertEqual({t["dir"] for t in o["totals"]}, {"fwd", "bwd-data", "bwd-weights"})

    def test_bad_input_exits_2_naming_it(self):
        code, _, err = self.run_main(["--dtype", "fp64", "--what", "conv"])
        self.assertEqual(code, 2)
        self.assertIn("--dtype 'fp64'", err)
        code, _, err = self.run_main(["--results", "/nonexistent/r.json"])
        self.assertEqual(code, 2)
        self.assertIn("/nonexistent/r.json", err)
        code, _, err = self.run_main(["--what", "conv", "--math", "tf32", "--dtype", "bf16"])
        self.assertEqual(code, 2)
        self.assertIn("--math tf32 needs --dtype fp32", err)
        code, _, err = self.run_main(["--what", "conv", "--math", "fast"])
        self.assertEqual(code, 2)
        self.assertIn("--math 'fast'", err)
        code, _, err = self.run_main(["--what", "conv", "--filter", "no-such-problem"])
        self.assertEqual(code, 2)
        self.assertIn("no problem selected", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
