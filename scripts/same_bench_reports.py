#!/usr/bin/env python3
"""Whether two `hiprim bench` reports of the same command (two builds, same GPU machine) agree in
everything but what the clock decides. Used by scripts/device_same_bench.sh.

Compared: the cases' (problem, solver) list in order; per case its status, verdict reason,
verification settings (verify, fill, tolerance, seed, count, flops, bytes, exact_fill,
deterministic) and, when a peer was asked for, the peer's name and status (and its reason unless it
timed a plan); the cases' JSON key structure; the summary counts; the settings (but the wall times);
the key structure of the whole report. Ignored: times and rates, which solver is "best", the peer's
selected plan (autotuned by the clock), ceilings' values, clocks, machine, git fields, command,
creation time.

Usage: same_bench_reports.py BASE.json NEW.json [--name=NAME]
Exit 0: the same; 1: they differ (each difference printed, at most 20 a kind); 2: a report missing or
unreadable.
"""
import json
import sys

CASE_KEYS = ("status", "reason", "verify", "fill", "tolerance", "seed", "count", "flops", "bytes", "exact_fill",
             "deterministic")
SETTINGS_CLOCKED = {"seconds", "repeat_seconds", "phase_seconds", "l2_bytes"}
REFERENCES_CLOCKED = {"compute_s"}
REPORT_IGNORED = {"created", "machine", "command", "clocks"}
SHOW = 20


def structure(v):
    """The key tree of a JSON value: dicts by their keys, lists by the union of their elements'."""
    if isinstance(v, dict):
        return {k: structure(x) for k, x in sorted(v.items())}
    if isinstance(v, list):
        merged = {}
        for x in v:
            s = structure(x)
            if isinstance(s, dict):
                for k, y in s.items():
                    merged.setdefault(k, y)
        return {"[]": merged} if merged else "[]"
    return "."


def structure_diff(a, b, path=""):
    """Paths present in one key tree and not in the other."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return [] if isinstance(a, dict) == isinstance(b, dict) else [f"{path or '/'}: object vs value"]
    out = []
    for k in sorted(set(a) | set(b)):
        p = f"{path}/{k}"
        if k not in a:
            out.append(f"{p}: only in new")
        elif k not in b:
            out.append(f"{p}: only in base")
        else:
            out += structure_diff(a[k], b[k], p)
    return out


def case_view(c, peer_asked):
    v = {k: c.get(k) for k in CASE_KEYS}
    if peer_asked:
        p = c.get("peer") or {}
        v["peer"] = {"name": p.get("name"), "status": p.get("status")}
        if p.get("status") != "timed":
            v["peer"]["reason"] = p.get("reason")
    return v


def settings_view(s):
    s = {k: v for k, v in s.items() if k not in SETTINGS_CLOCKED}
    if isinstance(s.get("references"), dict):
        s["references"] = {k: v for k, v in s["references"].items() if k not in REFERENCES_CLOCKED}
    return s


def compare(base, new):
    """Lists of difference lines per kind ({} when the reports agree)."""
    diffs = {}

    def add(kind, line):
        diffs.setdefault(kind, []).append(line)

    ka = [(c.get("problem"), c.get("solver")) for c in base.get("cases", [])]
    kb = [(c.get("problem"), c.get("solver")) for c in new.get("cases", [])]
    if ka != kb:
        sa, sb = set(ka), set(kb)
        for k in ka:
            if k not in sb:
                add("cases only in base", f"{k[1]} {k[0]}")
        for k in kb:
            if k not in sa:
                add("cases only in new", f"{k[1]} {k[0]}")
        if sa == sb:
            first = next(i for i, (x, y) in enumerate(zip(ka, kb)) if x != y)
            add("case order", f"case {first}: base {ka[first][1]} {ka[first][0]}, new {kb[first][1]} {kb[first][0]}")
    peer_asked = base.get("peer") is not None or new.get("peer") is not None
    by_key_b = {(c.get("problem"), c.get("solver")): c for c in new.get("cases", [])}
    for c in base.get("cases", []):
        k = (c.get("problem"), c.get("solver"))
        if k not in by_key_b:
            continue
        d = by_key_b[k]
        va, vb = case_view(c, peer_asked), case_view(d, peer_asked)
        for f in va:
            if va[f] != vb[f]:
                add("case verdicts", f"{k[1]} {k[0]}: {f}: {json.dumps(va[f])[:160]} -> {json.dumps(vb[f])[:160]}")
        for line in structure_diff(structure(c), structure(d)):
            add("case keys", f"{k[1]} {k[0]}: {line}")
    if base.get("summary") != new.get("summary"):
        add("summary", f"{json.dumps(base.get('summary'))} -> {json.dumps(new.get('summary'))}")
    sa, sb = settings_view(base.get("settings", {})), settings_view(new.get("settings", {}))
    for f in sorted(set(sa) | set(sb)):
        if sa.get(f) != sb.get(f):
            add("settings", f"{f}: {json.dumps(sa.get(f))[:160]} -> {json.dumps(sb.get(f))[:160]}")
    for f in ("schema", "schema_version", "kind"):
        if base.get(f) != new.get(f):
            add("report", f"{f}: {base.get(f)} -> {new.get(f)}")
    pa, pb = base.get("peer"), new.get("peer")
    if isinstance(pa, dict) and isinstance(pb, dict):
        for f in ("name", "available"):
            if pa.get(f) != pb.get(f):
                add("report", f"peer.{f}: {pa.get(f)} -> {pb.get(f)}")
    elif (pa is None) != (pb is None):
        add("report", f"peer: {json.dumps(pa)[:80]} -> {json.dumps(pb)[:80]}")
    top = lambda r: {k: settings_view(v) if k == "settings" else v for k, v in r.items() if k not in REPORT_IGNORED and k != "cases"}
    top_a, top_b = top(base), top(new)
    for line in structure_diff(structure(top_a), structure(top_b)):
        add("report keys", line)
    return diffs


def main(argv):
    args = [a for a in argv if not a.startswith("--name")]
    name = next((a.split("=", 1)[1] for a in argv if a.startswith("--name=")), "bench")
    if len(args) != 2:
        print("usage: same_bench_reports.py BASE.json NEW.json [--name=NAME]", file=sys.stderr)
        return 2
    reports = []
    for side, path in zip(("base", "new"), args):
        try:
            with open(path) as f:
                reports.append(json.load(f))
        except Exception as e:  # missing, unreadable, not JSON
            print(f"{name}: {side} report {path}: {e}")
            return 2
    base, new = reports
    diffs = compare(base, new)
    statuses = lambda r: {s: sum(1 for c in r.get("cases", []) if c.get("status") == s)
                          for s in sorted({c.get("status") for c in r.get("cases", [])})}
    print(f"{name}: {len(base.get('cases', []))} base cases, {len(new.get('cases', []))} new cases; "
          f"base statuses {statuses(base)}, new statuses {statuses(new)}")
    if not diffs:
        print(f"{name}: SAME (cases in order, verdicts, settings, summary, key structure)")
        return 0
    for kind, lines in diffs.items():
        print(f"{name}: DIFF {kind}: {len(lines)}")
        for line in lines[:SHOW]:
            print(f"  {line}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
