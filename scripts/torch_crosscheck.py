#!/usr/bin/env python3
"""PyTorch cross-check of hiprim's bench (issue 10 item 3; the op peer of issue 13).

Times the ResNet-50 v1.5 suites through PyTorch on the GPU machine and, given `hiprim bench`
reports, puts the bench's peer (cuDNN) total and hiprim's best total beside each PyTorch total.

  conv: verify/suites/resnet50_layers.txt at --batch, for --dtype x --layout x --dir. fwd is
        F.conv2d; bwd-data and bwd-weights are torch.ops.aten.convolution_backward with the output
        mask selecting one gradient. torch.backends.cudnn.benchmark = True (cuDNN autotunes every
        shape before capture); fp32 runs with torch.backends.cudnn.allow_tf32 = False (hiprim's fp32
        is plain FMA), or True with --math tf32 (the strings then carry math=tf32, as the bench's).
  ops:  each line of verify/suites/resnet50_ops.txt, rewritten to --batch/--dtype/--layout exactly
        as hiprim's suite does (verify/suite_rewrite.cpp), with torch's own ops (table OPS below).

Timing (both): every call rotates over input sets covering 3x the L2; warm-up eagerly, then R calls
are captured into one CUDA graph (each call keeps its own output), the graph is replayed --replays
times, each replay timed with events; torch_ms = median(replay) / R (a call the graph cannot capture
is timed by events around R eager calls instead; the row's `timing` says which). host_us = wall time of 50 eager
calls back to back after a sync, / 50 (the host cost of one call; nothing waits for the GPU).

Problem strings are hiprim's canonical strings, the keys of `hiprim bench` cases. Totals per
(dtype, layout, direction or op group) weight each problem by its count (count-0 extras are timed
but weigh nothing). With --bench REPORT.json (repeatable; reports/README.md schema) each row gets
hiprim_peer_ms (the bench's peer median) and hiprim_best_ms (the fastest passed hiprim case), each
total gets peer_ms / hiprim_ms over the same problems, and a table flags |peer/torch - 1| > 10%.

  scripts/torch_crosscheck.py --batch 32 --dtype bf16 --layout nhwc --out torch.json [--bench r.json]
  scripts/torch_crosscheck.py --results torch.json --bench r.json     # join and print only (no torch)
  scripts/torch_crosscheck.py --problems list.txt --out torch.json    # the op strings of a file instead of the suites
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS_FILE = os.path.join(REPO, "verify", "suites", "resnet50_layers.txt")
OPS_FILE = os.path.join(REPO, "verify", "suites", "resnet50_ops.txt")
OPS_BATCH = 32  # the batch resnet50_ops.txt is written at
DTYPES = ("fp32", "fp16", "bf16")
LAYOUTS = ("nchw", "nhwc")
DIRS = ("fwd", "bwd-data", "bwd-weights")
FLAG_TOLERANCE = 0.10  # |peer/torch - 1| above this is flagged
LAYOUTLESS_OPS = ("ctc", "rnn")  # op strings without a layout token ([T][N][C] tensors)


class InputError(Exception):
    """Bad input (flag, file, problem string): exit code 2."""


# ---- Suites and canonical strings (pure) ----

def data_lines(text):
    """(line number, text without comment) of every non-blank line."""
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            yield number, line


def resnet50_layers(text):
    """The layers file: 9 integers 'C K H W R S stride pad count' per line."""
    layers = []
    for number, line in data_lines(text):
        f = line.split()
        if len(f) != 9 or not all(v.isdigit() for v in f):
            raise InputError(f"resnet50_layers.txt:{number}: expected 9 integers 'C K H W R S stride pad count', got '{line}'")
        c, k, h, w, r, s, stride, pad, count = map(int, f)
        layers.append(dict(c=c, k=k, h=h, w=w, r=r, s=s, stride=stride, pad=pad, count=count))
    return layers


def conv_problem(layer, batch, dtype, layout, direction, math="exact"):
    """hiprim's canonical string (core/conv_problem.cpp to_string) of one ResNet-50 layer; math "tf32"
    appends the opt-in token (fp32 only), as `hiprim bench --math tf32` does."""
    L = layer
    return (f"conv {direction} {dtype} {layout} n{batch} c{L['c']} k{L['k']} in{L['h']}x{L['w']} f{L['r']}x{L['s']} "
            f"pad{L['pad']}x{L['pad']} str{L['stride']}x{L['stride']} dil1x1 g1" + (" math=tf32" if math == "tf32" else ""))


def conv_suite(layers, batch, dtypes, layouts, dirs, math="exact"):
    """Rows {problem, kind, group, dtype, layout, count, layer} in hiprim's suite order."""
    rows = []
    for dt in dtypes:
        for lay in layouts:
            for d in dirs:
                for L in layers:
                    rows.append(dict(problem=conv_problem(L, batch, dt, lay, d, math), kind="conv", group=d, dtype=dt,
                                     layout=lay, count=L["count"], layer=L, batch=batch))
    return rows


