#!/bin/sh
# tandem train's device choice, read from the replica lines it prints.
#   cpus      PoCL x2 beside lavapipe: the default takes PoCL's two devices, not
#             lavapipe on the same cores; backend names, --split and ids choose
#             otherwise.
#   two-icds  one lavapipe seen through two ICD files and no OpenCL: the default and
#             --devices vulkan use it once, where it used to fail as "the same
#             hardware".
#   simulator Oclgrind beside PoCL x2: the default takes PoCL's devices, and the
#             setup line and `tandem devices` say why the simulator is left out.
# usage: cli_device_choice.sh TANDEM cpus|two-icds|simulator
set -eu
tandem=$1 setup=$2
fail=0

# replicas ARGS...: the replica devices of a one-epoch run, space-separated.
replicas() {
    "$tandem" train --epochs 1 --no-progress "$@" >"$log" 2>&1 || { cat "$log"; return 1; }
    sed -n 's/^  replica [0-9]*: \([^ ]*\) .*/\1/p' "$log" | tr '\n' ' ' | sed 's/ $//'
}
expect() {
    want=$1
    shift
    got=$(replicas "$@") || got="(failed)"
    if [ "$got" = "$want" ]; then
        echo "ok: tandem train $*: $got"
    else
        echo "FAIL: tandem train $*: replicas '$got', want '$want'"
        fail=1
    fi
}

log=$(mktemp "${TMPDIR:-/tmp}/tandem-choice-XXXXXX")
trap 'rm -f "$log"' EXIT
case $setup in
cpus)
    expect "opencl:0 opencl:1"
    expect "opencl:0 opencl:1" --devices opencl
    expect "reference:0" --devices reference
    expect "vulkan:0" --devices vulkan
    expect "vulkan:0/0 vulkan:0/1" --devices vulkan --split 2
    expect "reference:0 opencl:1 vulkan:0" --devices reference,opencl:1,3
    expect "opencl:0/0 opencl:0/1 opencl:1/0 opencl:1/1" --split 2
    if "$tandem" train --epochs 1 --devices nonsense >"$log" 2>&1 ||
        ! grep -q "no device 'nonsense'.*backend" "$log"; then
        echo "FAIL: an unknown device must fail, naming it and what is accepted"
        fail=1
    fi
    ;;
two-icds)
    expect "vulkan:0"
    expect "vulkan:0" --devices vulkan
    if "$tandem" train --epochs 1 --devices opencl >"$log" 2>&1 ||
        ! grep -q "no opencl device (no OpenCL platform" "$log"; then
        echo "FAIL: --devices opencl without OpenCL must fail and say why"
        fail=1
    fi
    ;;
simulator)
    expect "opencl:1 opencl:2"
    if ! grep -q "^  left out: opencl:0 (Oclgrind Simulator), a simulator, never preferred over real hardware; --devices opencl:0 uses it$" "$log"; then
        echo "FAIL: the setup line must name the simulator it left out"
        cat "$log"
        fail=1
    fi
    "$tandem" devices >"$log"
    if ! grep -q "^  1  opencl:0 .*(not a default: a simulator" "$log"; then
        echo "FAIL: tandem devices must say why the simulator is not a default"
        cat "$log"
        fail=1
    fi
    ;;
*)
    echo "usage: cli_device_choice.sh TANDEM cpus|two-icds|simulator"
    exit 2
    ;;
esac
[ $fail -eq 0 ] && echo "cli_device_choice $setup: ok"
exit $fail
