"""The examples in examples/python run as written: the mirrored all-reduce on the
default devices and on a PoCL + lavapipe pair, the parameter-server job under mpirun,
the regression and the binary classifier of the bundled data, the two-branch graph
of the digits, and the
Fashion-MNIST CNN (on a slice of the data) where Debian's
dataset-fashion-mnist is installed."""
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import mpirun, skip_without

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def run(name, *args):
    return subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("devices", [[], ["opencl:0", "vulkan:0"]], ids=["default", "mixed"])
def test_mirrored_all_reduce_example(devices):
    skip_without(devices)
    done = run("mirrored_all_reduce.py", *devices)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "match numpy: yes" in done.stdout


def test_parameter_server_example(tmp_path):
    done = mpirun(3, EXAMPLES / "parameter_server_digits.py", str(tmp_path / "d.safetensors"),
                  timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 workers, 1 server: test loss" in done.stdout
    assert (tmp_path / "d.safetensors").stat().st_size > 0


def test_fashion_mnist_cnn_example(tmp_path):
    if not Path("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz").exists():
        pytest.skip("no dataset-fashion-mnist here")
    skip_without(["opencl:0", "opencl:1"])
    done = run("fashion_mnist_cnn.py", "--devices", "opencl:0,opencl:1", "--epochs", "1",
               "--limit", "2000", "--save", str(tmp_path / "f.safetensors"))
    assert done.returncode == 0, done.stdout + done.stderr
    accuracy = float(done.stdout.split("test accuracy ")[1].split("%")[0])
    assert accuracy > 60, done.stdout
    assert (tmp_path / "f.safetensors").stat().st_size > 0


def test_regression_example(tmp_path):
    done = run("regression_diabetes.py", str(tmp_path / "d.safetensors"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test: RMSE" in done.stdout and "R^2" in done.stdout
    assert (tmp_path / "d.safetensors").stat().st_size > 0


def test_two_branch_example(tmp_path):
    done = run("two_branch_digits.py", str(tmp_path / "g.safetensors"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "l2 = concatenate(l0, l1)" in done.stdout and "test: loss" in done.stdout
    assert (tmp_path / "g.safetensors").stat().st_size > 0


def test_binary_example(tmp_path):
    done = run("binary_breast_cancer.py", str(tmp_path / "b.safetensors"))
    assert done.returncode == 0, done.stdout + done.stderr
    accuracy = float(done.stdout.split("accuracy ")[1].split("%")[0])
    assert accuracy > 90, done.stdout
    probabilities = done.stdout.split("first probabilities: [")[1].split("]")[0].split()
    assert all(0.0 <= float(p) <= 1.0 for p in probabilities), done.stdout
