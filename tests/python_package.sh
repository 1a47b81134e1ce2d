#!/bin/sh
# Builds and installs the Python package (python/) into a virtual environment in the
# build tree, as docs/PYTHON.md tells a user to, with warnings as errors, then runs
# its pytest tests (python/tests) against this build's libtandem, on the suite's
# devices and then on one PoCL device.
# usage: python_package.sh BUILD_DIR SOURCE_DIR PYTHON [CHECK_PYTHON]
# CHECK_PYTHON: the python of .check-tools (ONNX, onnxruntime, TensorBoard), which the
# tests of exported models and event files read them with; without it they skip.
# The environment sees the system's packages (Debian's python3-numpy and
# python3-pytest, which scripts/setup.sh installs): nothing comes from PyPI.
set -eu
build=$1 source=$2 python=$3
[ -n "${4:-}" ] && export TANDEM_CHECK_PYTHON="$4"
venv="$build/python-venv"
[ -x "$venv/bin/python" ] || "$python" -m venv --system-site-packages "$venv"
TANDEM_BUILD_DIR="$build" CFLAGS="-Werror" \
  "$venv/bin/pip" install -q --no-build-isolation --no-deps --force-reinstall "$source/python"
export TANDEM_DIGITS="$source/data/digits.csv.gz"
# From outside the source tree, so that the installed package is the one imported.
cd "$build"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$source/python/tests"
# On a machine of one device, what needs two skips rather than fails.
POCL_DEVICES=pthread "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$source/python/tests"
