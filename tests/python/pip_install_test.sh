#!/usr/bin/env bash
# `pip install ./python` works offline (setuptools from the interpreter's environment, no build
# isolation, no dependencies fetched) and the installed package runs one convolution.
# Usage: pip_install_test.sh PYTHON PACKAGE_DIR WORK
set -euo pipefail
python=$1 package=$2 work=$3
# setuptools before 70.1 builds wheels through the wheel package.
if ! "$python" -c "import numpy, setuptools as s; v = tuple(int(x) for x in s.__version__.split('.')[:2]); v >= (70, 1) or __import__('wheel')" 2>/dev/null || ! "$python" -m pip --version >/dev/null 2>&1; then
  echo "HIPRIM_PYTHON_SKIPPED: numpy, pip, setuptools (or, before setuptools 70.1, wheel) missing for $python"
  exit 0
fi
rm -rf "$work"
mkdir -p "$work"
cp -r "$package" "$work/src"  # pip builds in place: keep the source tree clean
"$python" -m pip install --no-build-isolation --no-deps --no-index --target "$work/site" "$work/src"
cd "$work"
PYTHONPATH="$work/site" "$python" - <<'PY'
import numpy as np
import hiprim
assert hiprim.__file__.startswith(__import__("os").getcwd()), hiprim.__file__
x = np.ones((1, 1, 3, 3), np.float32)
y = hiprim.conv_forward(x, np.ones((1, 1, 3, 3), np.float32), padding=1)
assert y[0, 0, 1, 1] == 9 and y[0, 0, 0, 0] == 4, y
print("installed hiprim", hiprim.version(), "from", hiprim.__file__, ": conv ok")
PY
