#!/bin/sh
# The small CNN on Fashion-MNIST (docs/PERFORMANCE.md, "A CNN on Fashion-MNIST"):
# tandem train over two PoCL devices (in f32, in mixed precision and with the gradients
# all-reduced in f16) and over PoCL and
# lavapipe, and PyTorch training the same network from the same initial weights on the
# same batches, each for the same epochs, with the test accuracy on the official test
# split. Installs what it needs, builds, then runs for a while (about 25 minutes a
# tandem run on two cores); a benchmark, not a test.
# Usage: scripts/fashion-cnn-accuracy.sh [EPOCHS] [RUNS] [LR_DECAY]
#   EPOCHS    default 5
#   RUNS      comma-separated, of pocl2, torch, pair, pocl2-f16, pocl2-f16ar,
#             pocl2-f16act (default: the first four)
#   LR_DECAY  none (default) or cosine, for every run (--lr-decay)
set -eu
cd "$(dirname "$0")/.."
epochs=${1:-5}
runs=,${2:-pocl2,torch,pair,pocl2-f16},
decay=${3:-none}

./scripts/install-missing.sh python3-torch libopenblas0-pthread dataset-fashion-mnist
./scripts/setup.sh >/dev/null

data=/usr/share/datasets/fashion-mnist
layers=conv32k3,pool2,conv64k3,pool2,128
export POCL_DEVICES="pthread pthread" POCL_CACHE_DIR="$PWD/build/pocl-cache"
lvp=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -f "$lvp" ] && export VK_ICD_FILENAMES="$lvp"

run() { # NAME TITLE COMMAND...: runs the command when RUNS names it
  name=$1 title=$2
  shift 2
  case $runs in *,"$name",*) ;; *) return 0 ;; esac
  printf '\n== %s\n$ %s\n' "$title" "$*"
  "$@"
}

printf '== Machine\n%s\n%s, %s cores\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)" "$(nproc)"
train() {
  build/tandem train --data "$data/train-images-idx3-ubyte.gz" \
    --labels "$data/train-labels-idx1-ubyte.gz" --test-data "$data/t10k-images-idx3-ubyte.gz" \
    --test-labels "$data/t10k-labels-idx1-ubyte.gz" --layers "$layers" --epochs "$epochs" \
    --lr-decay "$decay" --no-progress "$@"
}
run pocl2 "tandem, PoCL x2" train --devices opencl:0,opencl:1
run torch "PyTorch, the same network, 1 process" \
  /usr/bin/python3 tools/peers/torch_train.py fashion-cnn --epochs "$epochs" --warmup-steps 0 \
  --lr-decay "$decay"
# even halves of each batch: --balance would make the numbers depend on timing
run pair "tandem, PoCL + lavapipe" train --devices opencl:0,vulkan:0
run pocl2-f16 "tandem, PoCL x2, mixed precision" \
  train --devices opencl:0,opencl:1 --mixed-precision
run pocl2-f16ar "tandem, PoCL x2, gradients all-reduced in f16" \
  train --devices opencl:0,opencl:1 --f16-all-reduce
run pocl2-f16act "tandem, PoCL x2, f16 activations" \
  train --devices opencl:0,opencl:1 --f16-activations