def counted_lines(text):
    """(count, problem string) of every line of a counted suite (resnet50_ops.txt)."""
    out = []
    for number, line in data_lines(text):
        head, _, rest = line.partition(" ")
        if not head.isdigit() or not rest.strip():
            raise InputError(f"resnet50_ops.txt:{number}: expected '<count> <problem string>', got '{line}'")
        out.append((int(head), rest.strip()))
    return out


def rebatch_problem(problem, old, new):
    """The token n<old> -> n<new>, and a leading dim equal to old of a<..>, b<..>, dims<..>."""
    toks = problem.split()
    for i in range(1, len(toks)):
        t = toks[i]
        if t == f"n{old}":
            toks[i] = f"n{new}"
            continue
        for prefix in ("a", "b", "dims"):
            if t.startswith(prefix):
                rest = t[len(prefix):]
                if rest == str(old) or rest.startswith(f"{old}x"):
                    toks[i] = prefix + str(new) + rest[len(str(old)):]
                break
    return " ".join(toks)


def with_dtype_layout(problem, dtype, layout):
    """The dtype token -> dtype; nchw/nhwc -> layout, ncdhw/ndhwc -> its 3-D form."""
    channels_last = layout == "nhwc"
    toks = problem.split()
    for i in range(1, len(toks)):
        if toks[i] in DTYPES:
            toks[i] = dtype
        elif toks[i] in ("nchw", "nhwc"):
            toks[i] = "nhwc" if channels_last else "nchw"
        elif toks[i] in ("ncdhw", "ndhwc"):
            toks[i] = "ndhwc" if channels_last else "ncdhw"
    return " ".join(toks)


def op_group(problem):
    """The bench's totals group of an op: its name and first token ("bnorm fwd-train", "tensorop add")."""
    toks = problem.split()
    return f"{toks[0]} {toks[1]}"


def op_selected(problem, token):
    """`hiprim bench --op` semantics: all, the op's name, or a token before its dtype."""
    toks = problem.split()
    if token in ("all", toks[0]):
        return True
    for t in toks[1:]:
        if t in DTYPES:
            return False
        if t == token:
            return True
    return False


def problem_list(text):
    """Rows of a list of op problem strings, one a line ('#' comments), each of count 1 (e.g. the
    cases of the op speed sweep, tests/gpu/ops_speed_sweep.cpp --list)."""
    rows = []
    for number, line in data_lines(text):
        p = parse_op(line)
        if p["op"] == "conv" or p["dtype"] is None or (p["layout"] is None and p["op"] not in LAYOUTLESS_OPS):
            raise InputError(f"problem list line {number}: expected an op problem string with a dtype and a layout, got '{line}'")
        layout = "-" if p["layout"] is None else "nhwc" if p["layout"] in ("nhwc", "ndhwc") else "nchw"
        rows.append(dict(problem=line, kind="op", group=op_group(line), dtype=p["dtype"], layout=layout, count=1))
    return rows


