#!/bin/sh
# tandem where part of the GPU stack is missing: in a private mount namespace an
# empty file hides loader libraries.
#   all      libOpenCL.so.1, libclblast.so.1 and libvulkan.so.1 hidden: programs
#            linked with libtandem.so and libtandem.a and the tandem tool still
#            start, `tandem devices` names the missing backends and why, and the
#            reference backend trains.
#   clblast  libclblast.so.1 hidden: PoCL's devices still multiply on OpenBLAS,
#            which `tandem devices` says, and train; then libopenblas.so.0 hidden
#            too: OpenCL is available without gemm, which `tandem devices` says,
#            so the default device is lavapipe, which runs every kernel, and it
#            trains.
# Needs root for unshare -m and mount; exits 77 (skipped) where a mount namespace
# cannot be made.
# usage: hidden_loaders.sh all TANDEM SHARED_PROGRAM STATIC_PROGRAM
#        hidden_loaders.sh clblast TANDEM
set -eu
if [ "${TDM_LOADERS_HIDDEN:-}" != 1 ]; then
    if ! unshare -m true 2>/dev/null; then
        echo "hidden_loaders: skipped: unshare -m is not allowed here (it needs root)"
        exit 77
    fi
    exec unshare -m env TDM_LOADERS_HIDDEN=1 "$0" "$@"
fi
mode=$1 tandem=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/tandem-hidden-XXXXXX")
trap 'rm -rf "$out"' EXIT
: >"$out/empty"
hide() {
    for path in $(ldconfig -p | awk -v lib="$1" '$1 == lib { print $NF }'); do
        mount --bind "$out/empty" "$(readlink -f "$path")"
        echo "hid $path"
    done
}
fail=0
check() { grep -q "$1" "$2" || { echo "FAIL: $3"; fail=1; }; }

case $mode in
all)
    shared_program=$3 static_program=$4
    for lib in libOpenCL.so.1 libclblast.so.1 libvulkan.so.1; do hide $lib; done
    "$tandem" devices >"$out/devices" || { echo "FAIL: tandem devices failed"; fail=1; }
    "$tandem" devices --json >"$out/json" || { echo "FAIL: tandem devices --json failed"; fail=1; }
    cat "$out/devices"
    for backend in opencl vulkan; do
        check "^$backend  *unavailable (TDM_ERR_NOT_FOUND): .*lib[a-zA-Z]*\.so\.1" "$out/devices" \
            "tandem devices must name $backend as unavailable and why"
        grep -A1 "\"name\": \"$backend\"" "$out/json" >"$out/entry" || true
        check '"available": false' "$out/entry" "tandem devices --json must mark $backend unavailable"
    done
    check "^reference  *available" "$out/devices" "the reference backend is missing"
    "$tandem" train --devices reference --epochs 3 --no-progress >"$out/train" ||
        { echo "FAIL: tandem train --devices reference failed"; fail=1; }
    cat "$out/train"
    check '^done .*test accuracy' "$out/train" "training did not finish"
    "$shared_program" || { echo "FAIL: a program linked with libtandem.so failed"; fail=1; }
    "$static_program" || { echo "FAIL: a program linked with libtandem.a failed"; fail=1; }
    ;;
clblast)
    hide libclblast.so.1
    "$tandem" devices >"$out/devices" || { echo "FAIL: tandem devices failed"; fail=1; }
    cat "$out/devices"
    check "^opencl  *available: .*gemm unsupported without CLBlast (.*libclblast\.so\.1.*on CPU devices through OpenBLAS" \
        "$out/devices" "tandem devices must say that OpenCL lacks CLBlast, and its CPU devices not"
    "$tandem" train --epochs 1 --no-progress >"$out/train" ||
        { echo "FAIL: tandem train on OpenBLAS failed"; fail=1; }
    cat "$out/train"
    check '^  replica 0: opencl:0 ' "$out/train" "PoCL multiplies on OpenBLAS without CLBlast"
    hide libopenblas.so.0
    "$tandem" devices >"$out/devices" || { echo "FAIL: tandem devices failed"; fail=1; }
    cat "$out/devices"
    check "^opencl  *available: .*gemm unsupported without CLBlast.*on CPU devices without OpenBLAS" \
        "$out/devices" "tandem devices must say that OpenCL has no gemm, and why"
    "$tandem" train --epochs 1 --no-progress >"$out/train" ||
        { echo "FAIL: tandem train failed"; fail=1; }
    cat "$out/train"
    check '^  replica 0: vulkan:0 ' "$out/train" "the default must be the device that runs gemm"
    check '^done .*test accuracy' "$out/train" "training did not finish"
    ;;
*)
    echo "usage: hidden_loaders.sh all|clblast TANDEM [SHARED_PROGRAM STATIC_PROGRAM]"
    exit 2
    ;;
esac
[ $fail -eq 0 ] && echo "hidden_loaders $mode: ok"
exit $fail
