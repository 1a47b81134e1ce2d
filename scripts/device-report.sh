#!/bin/sh
# The one command to run on a machine with a GPU: what tandem sees there and how
# it does, in one folder with a one-page summary (SUMMARY.md) to send back.
#
#   devices.json, devices.txt         tandem devices
#   system.txt                        the machine: CPU, kernel, GPU tools' views
#   conformance.json, .txt            every kernel, gradient and collective
#   bench-kernels|gemm|allreduce|train.json, .txt
#   gemm-tiles.txt                    Vulkan's GPU gemm under each tile shape (vulkan:0)
#   cnn-layers.txt                    the CNN's image kernels, per layer and device
#   conv-ways.txt                     each way of the CNN's convolutions timed per
#                                     layer and device (--conv measured)
#   train.txt                         a short training on the default devices
#   torch-cuda.txt                    PyTorch training the same models on the card,
#                                     where python3 has torch with CUDA
#
# usage: scripts/device-report.sh [--quick] [--devices LIST] [OUT_DIR]
#   --quick         smaller cases and sizes: minutes instead of most of an hour
#   --devices LIST  the devices to measure (tandem devices ids), default: every one
#   OUT_DIR         default: device-report-HOST-DATE
# FASHION_MNIST_DIR names Fashion-MNIST's IDX files where Debian's package is not
# installed (conv-ways skips the CNN without them). Builds tandem first
# (scripts/setup.sh) where build/tandem is missing. A step that fails is recorded
# with its exit status and the report goes on.
set -u
cd "$(dirname "$0")/.."
root=$(pwd)

quick=0 devices="" out=""
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 ;;
    --devices) devices=$2; shift ;;
    --devices=*) devices=${1#--devices=} ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "device-report.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) out=$1 ;;
    esac
    shift
done
[ -n "$out" ] || out="device-report-$(hostname)-$(date +%Y%m%d-%H%M)"
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)

[ -x build/tandem ] || ./scripts/setup.sh || exit 1
tandem=$root/build/tandem

# The sizes of a full report and of a quick one.
if [ $quick -eq 1 ]; then
    conformance_size=--no-large allreduce_max=4M gemm_max=512 kernel_bytes=8M tiles_max=2048
    train_steps="--steps 20 --warmup 3 --model digits"
else
    conformance_size="" allreduce_max=256M gemm_max=2048 kernel_bytes=64M tiles_max=4096
    train_steps=""
fi
fashion=${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
device_list() { [ -n "$devices" ] && printf -- '%s %s' "$1" "$devices"; }

summary=$out/SUMMARY.md
status_lines=""

# step NAME SECONDS CMD...: runs CMD with stdout and stderr into NAME.txt, bounded in
# time, and records how it ended.
step() {
    name=$1 limit=$2
    shift 2
    echo "== $name: $*"
    start=$(date +%s)
    timeout "$limit" "$@" >"$out/$name.txt" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
    case $rc in
    0) verdict="ok" ;;
    124) verdict="stopped after ${limit} s" ;;
    *) verdict="exit $rc" ;;
    esac
    echo "   $verdict in $took s"
    status_lines="$status_lines| $name | $verdict | $took s |
"
}

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "tandem: $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
    echo "kernel: $(uname -srm)"
    grep -m1 'model name' /proc/cpuinfo 2>/dev/null
    echo "cores: $(nproc)"
    grep -m1 MemTotal /proc/meminfo 2>/dev/null
    command -v nvidia-smi >/dev/null && nvidia-smi -L
    command -v rocm-smi >/dev/null && rocm-smi --showproductname
    command -v clinfo >/dev/null && clinfo -l
    command -v vulkaninfo >/dev/null && vulkaninfo --summary 2>/dev/null
} >"$out/system.txt" 2>&1

step devices 60 "$tandem" devices
"$tandem" devices --json >"$out/devices.json" 2>/dev/null
# shellcheck disable=SC2046,SC2086 # the size options are words on purpose
step conformance 3000 "$tandem" conformance $conformance_size $(device_list --device) \
    --json "$out/conformance.json"
step bench-kernels 900 "$tandem" bench kernels $(device_list --devices) \
    --size "$kernel_bytes" --json "$out/bench-kernels.json"
step bench-gemm 900 "$tandem" bench gemm $(device_list --devices) --maxsize "$gemm_max" \
    --json "$out/bench-gemm.json"
# The tile shapes on vulkan:0 (whatever --devices says), where it is a GPU, discrete or
# integrated (a CPU driver takes no tile).
vulkan0_type=$("$tandem" devices --json 2>/dev/null |
    awk '/"id": "vulkan:0"/ { found = 1 } found && /"type":/ { print $2; exit }')
if [ "$vulkan0_type" = '"gpu",' ] || [ "$vulkan0_type" = '"integrated",' ]; then
    step gemm-tiles 900 scripts/gemm-tiles.sh vulkan:0 1024 "$tiles_max"
