#!/bin/sh
# Runs every test and says how long each part took:
#  1. the whole suite in build/ (which scripts/setup.sh made);
#  2. the Windows build (MinGW-w64) and its tests under Wine, and the same model bytes
#     from both builds (scripts/test-windows.sh);
#  3. the suite again under AddressSanitizer + UndefinedBehaviorSanitizer
#     (build-asan/), Vulkan and its validation layer included, but for the rows of
#     other kernels' variants: any finding fails;
#  4. each libFuzzer target for TDM_FUZZ_SECONDS (default 30) in build-fuzz/ (clang),
#     from its seed corpus in tests/fuzz/corpus/;
#  5. the whole tree, every backend, built by clang with -Werror (build-clang/).
# A failing part does not stop the later ones; the exit status is non-zero if any
# failed. Tests run TDM_TEST_JOBS at a time (default: one per core): most of them keep
# a core busy only part of the time, waiting on a device queue or an fsync.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc)
test_jobs=${TDM_TEST_JOBS:-$jobs}
fuzz_seconds=${TDM_FUZZ_SECONDS:-30}
begin=$(date +%s)
since=$begin
failed=""
took() {
  now=$(date +%s)
  echo "test.sh: $1 took $((now - since)) s"
  since=$now
}
# Runs a part; a failure is noted, and the next part runs.
part() {
  name=$1
  shift
  "$@" || failed="$failed
  $name"
  took "$name"
}

part "the suite" ctest --test-dir build --output-on-failure -j"$test_jobs"
# Bounded: about 5 minutes from nothing on 2 cores (docs/TESTING.md); a hang under
# Wine ends the part, not the test command.
part "the Windows build under Wine" timeout 1200 sh scripts/test-windows.sh build

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTDM_SANITIZE=address,undefined \
      -DTDM_WITH_OPENCL=ON -DTDM_WITH_CLBLAST=ON -DTDM_WITH_ONEDNN=ON -DTDM_WITH_VULKAN=ON \
      -DTDM_WITH_MPI=ON \
      -DTDM_WERROR=ON >/dev/null
cmake --build build-asan -j"$jobs"
took "the sanitizer build"
# PoCL and its LLVM keep some allocations until exit; tests/lsan.supp names them,
# and nothing of tandem's. A 16 MiB quarantine instead of 256 MiB still catches uses
# after free, and the drivers' and validation layer's churn of large buffers then
# costs 2x, not 6x.
# GCC 12's runtime can misread a dynamic TLS block of a library loaded with dlopen
# (PoCL's) as an old glibc's, and LeakSanitizer then dies scanning it ("Tracer caught
# signal 11"), now and then: intercept_tls_get_addr=0 avoids that reading.
export ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=16:intercept_tls_get_addr=0
export UBSAN_OPTIONS=print_stacktrace=1
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
# The rows labelled kernel_variants run the host code of other rows over other
# kernels (oneDNN's and OpenBLAS's lower instruction sets, gemm's tile shapes, the
# emulated cooperative-matrix shader): the plain suite runs them, the sanitizers
# would only see that host code again, at a fifth of this part's time.
part "the suite under ASan + UBSan" \
  ctest --test-dir build-asan --output-on-failure -j"$test_jobs" -LE kernel_variants

targets="csv idx checkpoint options"
# The fuzzing build is also the one without CLBlast and oneDNN (OpenCL without gemm
# and with lowered convolutions only, as a user without libclblast-dev and
# libdnnl-dev builds it), so that configuration compiles, with clang too.
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DTDM_FUZZ=ON -DTDM_SANITIZE=address,undefined -DTDM_WITH_OPENCL=ON \
      -DTDM_WITH_CLBLAST=OFF -DTDM_WITH_ONEDNN=OFF -DTDM_WITH_VULKAN=OFF -DTDM_WITH_MPI=OFF \
      -DTDM_WERROR=ON >/dev/null
cmake --build build-fuzz -j"$jobs" $(for t in $targets; do printf -- '--target fuzz_%s ' "$t"; done)
took "the fuzzing build"
fuzz() {
  mkdir -p "build-fuzz/corpus/$1"
  build-fuzz/tests/fuzz/fuzz_"$1" -max_total_time="$fuzz_seconds" -timeout=10 \
    -print_final_stats=1 -artifact_prefix="build-fuzz/crash-$1-" \
    "build-fuzz/corpus/$1" "tests/fuzz/corpus/$1" 2>"build-fuzz/fuzz_$1.log" || {
    tail -n 60 "build-fuzz/fuzz_$1.log"
    echo "test.sh: fuzz_$1 found a crash: keep build-fuzz/crash-$1-* in" \
         "tests/fuzz/regressions/$1/ with the fix"
    return 1
  }
  grep -E '^stat::number_of_executed_units' "build-fuzz/fuzz_$1.log" | sed "s/^/fuzz_$1: /"
}
for t in $targets; do
  part "fuzz_$t" fuzz "$t"
done

# clang warns where GCC does not, and compiles branches that only it takes; the
# fuzzing build leaves out CLBlast, Vulkan and MPI, so the whole tree is built again.
cmake -S . -B build-clang -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DTDM_WITH_OPENCL=ON -DTDM_WITH_CLBLAST=ON -DTDM_WITH_ONEDNN=ON -DTDM_WITH_VULKAN=ON \
      -DTDM_WITH_MPI=ON \
      -DTDM_WERROR=ON >/dev/null
part "the clang build" cmake --build build-clang -j"$jobs"

total=$(($(date +%s) - begin))
if [ -n "$failed" ]; then
  echo "test.sh: failed after $total s:$failed"
  exit 1
fi
echo "test.sh: everything passed in $total s"
