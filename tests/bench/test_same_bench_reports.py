#!/usr/bin/env python3
"""scripts/same_bench_reports.py on hand-made reports: what the clock decides is ignored, every
verdict, order, settings and key difference is found."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "same_bench_reports.py")
sys.path.insert(0, os.path.join(REPO, "scripts"))
import same_bench_reports as sb  # noqa: E402


def case(problem, solver, status="passed", median=0.1, best=False):
    return {"problem": problem, "solver": solver, "status": status, "reason": "every element exact",
            "verify": "full", "fill": "exact", "tolerance": "exact (threshold 0)", "seed": 1, "count": 2,
            "flops": 100.0, "bytes": 40.0, "deterministic": True, "best": best, "time_ms": median,
            "timing": {"median_ms": median, "repeats": [median]},
            "peer": {"name": "cudnn", "status": "timed", "algo": "engine 3", "timing": {"median_ms": median * 2}}}


def report():
    return {"schema": "hiprim-perf", "schema_version": 2, "kind": "performance", "created": "2026-01-01T00:00:00Z",
            "command": "devbase/hiprim bench", "machine": {"git_describe": "abc"}, "clocks": {"available": False},
            "peer": {"name": "cudnn", "available": True, "version": 90100},
            "ceilings": {"copy": {"gbps": 4000.0}, "gemm": {"bf16": {"tflops": 700.0}}},
            "settings": {"verify": "full", "repeats": 2, "seconds": 12.5, "repeat_seconds": [8.0, 4.5],
                         "phase_seconds": {"verify": 3.0}, "references": {"computed": 2, "compute_s": 0.4}},
            "summary": {"passed": 2, "failed": 0},
            "totals": {"all": {"time_ms": 0.3}},
            "cases": [case("conv fwd a", "conv.x", best=True), case("conv fwd a", "conv.y"), case("conv bwd-data a", "conv.x")]}


def write(path, r):
    with open(path, "w") as f:
        json.dump(r, f)


class SameBenchReports(unittest.TestCase):
    def test_the_clock_is_ignored(self):
        a, b = report(), report()
        for c in b["cases"]:
            c["time_ms"] *= 3
            c["timing"] = {"median_ms": 0.5, "repeats": [0.5, 0.6]}
            c["peer"]["algo"] = "engine 7"
        b["cases"][0]["best"], b["cases"][1]["best"] = False, True
        b["settings"]["seconds"] = 99
        b["settings"]["phase_seconds"] = {"verify": 1.0, "timing": 2.0}
        b["settings"]["references"]["compute_s"] = 3.0
        b["ceilings"]["copy"]["gbps"] = 3900.0
        b["machine"] = {"git_describe": "def", "git_dirty": True}
        b["created"], b["command"] = "later", "devbin/hiprim bench"
        self.assertEqual(sb.compare(a, b), {})

    def test_a_verdict_or_peer_status_differs(self):
        a, b = report(), report()
        b["cases"][1]["status"] = "failed"
        b["cases"][2]["peer"] = {"name": "cudnn", "status": "unsupported", "reason": "3-D"}
        d = sb.compare(a, b)
        self.assertEqual(len(d["case verdicts"]), 2, d)
        self.assertIn("conv.y conv fwd a: status", d["case verdicts"][0])
        self.assertIn("peer", d["case verdicts"][1])

    def test_order_missing_and_extra_cases(self):
        a, b = report(), report()
        b["cases"] = [b["cases"][1], b["cases"][0], b["cases"][2]]
        self.assertIn("case order", sb.compare(a, b))
        b = report()
        b["cases"][2]["solver"] = "conv.z"
        d = sb.compare(a, b)
        self.assertEqual(d["cases only in base"], ["conv.x conv bwd-data a"])
        self.assertEqual(d["cases only in new"], ["conv.z conv bwd-data a"])

    def test_keys_settings_and_summary(self):
        a, b = report(), report()
        b["cases"][0]["timing_error"] = "repeat 2: out of memory"
        b["settings"]["verify"] = "quick"
        b["summary"]["passed"] = 1
        b["totals"]["all"]["gbps"] = 1.0
        d = sb.compare(a, b)
        self.assertEqual(d["case keys"], ["conv.x conv fwd a: /timing_error: only in new"])
        self.assertEqual(len(d["settings"]), 1)
        self.assertIn("summary", d)
        self.assertEqual(d["report keys"], ["/totals/all/gbps: only in new"])

    def test_the_command_line(self):
        with tempfile.TemporaryDirectory() as t:
            pa, pb = os.path.join(t, "a.json"), os.path.join(t, "b.json")
            write(pa, report())
            write(pb, report())
            run = lambda *args: subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)
            r = run(pa, pb, "--name=conv")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("conv: SAME", r.stdout)
            b = report()
            b["cases"][0]["reason"] = "1 mismatch"
            write(pb, b)
            r = run(pa, pb)
            self.assertEqual(r.returncode, 1, r.stdout)
            self.assertIn("DIFF case verdicts: 1", r.stdout)
            r = run(pa, os.path.join(t, "missing.json"))
            self.assertEqual(r.returncode, 2, r.stdout)


if __name__ == "__main__":
    unittest.main()