def op_suite(text, batch, dtypes, layouts, selectors):
    rows = []
    lines = counted_lines(text)
    for dt in dtypes:
        for lay in layouts:
            for count, line in lines:
                p = with_dtype_layout(rebatch_problem(line, OPS_BATCH, batch), dt, lay)
                if any(op_selected(p, s) for s in selectors):
                    rows.append(dict(problem=p, kind="op", group=op_group(p), dtype=dt, layout=lay, count=count))
    return rows


_VALUE = r"-?[0-9][0-9x.e+-]*|inf|-inf|nan"
_PREFIXED = re.compile(r"^(momentum|alpha|beta|gamma|rate|seed|size|dims|over|eps|win|pad|str|in|n|c|k|a|b)(" + _VALUE + r")$")


def parse_op(problem):
    """An op string as {op, words: [...], <prefix>: value or [dims], <key>=value}; dims as int lists."""
    toks = problem.split()
    out = {"op": toks[0], "words": [], "dtype": None, "layout": None}
    for t in toks[1:]:
        if t in DTYPES:
            out["dtype"] = t
        elif t in ("nchw", "nhwc", "ncdhw", "ndhwc"):
            out["layout"] = t
        elif "=" in t:
            k, v = t.split("=", 1)
            out[k] = float(v)
        elif (m := _PREFIXED.match(t)):
            k, v = m.group(1), m.group(2)
            if k in ("in", "win", "pad", "str", "dims", "over", "a", "b"):
                out[k] = [int(x) for x in v.split("x")]
            elif k in ("n", "c", "size", "seed"):
                out[k] = int(v)
            else:
                out[k] = float(v)
        else:
            out["words"].append(t)
    return out


# ---- Totals and the join with bench reports (pure) ----

def totals(rows, time_key="torch_ms"):
    """Per (dtype, layout, group): problems, layers (sum of counts), the count-weighted sum of
    time_key over rows of count > 0, and how many of those lack a time."""
    acc = {}
    for r in rows:
        key = (r["dtype"], r["layout"], r["group"])
        t = acc.setdefault(key, dict(dtype=key[0], layout=key[1], dir=key[2], problems=0, layers=0, ms=0.0, missing=0))
        t["problems"] += 1
        t["layers"] += r["count"]
        if r["count"] == 0:
            continue
        v = r.get(time_key)
        if v is None:
            t["missing"] += 1
        else:
            t["ms"] += r["count"] * v
    return [acc[k] for k in sorted(acc, key=lambda k: (k[0], k[1], k[2]))]


def _median_ms(obj):
    """obj's timing.median_ms (reports/README.md), else its own median_ms or a positive time_ms."""
    if not isinstance(obj, dict):
        return None
    timing = obj.get("timing")
    if isinstance(timing, dict) and isinstance(timing.get("median_ms"), (int, float)):
        return float(timing["median_ms"])
    if isinstance(obj.get("median_ms"), (int, float)):
        return float(obj["median_ms"])
    t = obj.get("time_ms")
    return float(t) if isinstance(t, (int, float)) and t > 0 else None


def bench_index(reports):
    """problem -> {peer_ms, peer_engine, peer_host_us, best_ms, best_solver} over the reports' cases.
    The peer's time is peer.timing.median_ms of a case whose peer status is "timed"; hiprim's best is
    the fastest case with status passed and a timing (the case flagged `best` when there is one)."""
    index = {}
    for rep in reports:
        if rep.get("kind") != "performance":
            raise InputError(f"bench report {rep.get('_path', '?')}: kind is {rep.get('kind')!r}, not 'performance'")
        for c in rep.get("cases", []):
            e = index.setdefault(c["problem"], dict(peer_ms=None, peer_engine=None, peer_host_us=None, best_ms=None,
                                                    best_solver=None, flagged_best=False))
            peer = c.get("peer")
            if isinstance(peer, dict) and peer.get("status") == "timed" and e["peer_ms"] is None:
                e["peer_ms"] = _median_ms(peer)
                e["peer_engine"] = peer.get("engine") or peer.get("algo")
                e["peer_host_us"] = peer.get("host_us")
            ms = _median_ms(c)
            if c.get("status") != "passed" or ms is None:
                continue
            if c.get("best") and not e["flagged_best"]:
                e.update(best_ms=ms, best_solver=c.get("solver"), flagged_best=True)
            elif not e["flagged_best"] and (e["best_ms"] is None or ms < e["best_ms"]):
                e.update(best_ms=ms, best_solver=c.get("solver"))
    return index


