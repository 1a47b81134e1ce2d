#!/bin/sh
# A regression, a binary classifier and a two-branch graph (docs/MODELS.md, "Against
# PyTorch"): tandem
# train on one device, mirrored over PoCL's two and over PoCL and lavapipe, and
# PyTorch training the same network from the same initial weights on the same batches
# (tools/peers/torch_train.py), each scored on the same held-out split. Installs what
# it needs and builds; a minute or two. A comparison, not a test.
# Usage: scripts/tasks-vs-pytorch.sh
set -eu
cd "$(dirname "$0")/.."
./scripts/install-missing.sh python3-torch libopenblas0-pthread
./scripts/setup.sh >/dev/null
export POCL_DEVICES="pthread pthread" POCL_CACHE_DIR="$PWD/build/pocl-cache"
lvp=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -f "$lvp" ] && export VK_ICD_FILENAMES="$lvp"

printf '== Machine\n%s\n%s, %s cores\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)" "$(nproc)"
diabetes="--data data/diabetes.csv.gz --header --label-column progression --loss mse \
  --layers 32 --epochs 60 --lr 0.1"
cancer="--data data/breast_cancer.csv.gz --skip-rows 1 --loss binary_crossentropy \
  --layers 32 --epochs 20"
graph="--model-file examples/models/digits_two_branch.txt --epochs 10"
for task in diabetes cancer graph; do
  eval "options=\$$task"
  for devices in reference:0 opencl:0,opencl:1 opencl:0,vulkan:0; do
    printf '\n== tandem %s on %s\n' "$task" "$devices"
    # shellcheck disable=SC2086 # the options are words
    build/tandem train --devices "$devices" --deterministic --no-progress $options |
      sed -n 's/^done /done /p'
  done
  printf '\n== PyTorch %s, the same network, batches and initial weights\n' "$task"
  peer=$task
  [ "$task" = graph ] && peer=digits-graph
  /usr/bin/python3 tools/peers/torch_train.py "$peer" | head -n 1
done
