"""Shared fixtures: strategies over the test machine's devices (PoCL's two pthread
devices, POCL_DEVICES="pthread pthread", and lavapipe) and the bundled digits."""
import os
import shutil
import subprocess
import sys
from typing import Iterator, List, Sequence, Tuple

import numpy as np
import pytest

import tandem
from tandem import _paths


def device_ids() -> List[str]:
    return [d.id for d in tandem.devices()]


def skip_without(ids: Sequence[str]) -> None:
    """Skips the test where any of these devices is missing (one PoCL device, no
    lavapipe)."""
    missing = [i for i in ids if i not in device_ids()]
    if missing:
        pytest.skip(f"no device {', '.join(missing)} here")


def strategy_over(ids: Tuple[str, ...], split: int = 1) -> tandem.MirroredStrategy:
    skip_without(ids)
    return tandem.MirroredStrategy(list(ids), split=split)


@pytest.fixture(scope="session")
def pocl_pair() -> Iterator[tandem.MirroredStrategy]:
    strategy = strategy_over(("opencl:0", "opencl:1"))
    yield strategy
    strategy.close()


# Two replicas on: two PoCL devices, PoCL with lavapipe (mixed APIs), and lavapipe
# split into two logical devices.
PAIRS = {"pocl2": (("opencl:0", "opencl:1"), 1), "pocl+lavapipe": (("opencl:0", "vulkan:0"), 1),
         "lavapipe2": (("vulkan:0",), 2)}


@pytest.fixture(scope="module", params=list(PAIRS))
def pair(request) -> Iterator[tandem.MirroredStrategy]:
    strategy = strategy_over(*PAIRS[request.param])
    yield strategy
    strategy.close()


def per_replica(shape: Tuple[int, ...], seed: int) -> List[np.ndarray]:
    """Two replicas' float32 values of the shape, from the seed."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) * 100 for _ in range(2)]


@pytest.fixture(scope="session")
def digits() -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """80 % to train on, 20 % to test, pixels scaled to [0, 1]."""
    x, y = tandem.load_digits()
    order = np.random.default_rng(1).permutation(len(y))
    x = np.ascontiguousarray(x[order] / np.float32(16))
    y = np.ascontiguousarray(y[order])
    cut = len(y) * 4 // 5
    return x[:cut], y[:cut], x[cut:], y[cut:]


def mpirun(processes: int, script, *args: str, timeout: float = 120
           ) -> "subprocess.CompletedProcess[str]":
    """Runs the script with this Python in a job of that many processes, bounded in
    time; skips where there is no mpirun or no libtandem_mpi. The job gets the
    environment Python started with: a strategy of a job of one made in this process
    has set Open MPI's singleton variables in the real one, which would make mpirun's
    processes join that job."""
    launcher = shutil.which("mpirun")
    library = _paths.library_dir()
    if launcher is None or library is None or not (library / "libtandem_mpi.so.0").exists():
        pytest.skip("no mpirun, or no libtandem_mpi beside libtandem")
    return subprocess.run([launcher, "--allow-run-as-root", "--oversubscribe", "-n",
                           str(processes), sys.executable, str(script), *args],
                          capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ))