def join_bench(rows, index):
    """Adds hiprim_peer_ms, hiprim_best_ms, hiprim_solver, peer_engine to each row found in index."""
    for r in rows:
        e = index.get(r["problem"])
        r["in_bench"] = e is not None
        if e:
            r.update(hiprim_peer_ms=e["peer_ms"], hiprim_best_ms=e["best_ms"], hiprim_solver=e["best_solver"],
                     peer_engine=e["peer_engine"], peer_host_us=e["peer_host_us"])
    return rows


def comparison(rows):
    """Totals rows with torch_ms, peer_ms, hiprim_ms over the problems the bench has, their missing
    counts, peer_over_torch, hiprim_over_torch and flagged (|peer/torch - 1| > FLAG_TOLERANCE)."""
    benched = [r for r in rows if r.get("in_bench")]
    out = []
    by = {k: {t["dir"] + "|" + t["dtype"] + "|" + t["layout"]: t for t in totals(benched, k)}
          for k in ("torch_ms", "hiprim_peer_ms", "hiprim_best_ms")}
    for key, t in by["torch_ms"].items():
        p, h = by["hiprim_peer_ms"][key], by["hiprim_best_ms"][key]
        row = dict(dtype=t["dtype"], layout=t["layout"], dir=t["dir"], problems=t["problems"], layers=t["layers"],
                   torch_ms=t["ms"], torch_missing=t["missing"], peer_ms=p["ms"], peer_missing=p["missing"],
                   hiprim_ms=h["ms"], hiprim_missing=h["missing"])
        complete = lambda m: m == 0 and t["missing"] == 0 and t["ms"] > 0
        row["peer_over_torch"] = p["ms"] / t["ms"] if complete(p["missing"]) else None
        row["hiprim_over_torch"] = h["ms"] / t["ms"] if complete(h["missing"]) else None
        row["flagged"] = row["peer_over_torch"] is None or abs(row["peer_over_torch"] - 1) > FLAG_TOLERANCE
        out.append(row)
    return sorted(out, key=lambda r: (r["dtype"], r["layout"], r["dir"]))


def format_table(cmp_rows):
    def f(v, fmt):
        return "-" if v is None else format(v, fmt)
    lines = [f"{'dtype':5} {'layout':6} {'dir':16} {'torch ms':>10} {'peer ms':>10} {'peer/torch':>10} "
             f"{'hiprim ms':>10} {'hiprim/torch':>12}  flag"]
    for r in cmp_rows:
        miss = ""
        if r["torch_missing"] or r["peer_missing"] or r["hiprim_missing"]:
            miss = f" missing torch/peer/hiprim {r['torch_missing']}/{r['peer_missing']}/{r['hiprim_missing']}"
        flag = ("> 10% OFF" if r["peer_over_torch"] is not None else "incomplete") if r["flagged"] else "ok"
        lines.append(f"{r['dtype']:5} {r['layout']:6} {r['dir']:16} {f(r['torch_ms'], '10.3f')} {f(r['peer_ms'], '10.3f')} "
                     f"{f(r['peer_over_torch'], '10.2f')} {f(r['hiprim_ms'], '10.3f')} {f(r['hiprim_over_torch'], '12.2f')}"
                     f"  {flag}{miss}")
    return "\n".join(lines)


