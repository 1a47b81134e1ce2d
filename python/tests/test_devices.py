"""tandem.devices() and the version: what the library says, nothing made up."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tandem


def test_version_is_the_librarys_and_the_headers():
    header = (Path(__file__).resolve().parents[2] / "include" / "tandem" / "tandem.h").read_text()
    parts = [re.search(rf"#define TDM_VERSION_{p} (\d+)", header).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    assert tandem.__version__ == ".".join(parts)


def test_unknown_compute_units_are_none_not_zero():
    found = tandem.devices()
    assert found
    for device in found:
        assert device.compute_units is None or device.compute_units > 0, device


def test_no_driver_installed_imports_and_says_so(tmp_path):
    """With no OpenCL or Vulkan driver to find, the package imports, lists the
    reference device alone, and refuses a GPU id naming the ids there are."""
    script = tmp_path / "bare.py"
    script.write_text(
        "import tandem\n"
        "print([d.id for d in tandem.devices()])\n"
        "try:\n"
        "    tandem.MirroredStrategy(['opencl:0'])\n"
        "except ValueError as error:\n"
        "    print('refused:', error)\n")
    nowhere = str(tmp_path / "none.json")  # the loaders look here, and find nothing
    env = dict(os.environ, OCL_ICD_VENDORS=str(tmp_path), OCL_ICD_FILENAMES="",
               VK_ICD_FILENAMES=nowhere, VK_DRIVER_FILES=nowhere)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "['reference:0']", done.stdout
    assert lines[1].startswith("refused:") and "no device 'opencl:0'" in lines[1], done.stdout
    assert "reference:0" in lines[1], done.stdout


def test_strategies_and_schedules_are_the_librarys_kinds():
    """Each strategy class names a kind of tandem/strategy_kinds.def, and compile's
    lr_decay takes the library's schedules: the package spells none of its own."""
    kinds = tandem._tandem.kind_names("strategy")
    assert kinds[:3] == ["default", "one-device", "mirrored"]
    classes = [tandem.MirroredStrategy, tandem.MultiWorkerMirroredStrategy,
               tandem.OneDeviceStrategy, tandem.ParameterServerStrategy]
    assert sorted(c._kind for c in classes) == sorted(kinds[1:])
    assert tandem._tandem.kind_names("lr") == ["constant", "exponential", "step", "cosine"]
    with pytest.raises(ValueError, match="lr_decay: one of none, exponential, step, cosine"):
        tandem.Sequential().compile(lr_decay="linear")
    with pytest.raises(tandem.NotFoundError, match="no strategy 'mirorred'"):
        tandem._tandem.strategy("mirorred", None, None, 0, 1)
