#!/usr/bin/env bash
# Installs the build tree into a fresh prefix under WORK, then builds the out-of-tree example
# (example/) against that install twice: with CMake (find_package(hiprim), hiprim::hiprim) and the C
# program alone with `pkg-config --cflags --libs hiprim`; runs all three programs. Any failing step
# fails the test: a broken install rule, package config or pkg-config file shows here.
# Usage: run_install_test.sh BUILD_DIR EXAMPLE_DIR WORK C_COMPILER CXX_COMPILER
set -euo pipefail
build=$1 example=$2 work=$3 cc=$4 cxx=$5
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
step() { echo "== $*"; }
step install
cmake --install "$build" --prefix "$prefix" --component hiprim
ls -l "$prefix"/lib*/libhiprim.so* 2>/dev/null || find "$prefix" -name 'libhiprim.so*'
step "find_package(hiprim) example"
# Only the installed tree may be found: no source or build directory on any search path.
cmake -S "$example" -B "$work/example" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >/dev/null
cmake --build "$work/example" >/dev/null
"$work/example/conv_example_c"
"$work/example/conv_example_cpp"
step "pkg-config example"
pcdir=$(dirname "$(find "$prefix" -name hiprim.pc | head -n1)")
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs hiprim)
echo "pkg-config --cflags --libs hiprim: $flags"
libdir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir hiprim)
# shellcheck disable=SC2086
"$cc" -std=c99 -Wall -Werror -o "$work/conv_example_pc" "$example/conv_example.c" $flags
LD_LIBRARY_PATH="$libdir" "$work/conv_example_pc"
echo "install test passed"