def load_json(path, what):
    try:
        with open(path) as fh:
            d = json.load(fh)
    except (OSError, ValueError) as e:
        raise InputError(f"{what} {path}: {e}")
    if not isinstance(d, dict):
        raise InputError(f"{what} {path}: not a JSON object")
    d["_path"] = path
    return d


# ---- Measurement (needs torch and a GPU) ----

def nvidia_smi():
    q = "name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw"
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20)
        vals = [v.strip() for v in out.stdout.strip().splitlines()[0].split(",")]
        return dict(zip(q.split(","), vals))
    except Exception as e:  # a missing nvidia-smi is recorded, not fatal
        return {"error": str(e)}


def measure(rows, args):
    try:
        import torch  # only on the GPU machine
    except ImportError as e:
        raise InputError(f"torch is not importable here ({e}): measuring needs the GPU machine; --results joins without it")
    if not torch.cuda.is_available():
        raise InputError("torch sees no CUDA device")
    from torch_ops import make_call  # scripts/torch_ops.py: the problem -> torch call table
    torch.backends.cudnn.benchmark = True
    # fp32 convolutions without TF32 (hiprim's fp32 is plain FMA) unless --math tf32 (then cuDNN's TF32
    # engines, the peer of hiprim's math=tf32 problems); no effect on fp16/bf16.
    torch.backends.cudnn.allow_tf32 = args.math == "tf32"
    dev = torch.cuda.get_device_properties(0)
    l2 = getattr(dev, "L2_cache_size", 50 << 20)
    stream = torch.cuda.Stream()
    start = time.time()
    for r in rows:
        if args.time_budget and time.time() - start > args.time_budget:
            r["skipped"] = f"time budget {args.time_budget} s spent"
            continue
        call = None
        try:
            with torch.cuda.stream(stream):  # setup (and autograd's forward passes) on the capture stream
                call = make_call(torch, r, parse_op(r["problem"]) if r["kind"] == "op" else None, 3 * l2)
            r["torch_op"], r["set_bytes"] = call.how, call.set_bytes
            r.update(time_graph(torch, call, stream, args.replays, args.target_ms))
            if args.kernels:
                r.update(kernel_profile(torch, call, stream))
        except Exception as e:  # one failing problem is recorded and the run goes on
            r["error"] = f"{type(e).__name__}: {e}"
        finally:
            call = None
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        print(f"{r['problem']}: " + (f"{r['torch_ms']:.4f} ms, host {r['host_us']:.1f} us, {r['sets']} sets x R={r['reps']}"
                                      if r.get("torch_ms") is not None else r.get("error", "?")), flush=True)
        if r.get("kernels") is not None:
            print(f"  kernels {r['kernel_us_per_call']:.1f} us per call ({r.get('timing', '?')[:40]}): " +
                  "; ".join(f"{k['name'][:70]} x{k['launches_per_call']:g} {k['gpu_us_per_call']:.1f} us" for k in r["kernels"][:6]),
                  flush=True)
    return dict(device=dev.name, torch=torch.__version__, cudnn=torch.backends.cudnn.version(),
                cuda=torch.version.cuda, l2_bytes=l2)


def kernel_profile(torch, call, stream, calls=6):
    """The GPU kernels of one call (--kernels): torch.profiler (CUDA activity) over `calls` eager calls
    after a warm call; each kernel's name, launches and GPU time per call, and their sum: which
    library ran (cuDNN or torch's own kernels) and the GPU time without host gaps, for calls the graph
    cannot capture."""
    from torch.profiler import profile, ProfilerActivity
    with torch.cuda.stream(stream):
        call(0)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        with torch.cuda.stream(stream):
            for i in range(calls):
                call(i % call.sets)
        torch.cuda.synchronize()
    kernels = []
    for e in prof.key_averages():
        us = getattr(e, "device_time_total", None)
        if us is None:
            us = getattr(e, "cuda_time_total", 0)
        if us > 0:
            kernels.append(dict(name=e.key[:160], launches_per_call=e.count / calls, gpu_us_per_call=us / calls))
    kernels.sort(key=lambda k: -k["gpu_us_per_call"])
    return dict(kernels=kernels, kernel_us_per_call=sum(k["gpu_us_per_call"] for k in kernels))


