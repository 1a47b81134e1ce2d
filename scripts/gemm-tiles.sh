#!/bin/sh
# Vulkan's GPU gemm under each tile shape it can take (TDM_VK_GEMM_TILE,
# docs/KERNELS.md): GFLOP/s per shape and size from `tandem bench gemm`, to pick a
# card's shapes from one run. On a CPU driver run it with TDM_VK_AS_GPU=1 (the
# figures then say nothing of a GPU).
# usage: scripts/gemm-tiles.sh [DEVICE [MINSIZE [MAXSIZE]]]   (vulkan:0 1024 4096)
set -eu
cd "$(dirname "$0")/.."
device=${1:-vulkan:0} min=${2:-1024} max=${3:-4096}
[ -x build/tandem ] || ./scripts/setup.sh
printf '%-16s %s\n' shape "GFLOP/s at m = n = k from $min to $max on $device"
for shape in default none 64x64/4x4:1 64x64/4x4 128x64/8x4 64x128/4x8 128x128/8x8:1 \
    128x128/8x8; do
    tile=$shape
    [ "$shape" = default ] && tile=""
    # The table's rows are "size GFLOP/s OpenBLAS of-BLAS #wrong": keep the size and
    # the figure, and the sampled elements found wrong where there are any.
    rates=$(TDM_VK_GEMM_TILE=$tile build/tandem bench gemm -d "$device" -b "$min" -e "$max" \
        -r 3 2>&1 | awk '$1 ~ /^[0-9]+$/ { printf "%s:%s ", $1, $2; if ($NF != 0) printf "(%s WRONG) ", $NF }
                         /ignored/ { print }')
    printf '%-16s %s\n' "$shape" "$rates"
done
