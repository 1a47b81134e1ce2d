#!/bin/sh
# Installs, builds and runs the peers that tandem's benchmarks are compared with
# (docs/PERFORMANCE.md): Open MPI's MPI_Allreduce between two processes, and Debian's
# PyTorch (on OpenBLAS) and TensorFlow's CPU build (from PyPI, into .peer-tools/;
# tools/peers/tf_train.py, a tf.function step) training the digits MLP, the wide
# Fashion-MNIST MLP and the Fashion-MNIST CNN on one process, in turns with tandem's
# `bench train` of the same models (and the transformer gpt-tiny, tools/peers/torch_gpt.py, beside `bench train -m
# gpt-tiny`), and the two MLPs with DistributedDataParallel (gloo) over two processes. Run it after
# ./scripts/setup.sh, on a machine as quiet as can be had; a benchmark, not a test.
set -eu
cd "$(dirname "$0")/.."

./scripts/install-missing.sh python3-torch libopenblas0-pthread openmpi-bin libopenmpi-dev \
  dataset-fashion-mnist python3-venv

# TensorFlow, the system whose distribution strategies tandem carries, in a venv of its
# own (its wheels pin their own numpy and protobuf). Without PyPI its turns are left out.
peer_tools=.peer-tools
tf_version=2.21.0
if ! $peer_tools/bin/python -c "import tensorflow" 2>/dev/null; then
  /usr/bin/python3 -m venv $peer_tools &&
    $peer_tools/bin/pip install -q --timeout 30 --retries 1 "tensorflow-cpu==$tf_version" ||
    echo "bench-peers.sh: tensorflow-cpu could not be installed from PyPI; its turns are" \
         "left out" >&2
fi

# Open MPI may have come after build/ was configured: let CMake look for it again.
cmake -S . -B build -U 'MPI_*' -U 'MPIEXEC_*' >/dev/null
cmake --build build -j"$(nproc)" --target mpi_allreduce tandem_cli

run() {
  title=$1
  shift
  printf '\n== %s\n$ %s\n' "$title" "$*"
  "$@"
}

# Figures only compare within a session: say when, where and how busy it was.
printf '== Machine\n%s\n%s, %s cores; load average %s\n%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)" "$(nproc)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)" "$(mpirun --version | head -n1)"

mpirun="mpirun --allow-run-as-root --oversubscribe -np 2"
sizes="-b 1M -e 256M -f 2"
run "Open MPI MPI_Allreduce, 2 processes, buffers reused" $mpirun build/mpi_allreduce $sizes
run "Open MPI MPI_Allreduce, 2 processes, buffers allocated per size" \
  $mpirun build/mpi_allreduce $sizes --fresh
# Open MPI allocates scratch of the message's size on every call, and glibc serves
# blocks above 32 MiB with fresh mmaps whose pages fault on first touch: the cliff at
# 64 MiB. Kept off mmap, the freed scratch is reused, as kept buffers would be.
run "Open MPI MPI_Allreduce, 2 processes, buffers reused, glibc malloc without mmap" \
  env GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967295 \
  $mpirun -x GLIBC_TUNABLES build/mpi_allreduce $sizes

# tandem and PyTorch take turns, twice over, so that both see the same machine: a
# ratio means something only within one run. tandem trains on PoCL's devices (one
# alone, then both mirrored); PyTorch's BLAS is printed with each of its figures.
torch="/usr/bin/python3 tools/peers/torch_train.py"
tandem_train() {
  run "tandem bench train -m $1, PoCL: one device, then two replicas" \
    env POCL_DEVICES="pthread pthread" build/tandem bench train -d opencl:0,opencl:1 -m "$1"
}
# The OpenBLAS kernels tandem runs (a DYNAMIC_ARCH OpenBLAS takes a CPU newer than
# itself for an old one, and tandem then names the kernels: openblas_core.h).
# PyTorch runs with its OpenBLAS's own choice, and again with those kernels.
kernels=$(POCL_DEVICES=pthread build/tandem devices |
  sed -n 's/.*OpenBLAS .*(its \([A-Za-z]*\) kernels.*/\1/p')
torch_twice() {
  title=$1
  shift
  run "PyTorch, $title, 1 process" $torch "$@"
  [ -z "$kernels" ] ||
    run "PyTorch, $title, 1 process, OPENBLAS_CORETYPE=$kernels" \
      env OPENBLAS_CORETYPE="$kernels" $torch "$@"
  ! $peer_tools/bin/python -c "import tensorflow" 2>/dev/null ||
    run "TensorFlow, $title, 1 process, $(nproc) intra-op threads" \
      $peer_tools/bin/python tools/peers/tf_train.py "$@"
}
for round in 1 2; do
  printf '\n==== Round %s\n' "$round"
  torch_twice "digits MLP 64-128-128-10" digits
  tandem_train digits
  torch_twice "Fashion-MNIST MLP 784-1024-1024-10" fashion
  tandem_train wide
  torch_twice "Fashion-MNIST CNN conv32k3,pool2,conv64k3,pool2,128" fashion-cnn
  tandem_train fashion-cnn
  run "PyTorch, gpt-tiny (the transformer of tandem train --text), 1 process, 23 steps" \
    /usr/bin/python3 tools/peers/torch_gpt.py --steps 23 --threads "$(nproc)"
  tandem_train gpt-tiny
done
run "PyTorch, digits MLP, DistributedDataParallel (gloo), 2 processes" $torch digits --procs 2
run "PyTorch, Fashion-MNIST MLP, DistributedDataParallel (gloo), 2 processes" \
  $torch fashion --procs 2
