#!/usr/bin/env bash
# Installs the Debian packages hiprim builds with, when any is missing. Idempotent; quiet when all are there.
set -euo pipefail
pkgs=(build-essential cmake git libeigen3-dev libgtest-dev librapidcheck-dev libcli11-dev nlohmann-json3-dev libsqlite3-dev python3
  python3-numpy python3-pytest python3-setuptools python3-wheel python3-pip)  # the Python package's tests (python/)
# The AMD compile-only gate (tests) needs Debian's hipcc (ROCm 5.2).
[ "${HIPRIM_WITH_HIPCC:-0}" = 1 ] && pkgs+=(hipcc libamdhip64-dev rocm-device-libs)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}" >&2
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