def time_graph(torch, call, stream, replays, target_ms):
    """call.sets input sets; call(i) enqueues one op on set i and returns its outputs."""
    sets = call.sets
    with torch.cuda.stream(stream):
        for i in range(max(3, sets)):  # warm-up: cuDNN's benchmark autotuning happens here
            call(i % sets)
    stream.synchronize()
    ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(stream):
        ev0.record()
        for i in range(2 * sets):
            call(i % sets)
        ev1.record()
    ev1.synchronize()
    estimate = max(ev0.elapsed_time(ev1) / (2 * sets), 1e-4)
    reps = max(sets, min(2000, int(math.ceil(target_ms / estimate))))
    reps = int(math.ceil(reps / sets) * sets)
    # Host overhead per call: eager calls back to back after a sync.
    n_host = 50
    stream.synchronize()
    with torch.cuda.stream(stream):
        t0 = time.perf_counter()
        for i in range(n_host):
            call(i % sets)
        t1 = time.perf_counter()
    stream.synchronize()
    graph, keep, timing = torch.cuda.CUDAGraph(), [], "graph"
    try:
        with torch.cuda.graph(graph, stream=stream):
            for i in range(reps):
                keep.append(call(i % sets))  # every captured call writes its own output
        graph.replay()
    except Exception as e:  # a call that cannot be captured: CUDA events around reps eager calls instead
        timing = f"events (graph capture failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"
        graph, keep = None, []
        torch.cuda.synchronize()
    stream.synchronize()
    times = []
    for _ in range(replays):
        with torch.cuda.stream(stream):
            ev0.record()
            if graph is not None:
                graph.replay()
            else:
                for i in range(reps):
                    call(i % sets)
            ev1.record()
        ev1.synchronize()
        times.append(ev0.elapsed_time(ev1) / reps)
    del graph, keep
    return dict(torch_ms=statistics.median(times), torch_min_ms=min(times), torch_max_ms=max(times),
                host_us=(t1 - t0) / n_host * 1e6, sets=sets, reps=reps, replays=replays, timing=timing)


# ---- Command line ----

