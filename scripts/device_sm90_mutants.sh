#!/usr/bin/env bash
# conv.igemm.wgmma's GPU mutants (issue 11) on the device machine (an sm_90 GPU: H100 or H200), from
# the repository root, with the binaries in $BIN (default devbin/) made here by
#   scripts/device_build.sh test_sm90_mutants      (or the whole devbin: scripts/device_build.sh)
# Runs test_sm90_mutants (tests/fuzz/test_sm90_mutants.cpp): the host checks, then the control kernel's
# fuzz campaign and one campaign per mutant, each in its own child process (parity, no_fence,
# early_release, k_tail, tma_edge, splitk_order: gpu/conv/igemm_sm90_mutant.hpp), each required to be
# caught (wrong answer, watchdog error or a second run that differs), shrunk, and passed by the control.
# Writes into $OUT (default out/device_sm90_mutants):
#   sm90_mutants.json  the merged report: machine, control, and per mutant cases run, first failing
#                      case (found_problem, found_repro), shrunk case (shrunk_problem, repro), sizes
#                      in MACs, shrink steps/runs/seconds, status and reason, the control's verdicts
#   sm90_mutants.log   the test's output
# and prints a summary table. Usage: OUT=/some/dir scripts/device_sm90_mutants.sh   (BIN=devbin)
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-devbin}
OUT=${OUT:-out/device_sm90_mutants}
mkdir -p "$OUT"
T="$BIN/test_sm90_mutants"
if [ ! -x "$T" ]; then
  for a in "$BIN/bin.tar.xz" "$BIN/tests.tar.xz"; do [ -f "$a" ] && tar -xJf "$a" -C "$BIN"; done
fi
[ -x "$T" ] || { echo "device_sm90_mutants: no $T (scripts/device_build.sh test_sm90_mutants)"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1
echo "device_sm90_mutants: $(date -u +%FT%TZ), $(ls -l "$T" | awk '{print $5}') bytes $T"
HIPRIM_SM90_MUTANT_REPORT="$OUT/sm90_mutants.json" timeout 580 "$T" --gtest_filter='Sm90MutantsHost.*:Sm90Mutants.*' \
  > "$OUT/sm90_mutants.log" 2>&1
rc=$?
grep -vE '^\[ +(RUN|OK) +\]' "$OUT/sm90_mutants.log" | tail -n 60
echo "test_sm90_mutants rc=$rc$([ $rc -eq 124 ] && echo ' (timed out)')"
[ -f "$OUT/sm90_mutants.json" ] || { echo "no report written"; exit 1; }
python3 - "$OUT/sm90_mutants.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r.get("control", {})
print("control %s: %s cases, %s failures, child exit %s" % (c.get("solver"), c.get("cases_run"), c.get("failures"), c.get("child_exit")))
fmt = "%-14s %-36s %-6s %-11s %6s %12s %8s %6s %7s  %s"
print(fmt % ("mutant", "expected", "caught", "status", "cases", "found->MACs", "shrunk", "steps", "secs", "control found/shrunk"))
for m in r["mutants"]:
    print(fmt % (m.get("mutant"), m.get("expected_catch", ""), m.get("caught"), m.get("status", "-"), m.get("cases_to_catch", m.get("cases_run")),
                 "%.0f" % m.get("found_macs", 0), "%.0f" % m.get("shrunk_macs", 0), m.get("shrink_steps", "-"),
                 "%.1f" % m.get("seconds", 0), "%s/%s" % (m.get("control_on_found", "-"), m.get("control_on_shrunk", "-"))))
    if m.get("repro"):
        print("    repro: " + m["repro"])
        print("    why:   " + m.get("reason", "")[:200])
print("caught %s of %s mutants" % (r.get("caught"), r.get("mutant_count")))
PY
ls -l "$OUT"
exit $rc
