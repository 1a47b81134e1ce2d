#!/bin/sh
# cli_devices.sh TANDEM [ONEDNN [MPI]]: tandem devices with POCL_DEVICES="pthread
# pthread" and lavapipe (ONEDNN: ON where the build has oneDNN; MPI: ON where it has
# libtandem_mpi): two OpenCL devices and the Vulkan device, every backend available,
# and jobs of processes available just where the plugin is built, in the table and in
# --json, whose unknown fields are the table's.
set -eu
tandem=$1 onednn=${2:-OFF} mpi=${3:-OFF}
json=$("$tandem" devices --json)
table=$("$tandem" devices)
count() { printf '%s\n' "$1" | grep -c -- "$2" || true; }
fail=0
[ "$(count "$json" '"backend": "opencl"')" -eq 2 ] || { echo "want 2 OpenCL devices in --json"; fail=1; }
[ "$(count "$json" '"backend": "vulkan"')" -ge 1 ] || { echo "want a Vulkan device in --json"; fail=1; }
[ "$(count "$table" ' opencl:')" -eq 2 ] || { echo "want 2 OpenCL rows in the table"; fail=1; }
[ "$(count "$table" ' vulkan:')" -ge 1 ] || { echo "want a Vulkan row in the table"; fail=1; }
printf '%s\n' "$table" | head -n 1 | grep -q "max alloc" || { echo "table header missing"; fail=1; }
# Unknown is unknown in both: the table's "?" compute units (its CUs column) are the
# JSON's nulls; PoCL's CPU device gives Intel's vendor id on any CPU, which is not
# kept where its vendor name says another vendor.
table_unknown=$(printf '%s\n' "$table" | sed -n '2,/^$/p' | cut -c112-115 | grep -c '^ *?$' || true)
[ "$table_unknown" -eq "$(count "$json" '"compute_units": null')" ] ||
    { echo "the table's unknown compute units differ from the JSON's nulls"; fail=1; }
if grep -q '^vendor_id.*AuthenticAMD' /proc/cpuinfo; then
    [ "$(printf '%s\n' "$json" | grep -A1 '"vendor": "AuthenticAMD"' | grep -c '"vendor_id": 32902')" -eq 0 ] ||
        { echo "want no Intel vendor id on a device whose vendor is AuthenticAMD"; fail=1; }
fi
for backend in reference opencl vulkan; do
    printf '%s\n' "$table" | grep -q "^$backend  *available: " ||
        { echo "want $backend listed as available"; fail=1; }
done
printf '%s\n' "$table" | grep -q "^opencl .*gemm through .*libclblast" ||
    { echo "want OpenCL's gemm through CLBlast"; fail=1; }
# PoCL's devices multiply on the host's BLAS (scripts/setup.sh installs OpenBLAS),
# or on CLBlast when TDM_CL_GEMM says so.
[ "$(count "$json" '"gemm": "OpenBLAS in the device.s queue"')" -eq 2 ] ||
    { echo "want PoCL's gemm on OpenBLAS in --json"; fail=1; }
[ "$(TDM_CL_GEMM=clblast "$tandem" devices --json | grep -c '"gemm": "CLBlast"')" -eq 2 ] ||
    { echo "want PoCL's gemm on CLBlast with TDM_CL_GEMM=clblast"; fail=1; }
# Each OpenCL and Vulkan device names its row of the GEMM tuning table: the default
# on CPU drivers, or TDM_GEMM_TUNING's; the reference none.
tuned=$(count "$json" '"backend": "\(opencl\|vulkan\)"')
[ "$(count "$json" '"gemm_tuning": "default"')" -eq "$tuned" ] &&
    [ "$(count "$json" '"gemm_tuning": null')" -eq 1 ] ||
    { echo "want the default GEMM tuning row on every OpenCL and Vulkan device in --json"; fail=1; }
[ "$(TDM_GEMM_TUNING=nvidia "$tandem" devices --json | grep -c '"gemm_tuning": "nvidia"')" -eq "$tuned" ] ||
    { echo "want TDM_GEMM_TUNING=nvidia's row on every OpenCL and Vulkan device"; fail=1; }
# OpenBLAS runs kernels that fit the CPU's vectors: Debian 12's takes CPUs newer than
# itself for a Prescott (SSE3) unless tandem names the kernels; a user's
# OPENBLAS_CORETYPE stands. Convolutions run on oneDNN (setup.sh installs it).
vector_cores='Haswell|Zen|SkylakeX|Cooperlake|SapphireRapids'
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
    printf '%s\n' "$table" | grep -Eq "^opencl .*OpenBLAS .*\(its ($vector_cores) kernels" ||
        { echo "want OpenBLAS's AVX2 or AVX-512 kernels on a CPU with AVX2 and FMA"; fail=1; }
fi
OPENBLAS_CORETYPE=Prescott "$tandem" devices | grep -q "^opencl .*(its Prescott kernels)" ||
    { echo "want OPENBLAS_CORETYPE=Prescott to stand"; fail=1; }
if [ "$onednn" = ON ]; then
    printf '%s\n' "$table" | grep -q "^opencl .*convolutions through oneDNN" ||
        { echo "want PoCL's convolutions through oneDNN (the build has it)"; fail=1; }
fi
backends_json=$(printf '%s\n' "$json" | sed -n '/"backends"/,/^  \]/p')
[ "$(count "$backends_json" '"available": true')" -eq 3 ] || { echo "want 3 available backends in --json"; fail=1; }
# Jobs of processes: available where libtandem_mpi is built (beside the CLI), else
# refused with the reason, in both forms.
if [ "$mpi" = ON ]; then
  printf '%s\n' "$table" | grep -q '^processes  available: .*libtandem_mpi.so.0 (transport version [0-9]*)$' &&
    printf '%s\n' "$json" | grep -A1 '"processes"' | grep -q '"available": true' ||
    { echo "want jobs of processes available"; fail=1; }
else
  printf '%s\n' "$table" | grep -q '^processes  unavailable (TDM_ERR_UNSUPPORTED): no transport between processes' &&
    printf '%s\n' "$json" | grep -A1 '"processes"' | grep -q '"available": false' ||
    { echo "want jobs of processes unavailable, saying why"; fail=1; }
fi
"$tandem" devices --bogus >/dev/null 2>&1 && { echo "a bad option must fail"; fail=1; }
[ $fail -eq 0 ] && echo "cli_devices: ok"
printf '%s\n' "$table"
exit $fail
