"""docs/PYTHON.md's whole examples run as written: the first model, and the jobs whose
first line names their mpirun command. (Its other blocks are fragments of these.)"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import mpirun

PAGE = Path(__file__).resolve().parents[2] / "docs" / "PYTHON.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(), re.M | re.S)
JOBS = [b for b in BLOCKS if b.startswith("# mpirun ")]


def test_the_first_model_runs_as_written(tmp_path):
    first = BLOCKS[0]
    assert "tandem.Sequential" in first and "model.fit" in first
    (tmp_path / "first.py").write_text(first)
    done = subprocess.run([sys.executable, "first.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env=dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    loss, accuracy = (float(v) for v in done.stdout.split()[-2:])
    assert accuracy > 0.9 and loss < 0.5, done.stdout
    assert (tmp_path / "digits.safetensors").stat().st_size > 0


@pytest.mark.parametrize("job", JOBS, ids=lambda j: j.splitlines()[0].split(" -n ")[1])
def test_each_job_runs_as_written(tmp_path, job):
    processes = int(re.search(r" -n (\d+) ", job).group(1))
    (tmp_path / "job.py").write_text(job)
    cwd = os.getcwd()
    os.chdir(tmp_path)  # the job writes its files where it runs
    try:
        done = mpirun(processes, tmp_path / "job.py")
    finally:
        os.chdir(cwd)
    assert done.returncode == 0, done.stdout + done.stderr
