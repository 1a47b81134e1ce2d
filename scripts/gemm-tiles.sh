#!/bin/sh
# Vulkan's GPU gemm under each tile shape it can take (TDM_VK_GEMM_TILE,
# docs/KERNELS.md): GFLOP/s per shape and size from `tandem bench gemm`, then the
# device's row of the GEMM tuning table (backends/tuning/gemm_tuning.def) ready to
# paste: the best shape at the smallest size for every tiled product, the best at
# the largest for large ones; the rest of the row the default's, which this sweep
# does not measure. On a CPU driver run it with TDM_VK_AS_GPU=1 (the figures then
# say nothing of a GPU).
# usage: scripts/gemm-tiles.sh [DEVICE [MINSIZE [MAXSIZE]]]   (vulkan:0 1024 4096)
set -eu
cd "$(dirname "$0")/.."
device=${1:-vulkan:0} min=${2:-1024} max=${3:-4096}
[ -x build/tandem ] || ./scripts/setup.sh
rates=$(mktemp)
trap 'rm -f "$rates"' EXIT
printf '%-16s %s\n' shape "GFLOP/s at m = n = k from $min to $max on $device"
for shape in default none 64x64/4x4:1 64x64/4x4 128x64/8x4 64x128/4x8 128x128/8x8:1 \
    128x128/8x8; do
    tile=$shape
    [ "$shape" = default ] && tile=""
    # The table's rows are "NN size GFLOP/s OpenBLAS of-BLAS CLBlast of-CLB #wrong":
    # keep the size and the figure, and the sampled elements found wrong where there
    # are any (a shape with any is no candidate).
    line=$(TDM_VK_GEMM_TILE=$tile build/tandem bench gemm -d "$device" -b "$min" -e "$max" \
        -r 3 2>&1 | awk '$1 == "NN" && $2 ~ /^[0-9]+$/ { printf "%s:%s ", $2, $3; if ($NF != 0) printf "(%s WRONG) ", $NF }
                         /ignored/ { print }')
    printf '%-16s %s\n' "$shape" "$line"
    printf '%s %s\n' "$shape" "$line" >>"$rates"
done

# The best tile shape (not the default, not none) at a size, from the lines above.
best() {
    awk -v size="$1" '$1 != "default" && $1 != "none" && !/WRONG|ignored/ {
        for (i = 2; i <= NF; i++) { split($i, f, ":"); if (f[1] == size && f[2] + 0 > rate) { rate = f[2] + 0; shape = $1 } } }
        END { print shape }' "$rates"
}
small=$(best "$min") large=$(best "$max")
if [ -z "$small" ] || [ -z "$large" ]; then
    echo "no shape ran right at $min and $max: no row" >&2
    exit 1
fi
# The device's name and vendor id as `tandem devices --json` gives them, and the
# default row's other values.
described=$(build/tandem devices --json | awk -v id="$device" -F'"' '
    $2 == "id" { found = $4 == id } found && $2 == "name" { name = $4 }
    found && $2 == "vendor_id" { split($3, v, /[:, ]+/); vendor = v[2]; found = 0 }
    END { printf "%s|%s", name, vendor }')
name=${described%|*} vendor=${described#*|}
# the default's values after its shapes: LARGE_FROM to VK_K_EACH, then OpenCL's four
rest=$(sed -n '/^TDM_GEMM_TUNING(default,/,/)/p' backends/tuning/gemm_tuning.def | tr -d '\n )' |
    awk -F, '{ printf "%s, %s, %s|%s, %s, %s, %s", $10, $11, $12, $13, $14, $15, $16 }')
row=$(printf '%s' "$name" | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '_' | sed 's/^_*//; s/_*$//')
[ "$vendor" = null ] && vendor=0 || vendor=$(printf '0x%04X' "$vendor")
echo
echo "The row for backends/tuning/gemm_tuning.def, before the default:"
echo "/* $name: scripts/gemm-tiles.sh $device $min $max, $(date -u +%Y-%m-%d): $small"
echo " * the best at $min^3, $large at $max^3. The split, the default's. */"
echo "TDM_GEMM_TUNING($row, -1, -1, $vendor, NULL, \"$name\", NULL,"
echo "                \"$small\", \"$large\", ${rest%|*},"
echo "                ${rest#*|})"
