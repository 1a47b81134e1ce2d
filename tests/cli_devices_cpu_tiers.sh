#!/bin/sh
# cli_devices_cpu_tiers.sh TANDEM: `tandem devices` names the instruction set that
# oneDNN's and OpenBLAS's kernels use on CPU devices, and each follows its own limit
# (ONEDNN_MAX_CPU_ISA, OPENBLAS_CORETYPE) down to AVX2 and SSE4.1, the tiers the suite
# tests on any machine. Skipped (77) without either library.
set -eu
tandem=$1
opencl_row() { "$tandem" devices | grep '^opencl '; }
row=$(opencl_row)
case $row in
*"through OpenBLAS"*"through oneDNN"*) ;;
*) echo "skipped: no OpenBLAS and oneDNN for CPU devices: $row"; exit 77 ;;
esac
fail=0
want() { # ROW TEXT WHAT
    case $1 in
    *"$2"*) ;;
    *) echo "FAIL: want '$2' ($3) in: $1"; fail=1 ;;
    esac
}
# Unlimited: a named tier, never "unnamed".
case $row in *"unnamed kernels"*) echo "FAIL: oneDNN's tier is unnamed: $row"; fail=1 ;; esac
# A limit only lowers: AVX2 is expected where the CPU has it.
if grep -qw avx2 /proc/cpuinfo; then
    row=$(ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell opencl_row)
    want "$row" "libdnnl.so.2 (its AVX2 kernels)" "oneDNN held to AVX2"
    want "$row" "(its Haswell kernels)" "OpenBLAS held to Haswell's"
fi
row=$(ONEDNN_MAX_CPU_ISA=SSE41 OPENBLAS_CORETYPE=Nehalem opencl_row)
want "$row" "libdnnl.so.2 (its SSE4.1 kernels)" "oneDNN held to SSE4.1"
want "$row" "(its Nehalem kernels)" "OpenBLAS held to Nehalem's"
exit $fail