else
    echo "no Vulkan GPU: gemm-tiles skipped" >"$out/gemm-tiles.txt"
fi
# The image kernels of each layer of bench train's fashion-cnn (conv32k3,pool2,
# conv64k3,pool2, batch 64) on every device, to tell which of them a device is slow at:
# im2col, col2im and pooling (bench kernels --image gives a convolution as many output
# channels as input ones, not the layer's, so the direct convolutions are left out).
# shellcheck disable=SC2016 # expanded by the inner shell, from its arguments
step cnn-layers 600 sh -c 'tandem=$1; shift
    for layer in "64x28x28x1 -k im2col" \
        "64x28x28x32 --window 2 --stride 2 -k max_pool2d,max_pool2d_grad" \
        "64x14x14x32 -k im2col,col2im" \
        "64x14x14x64 --window 2 --stride 2 -k max_pool2d,max_pool2d_grad"; do
        # shellcheck disable=SC2086 # the layer is a shape and its options
        "$tandem" bench kernels "$@" -r 5 -s 4M --image $layer || exit 1
    done' sh "$tandem" $(device_list --devices)
# Every way of the CNN's two convolutions (direct, lowered, implicit, Winograd), timed
# per layer on each device as --conv measured races them: the library logs the times.
step conv-ways 600 env TDM_LOG=info "$tandem" bench train -m fashion-cnn --conv measured \
    -n 3 -w 1 --data-dir "$fashion" $(device_list --devices)
step bench-allreduce 900 "$tandem" bench allreduce -a all $(device_list --devices) \
    --maxbytes "$allreduce_max" --json "$out/bench-allreduce.json"
step bench-train 1800 "$tandem" bench train $(device_list --devices) $train_steps \
    --json "$out/bench-train.json"
step train 900 "$tandem" train --epochs 3 --no-progress $(device_list --devices)
# The peer on the same card: PyTorch (its BLAS printed) training bench train's models
# on the same data and batches.
if python3 -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
    # shellcheck disable=SC2016 # expanded by the inner shell, from its arguments
    step torch-cuda 600 sh -c 'peer="python3 tools/peers/torch_train.py"
        $peer digits --device cuda &&
        $peer fashion --device cuda --data "$1" &&
        $peer fashion-cnn --device cuda --data "$1"' sh "$fashion"
else
    echo "no PyTorch with CUDA: torch-cuda skipped" >"$out/torch-cuda.txt"
fi

# The header and, of each plan, the row of the largest size measured.
largest_allreduce() {
    grep -E '^#   replica|^#  +size|^#  +\(B\)' "$1"
    awk '!/^#/ && NF { if ($1 + 0 > max) max = $1 + 0; row[NR] = $0; size[NR] = $1 + 0 }
         END { for (i = 1; i <= NR; i++) if (i in row && size[i] == max) print row[i] }' "$1"
}

# The summary: how each step ended, then the lines that matter of each.
section() {
    printf '\n## %s\n\n```\n' "$1"
    shift
    "$@"
    printf '```\n'
}
{
    echo "# tandem device report"
    echo
    echo '```'
    cat "$out/system.txt"
    echo '```'
    echo
    echo "| step | result | time |"
    echo "| --- | --- | --- |"
    printf '%s' "$status_lines"
    section "Devices" cat "$out/devices.txt"
    section "Conformance: verdicts and failures" \
        grep -E '(passed, .* failed|^FAIL|NOT SUPPORTED)' "$out/conformance.txt"
    section "Memory-bound kernels (GB/s; every kernel in bench-kernels.txt)" \
        grep -E '^[^ ]|^  kernel |^  (copy|axpy|sum|adam|relu|tanh|accumulate) ' \
        "$out/bench-kernels.txt"
    section "GEMM (GFLOP/s)" grep -v '^$' "$out/bench-gemm.txt"
    section "Vulkan GEMM by tile shape (GFLOP/s)" cat "$out/gemm-tiles.txt"
    section "The CNN's image kernels by layer (ms a launch)" \
        grep -E '^[^ ]|^  image|^  [a-z]' "$out/cnn-layers.txt"
    section "The CNN's convolutions, every way per layer (ms for 64 images)" \
        grep -E 'conv2d layer|skipped' "$out/conv-ways.txt"
    section "All-reduce: the largest size, each plan (every size in bench-allreduce.txt)" \
        largest_allreduce "$out/bench-allreduce.txt"
    section "Training throughput" grep -v '^$' "$out/bench-train.txt"
    section "A short training" cat "$out/train.txt"
    section "PyTorch on the card" grep -E 'examples/s|BLAS|skipped' "$out/torch-cuda.txt"
} >"$summary"
echo "report: $out (summary: $summary)"
