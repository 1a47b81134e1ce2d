#!/bin/sh
# Runs every test: the whole suite in build/ (which scripts/setup.sh made), then
# the reference and OpenCL cases again under AddressSanitizer + LeakSanitizer.
set -eu
cd "$(dirname "$0")/.."

ctest --test-dir build --output-on-failure

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTDM_SANITIZE=address \
      -DTDM_WITH_VULKAN=OFF -DTDM_WERROR=ON >/dev/null
cmake --build build-asan -j"$(nproc)"
# PoCL and its LLVM keep some allocations until exit; tests/lsan.supp names them.
ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0" \
  ctest --test-dir build-asan --output-on-failure -L leakcheck
