#!/bin/sh
# The one command to run on a machine with a GPU: what tandem sees there and how
# it does, in one folder with a one-page summary (SUMMARY.md) to send back.
#
#   devices.json, devices.txt         tandem devices
#   system.txt                        the machine: CPU, kernel, GPU tools' views
#   conformance.json, .txt            every kernel, gradient and collective
#   bench-kernels|gemm|allreduce|train.json, .txt
#   bench-gemm-trans.json, .txt       GEMM's NN, NT and TN cases, f32, beside OpenBLAS
#   bench-gemm-f16.json, .txt         and CLBlast; the same with f16 operands (up to
#                                     8192^3: Vulkan's matrix engine, its check logged)
#   torch-gemm.txt                    the same products through PyTorch (cuBLAS), f32
#                                     (TF32 off) and f16, where python3 has torch with CUDA
#   train-wide-4096.txt               the compute-bound MLP 784-4096-4096-10, batch
#                                     1024, f32 and --mixed-precision, per backend
#   gemm-tiles.txt                    Vulkan's GPU gemm under each tile shape (vulkan:0)
#   cnn-layers.txt                    the CNN's image kernels, per layer and device
#   conv-ways.txt                     each way of the CNN's convolutions timed per
#                                     layer and device (--conv measured)
#   bench-train-mixed.json, .txt      the same under --mixed-precision
#   train.txt                         a short training on the default devices
#   torch-cuda.txt                    PyTorch training the same models on the card,
#                                     where python3 has torch with CUDA
#   torch-amp.txt                     PyTorch on the card: the 4096 MLP in float32
#                                     and under AMP, fp16 and bf16
#   torch-gpt.txt                     PyTorch on the card: gpt-tiny (bench train -m
#                                     gpt-tiny's transformer), float32 and AMP
#
# usage: scripts/device-report.sh [--quick] [--devices LIST] [--only STEPS] [OUT_DIR]
#   --quick         smaller cases and sizes: minutes instead of most of an hour
#   --devices LIST  the devices to measure (tandem devices ids), default: every one
#   --only STEPS    only these steps, comma-separated (the names above, as
#                   bench-gemm-f16,train-wide-4096,torch-amp: a few minutes)
#   OUT_DIR         default: device-report-HOST-DATE
# FASHION_MNIST_DIR names Fashion-MNIST's IDX files where Debian's package is not
# installed (conv-ways skips the CNN without them). TANDEM names a tandem built
# elsewhere (a machine without Debian's packages); else it builds tandem first
# (scripts/setup.sh) where build/tandem is missing. A step that fails is recorded
# with its exit status and the report goes on. STEP_LIMIT (seconds) lowers every
# step's time limit, to fit a report into a short lease.
set -u
cd "$(dirname "$0")/.."
root=$(pwd)

quick=0 devices="" only="" out=""
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 ;;
    --devices) devices=$2; shift ;;
    --devices=*) devices=${1#--devices=} ;;
    --only) only=$2; shift ;;
    --only=*) only=${1#--only=} ;;
    -h | --help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "device-report.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) out=$1 ;;
    esac
    shift
done
[ -n "$out" ] || out="device-report-$(hostname)-$(date +%Y%m%d-%H%M)"
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)

tandem=${TANDEM:-$root/build/tandem}
[ -x "$tandem" ] || ./scripts/setup.sh || exit 1

# The sizes of a full report and of a quick one.
if [ $quick -eq 1 ]; then
    conformance_size=--no-large allreduce_max=4M gemm_max=512 kernel_bytes=8M tiles_max=2048
    train_steps="--steps 20 --warmup 3 --model digits" trans_min=128 trans_max=256
    f16_max=256 wide_data=digits
else
    conformance_size="" allreduce_max=256M gemm_max=2048 kernel_bytes=64M tiles_max=4096
    train_steps="" trans_min=1024 trans_max=4096 f16_max=8192 wide_data=fashion