def parse_list(s, allowed, flag):
    items = [x.strip() for x in s.split(",") if x.strip()]
    for x in items:
        if x not in allowed:
            raise InputError(f"{flag} {x!r}: not one of {', '.join(allowed)}")
    if not items:
        raise InputError(f"{flag}: empty list")
    return items


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--dtype", default="fp32,fp16,bf16")
    ap.add_argument("--layout", default="nchw,nhwc")
    ap.add_argument("--dir", default="fwd,bwd-data,bwd-weights", help="conv directions")
    ap.add_argument("--what", default="conv,ops", help="conv, ops or both")
    ap.add_argument("--math", default="exact", help="conv math: exact, or tf32 (fp32 only: math=tf32 strings, cuDNN's TF32 allowed)")
    ap.add_argument("--ops", default="all", help="op selectors as hiprim bench --op: all, bnorm, relu, pool, max, bwd, ...")
    ap.add_argument("--filter", default="", help="regex: only problems whose string matches")
    ap.add_argument("--replays", type=int, default=7)
    ap.add_argument("--target-ms", type=float, default=3.0, help="GPU time of one captured replay (sets R)")
    ap.add_argument("--time-budget", type=float, default=0, help="seconds; problems not started by then are skipped")
    ap.add_argument("--bench", action="append", default=[], help="a hiprim bench report (repeatable)")
    ap.add_argument("--results", help="a previous run's JSON: join with --bench and print, no measurement")
    ap.add_argument("--out", help="write the JSON here")
    ap.add_argument("--layers-file", default=LAYERS_FILE)
    ap.add_argument("--ops-file", default=OPS_FILE)
    ap.add_argument("--kernels", action="store_true", help="also list each call's GPU kernels and their summed time (torch.profiler)")
    ap.add_argument("--problems", help="a file of op problem strings (one a line) timed instead of the suites")
    a = ap.parse_args(argv)
    try:
        if a.batch < 1:
            raise InputError(f"--batch {a.batch}: must be >= 1")
        if a.replays < 1:
            raise InputError(f"--replays {a.replays}: must be >= 1")
        if a.math not in ("exact", "tf32"):
            raise InputError(f"--math '{a.math}': expected exact or tf32")
        if a.math == "tf32" and not a.results and parse_list(a.dtype, DTYPES, "--dtype") != ["fp32"]:
            raise InputError(f"--math tf32 needs --dtype fp32 (TF32 is an fp32 mode), got --dtype '{a.dtype}'")
        reports = [load_json(p, "bench report") for p in a.bench]
        if a.results:
            result = load_json(a.results, "results")
            result.pop("_path", None)
            rows = result.get("rows")
            if not isinstance(rows, list):
                raise InputError(f"results {a.results}: no 'rows' list")
        else:
            dtypes, layouts = parse_list(a.dtype, DTYPES, "--dtype"), parse_list(a.layout, LAYOUTS, "--layout")
            what = parse_list(a.what, ("conv", "ops"), "--what")
            rows = []
            if a.problems:
                with open(a.problems) as fh:
                    rows = problem_list(fh.read())
                what = []
            if "conv" in what:
                with open(a.layers_file) as fh:
                    rows += conv_suite(resnet50_layers(fh.read()), a.batch, dtypes, layouts, parse_list(a.dir, DIRS, "--dir"), a.math)
            if "ops" in what:
                with open(a.ops_file) as fh:
                    rows += op_suite(fh.read(), a.batch, dtypes, layouts, [s for s in a.ops.split(",") if s])
            if a.filter:
                rows = [r for r in rows if re.search(a.filter, r["problem"])]
            if not rows:
                raise InputError("no problem selected (check --what, --ops, --filter)")
            result = dict(schema="hiprim.torch_crosscheck", schema_version=1,
                          created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), command=" ".join(sys.argv),
                          settings=dict(batch=a.batch, replays=a.replays, target_ms=a.target_ms,
                                        timing=__doc__.split("Timing (both): ")[1].split("\n\n")[0].replace("\n", " "),
                                        cudnn_benchmark=True, fp32_allow_tf32=a.math == "tf32"),
                          clocks=dict(start=nvidia_smi()))
            result.update(measure(rows, a))
            result["clocks"]["end"] = nvidia_smi()
            for r in rows:
                r.pop("layer", None)
                r.pop("batch", None)
        result["rows"] = rows
        result["totals"] = [dict(t, torch_ms=t.pop("ms"), torch_missing=t.pop("missing")) for t in totals(rows)]
        if reports:
            join_bench(rows, bench_index(reports))
            result["bench_reports"] = a.bench
            result["comparison"] = comparison(rows)
        if a.out:
            with open(a.out, "w") as fh:
                json.dump(result, fh, indent=1)
        errors = [r for r in rows if r.get("error")]
        print(f"torch_crosscheck: {len(rows)} problems, {len(errors)} errors"
              + (f", first: {errors[0]['problem']}: {errors[0]['error']}" if errors else ""))
        if reports:
            print(format_table(result["comparison"]))
        else:
            for t in result["totals"]:
                print(f"{t['dtype']:5} {t['layout']:6} {t['dir']:18} torch {t['torch_ms']:9.3f} ms"
                      + (f"  ({t['torch_missing']} missing)" if t["torch_missing"] else ""))
        return 0
    except (InputError, OSError) as e:
        print(f"torch_crosscheck: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
