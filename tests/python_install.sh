#!/bin/sh
# The install a pip user gets (docs/PYTHON.md, "Install"): from a copy of the checkout
# with no build in it, `pip wheel ./python` in a virtual environment that sees no
# system packages builds libtandem through CMake and makes one wheel that carries it;
# that wheel then installs into a fresh environment of every CPython from 3.9 found
# here (the given one and pyenv's), which, run away from any checkout, finds its
# devices, trains, and runs the tandem program it carries. setuptools, wheel and
# numpy come from PyPI, as they do for the user.
# usage: python_install.sh SOURCE_DIR PYTHON WORK_DIR
set -eu
source=$1 python=$2 work=$3
rm -rf "$work"
"$(dirname "$0")/copy_checkout.sh" "$source" "$work/checkout"

"$python" -m venv "$work/builder"
"$work/builder/bin/pip" wheel -q --timeout 30 --retries 1 --no-deps -w "$work/wheels" \
  "$work/checkout/python"
wheel=$(ls "$work"/wheels/tandem-*-cp39-abi3-*.whl)
# What the wheel carries: the library and its program.
"$python" -m zipfile -l "$wheel" > "$work/wheel.txt"
grep -q "tandem/_lib/lib/libtandem.so.0" "$work/wheel.txt"
grep -q "tandem/_lib/bin/tandem" "$work/wheel.txt"
rm -rf "$work/checkout"

pythons=$python
for candidate in "$HOME"/.pyenv/versions/3.*/bin/python3; do
  [ -x "$candidate" ] || continue
  "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 9))' && pythons="$pythons $candidate"
done
cd "$work"
n=0
for interpreter in $pythons; do
  n=$((n + 1))
  env="$work/env$n"
  "$interpreter" -m venv "$env"
  "$env/bin/pip" install -q --timeout 30 --retries 1 "$wheel"
  "$env/bin/python" - "$work" <<'PY'
import os, subprocess, sys
import numpy as np
import tandem
from tandem import _paths
site = os.path.dirname(tandem.__file__)
assert str(_paths.library_dir()).startswith(site), _paths.library_dir()
assert any(d.backend == "opencl" for d in tandem.devices()), tandem.devices()
rng = np.random.default_rng(0)
x = rng.standard_normal((256, 4)).astype(np.float32)
y = (x[:, 0] + x[:, 1] > 0).astype(np.int32)
model = tandem.Sequential([tandem.layers.Dense(16, activation="relu"),
                           tandem.layers.Dense(2, activation="softmax")], input_shape=(4,))
model.compile(optimizer="adam", learning_rate=0.01)
history = model.fit(x, y, 32, 20, verbose=0)
assert history.history["accuracy"][-1] > 0.9, history.history
out = subprocess.run([sys.executable, "-m", "tandem", "--version"], capture_output=True,
                     text=True, check=True).stdout
assert out.startswith("tandem "), out
print(sys.version.split()[0], "ok:", out.strip(), "accuracy", history.history["accuracy"][-1])
PY
done
