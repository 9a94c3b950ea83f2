#!/usr/bin/env bash
# Prepared in s33 for the next session: build HEAD (scripts/device_build.sh hiprim), copy devbin/bin.tar.xz and
# ../callT.sh, ../callU.sh and reports/h200/s32-2026-12-07/scripts/next/callnext.sh (as callA.sh) into devbin/, then run them as separate calls on one warm machine, in this order
# (each under 600 s): `bash devbin/callT.sh` (the tc solvers' first GPU run: check, fuzz, memcheck, bf16 fwd bench),
# `bash devbin/callU.sh` (bf16 bwd benches), `bash devbin/callA.sh` (the two fp32 bwd-data Winograd lines).
# This file only says so; it runs callT.sh when called by mistake.
exec bash devbin/callT.sh