fi
fashion=${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
device_list() { [ -n "$devices" ] && printf -- '%s %s' "$1" "$devices"; }

summary=$out/SUMMARY.md
status_lines=""

# step NAME SECONDS CMD...: runs CMD with stdout and stderr into NAME.txt, bounded in
# time, and records how it ended; nothing when --only leaves NAME out.
step() {
    name=$1 limit=$2
    [ "${STEP_LIMIT:-0}" -gt 0 ] && [ "$STEP_LIMIT" -lt "$limit" ] && limit=$STEP_LIMIT
    shift 2
    if [ -n "$only" ] && ! printf ',%s,' "$only" | grep -q ",$name,"; then
        return 0
    fi
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
# The transpose cases of the products a training step runs (NN forward, NT and TN
# for the gradients), with f32 and with f16 operands, beside OpenBLAS and CLBlast.
# The f16 run logs the matrix engine's start-up check (its results and its race).
for dtype in f32 f16; do
    name=bench-gemm-trans max=$trans_max
    [ $dtype = f16 ] && name=bench-gemm-f16 max=$f16_max
    # shellcheck disable=SC2046 # the device options are words on purpose
    step $name 180 env TDM_LOG=info "$tandem" bench gemm $(device_list --devices) \
        --trans NN,NT,TN --dtype $dtype --minsize "$trans_min" --maxsize "$max" -r 3 \
        --json "$out/$name.json"
done
# cuBLAS's figures for the same products, the ceiling a card's own library sets.
if python3 -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
    # shellcheck disable=SC2016 # expanded by the inner shell, from its arguments
    step torch-gemm 120 sh -c 'peer="python3 tools/peers/torch_gemm.py --trans NN,NT,TN -r 3"
        $peer --dtype f32 -b "$1" -e "$2" && $peer --dtype f16 -b "$1" -e "$3"' \
        sh "$trans_min" "$trans_max" "$f16_max"
else
    echo "no PyTorch with CUDA: torch-gemm skipped" >"$out/torch-gemm.txt"
fi
# The MLP whose step is its matrix products, 784-4096-4096-10 at batch 1024 (the
# quick report: on the digits), f32 and --mixed-precision, through each backend's
# first device or each device asked for: the second epoch's ex/s is the figure.
wide_devices=${devices:-opencl:0,vulkan:0}
if [ $wide_data = fashion ]; then
    wide_data="--data $fashion/train-images-idx3-ubyte.gz --labels $fashion/train-labels-idx1-ubyte.gz"
    wide_data="$wide_data --test-data $fashion/t10k-images-idx3-ubyte.gz"
    wide_data="$wide_data --test-labels $fashion/t10k-labels-idx1-ubyte.gz"
else
    wide_data=""
fi
# shellcheck disable=SC2016 # expanded by the inner shell, from its arguments
step train-wide-4096 180 sh -c 'tandem=$1 devices=$2 data=$3 rc=0
    for d in $(echo "$devices" | tr , " "); do
        for precision in "" --mixed-precision; do
            echo "== $d ${precision:-f32}"
            # shellcheck disable=SC2086 # the data options are words on purpose
            "$tandem" train --layers 4096,4096 --batch 1024 --epochs 2 --no-progress \
                --devices "$d" $precision $data || rc=1
        done
    done
    exit $rc' sh "$tandem" "$wide_devices" "$wide_data"
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
    --data-dir "$fashion" --json "$out/bench-train.json"
# shellcheck disable=SC2046,SC2086 # the options are words on purpose
step bench-train-mixed 1800 "$tandem" bench train $(device_list --devices) $train_steps \
    --data-dir "$fashion" --mixed-precision --json "$out/bench-train-mixed.json"
step train 900 "$tandem" train --epochs 3 --no-progress $(device_list --devices)
# The peer on the same card: PyTorch (its BLAS printed) training bench train's models
# on the same data and batches.
if python3 -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
    # shellcheck disable=SC2016 # expanded by the inner shell, from its arguments
    step torch-cuda 600 sh -c 'peer="python3 tools/peers/torch_train.py"
        $peer digits --device cuda &&
        $peer fashion --device cuda --data "$1" &&
        $peer fashion-cnn --device cuda --data "$1"' sh "$fashion"
    # Its automatic mixed precision beside tandem's --mixed-precision, on the 4096 MLP.
    # shellcheck disable=SC2016 # expanded by the inner shell, from its arguments
    step torch-amp 180 sh -c 'peer="python3 tools/peers/torch_train.py wide-4096 --device cuda"
        $peer --data "$1" && $peer --data "$1" --amp fp16 && $peer --data "$1" --amp bf16' \
        sh "$fashion"
    # The transformer of bench train -m gpt-tiny, in float32 and under AMP.
    # shellcheck disable=SC2016 # expanded by the inner shell
    step torch-gpt 300 sh -c 'peer="python3 tools/peers/torch_gpt.py --device cuda --steps 53"
        $peer && $peer --amp fp16 && $peer --amp bf16'
else
    echo "no PyTorch with CUDA: torch-cuda skipped" >"$out/torch-cuda.txt"
    echo "no PyTorch with CUDA: torch-amp skipped" >"$out/torch-amp.txt"
    echo "no PyTorch with CUDA: torch-gpt skipped" >"$out/torch-gpt.txt"
fi

# The header and, of each plan, the row of the largest size measured.
largest_allreduce() {
    grep -E '^#   replica|^#  +size|^#  +\(B\)' "$1"
    awk '!/^#/ && NF { if ($1 + 0 > max) max = $1 + 0; row[NR] = $0; size[NR] = $1 + 0 }
         END { for (i = 1; i <= NR; i++) if (i in row && size[i] == max) print row[i] }' "$1"
}

# The summary: how each step ended, then the lines that matter of each (a section
# whose file --only left out is left out too).
section() {
    for file; do :; done
    [ -e "$file" ] || return 0
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
    section "GEMM by transpose case, f32 operands (GFLOP/s)" grep -v '^$' \
        "$out/bench-gemm-trans.txt"
    section "GEMM by transpose case, f16 operands summed in f32 (GFLOP/s)" grep -v '^$' \
        "$out/bench-gemm-f16.txt"
    section "cuBLAS through PyTorch, the same products (GFLOP/s)" cat "$out/torch-gemm.txt"
    section "MLP 784-4096-4096-10, batch 1024: f32 and mixed precision" \
        grep -E '^== |^  replica|^epoch|^tandem' "$out/train-wide-4096.txt"
    section "Vulkan GEMM by tile shape (GFLOP/s)" cat "$out/gemm-tiles.txt"
    section "The CNN's image kernels by layer (ms a launch)" \
        grep -E '^[^ ]|^  image|^  [a-z]' "$out/cnn-layers.txt"
    section "The CNN's convolutions, every way per layer (ms for 64 images)" \
        grep -E 'conv2d layer|skipped' "$out/conv-ways.txt"
    section "All-reduce: the largest size, each plan (every size in bench-allreduce.txt)" \
        largest_allreduce "$out/bench-allreduce.txt"
    section "Training throughput" grep -v '^$' "$out/bench-train.txt"
    section "Training throughput, --mixed-precision" grep -v '^$' "$out/bench-train-mixed.txt"
    section "A short training" cat "$out/train.txt"
    section "PyTorch on the card" grep -E 'examples/s|BLAS|skipped' "$out/torch-cuda.txt"
    section "PyTorch's AMP on the card, the 4096 MLP" grep -E 'examples/s|skipped' \
        "$out/torch-amp.txt"
    section "PyTorch on the card, gpt-tiny (tokens/s)" grep -E 'tokens/s|skipped' \
        "$out/torch-gpt.txt"
} >"$summary"
echo "report: $out (summary: $summary)"
