#!/usr/bin/env bash
# The main job: install what is missing, build, and run `hiprim check` on the default suite (smoke).
# Prints the summary table and the report path. Extra arguments go to `hiprim check`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
mkdir -p out
exec build/cli/hiprim check --suite smoke --report out/check_smoke.json "$@"
