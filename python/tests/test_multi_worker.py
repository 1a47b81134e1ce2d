"""MultiWorkerMirroredStrategy: two Python processes under mpirun, each on one PoCL
device, all-reduce, all-gather and broadcast across the job, and train the model one
process trains on both devices, bit for bit; outside mpirun a job of one."""
import json
import subprocess
import sys

import numpy as np
import pytest

import tandem

from conftest import mpirun, skip_without

WORKER = """
import json, sys
import numpy as np
import tandem
strategy = tandem.MultiWorkerMirroredStrategy(["opencl:0"])
rank = strategy.worker_index
mine = np.arange(6, dtype=np.float32) * (rank + 1) + np.float32(0.25)
report = {
    "rank": rank, "workers": strategy.num_workers, "replicas": strategy.num_replicas_in_sync,
    "chief": strategy.is_chief,
    "sum": strategy.all_reduce([mine])[0].tolist(),
    "max": strategy.all_reduce([mine], op="max")[0].tolist(),
    "gather": strategy.all_gather([mine])[0].tolist(),
    "broadcast": strategy.broadcast(np.full(3, rank + 5, np.float32))[0].tolist(),
}
# A file per rank: mpirun forwards both ranks' stdout into one stream, where lines can meet.
with open(f"{sys.argv[1]}/rank{rank}.json", "w") as out:
    json.dump(report, out)
"""


FIT = """
import sys
import numpy as np
import tandem
x, y = tandem.load_digits()
x = np.ascontiguousarray(x / np.float32(16))
if sys.argv[1] == "job":
    strategy = tandem.MultiWorkerMirroredStrategy(["opencl:0"])
else:
    strategy = tandem.MirroredStrategy(["opencl:0", "opencl:1"])
model = tandem.Sequential("32", input_shape=(64,), classes=10, seed=4)
model.compile(lr=5e-3)
model.fit(x, y, epochs=2, batch_size=64, strategy=strategy, verbose=2)
if strategy.devices == ["opencl:0", "opencl:1"] or strategy.is_chief:
    model.save(sys.argv[2])
"""


def test_two_processes_fit_as_one_on_two_devices(tmp_path):
    skip_without(["opencl:0", "opencl:1"])
    script = tmp_path / "fit.py"
    script.write_text(FIT)
    job = mpirun(2, script, "job", str(tmp_path / "job.safetensors"))
    assert job.returncode == 0, job.stdout + job.stderr
    assert job.stdout.count("epoch 2/2") == 1, job.stdout  # the chief alone reports
    one = subprocess.run([sys.executable, str(script), "one", str(tmp_path / "one.safetensors")],
                         capture_output=True, text=True, timeout=120)
    assert one.returncode == 0, one.stdout + one.stderr
    assert (tmp_path / "job.safetensors").read_bytes() == \
        (tmp_path / "one.safetensors").read_bytes()


def test_two_processes_under_mpirun(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    done = mpirun(2, script, str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    reports = [json.loads((tmp_path / f"rank{rank}.json").read_text()) for rank in (0, 1)]
    assert [r["rank"] for r in reports] == [0, 1], done.stdout
    first = np.arange(6, dtype=np.float32) + np.float32(0.25)
    second = np.arange(6, dtype=np.float32) * 2 + np.float32(0.25)
    for report in reports:
        assert report["workers"] == 2 and report["replicas"] == 2
        assert report["chief"] == (report["rank"] == 0)
        assert report["sum"] == (first + second).tolist()
        assert report["max"] == np.maximum(first, second).tolist()
        assert report["gather"] == np.concatenate([first, second]).tolist()
        assert report["broadcast"] == [5.0, 5.0, 5.0]  # the chief's


def test_outside_mpirun_a_job_of_one():
    if "opencl:0" not in [d.id for d in tandem.devices()]:
        pytest.skip("no opencl:0 here")
    with tandem.MultiWorkerMirroredStrategy(["opencl:0"]) as strategy:
        assert (strategy.num_workers, strategy.worker_index, strategy.is_chief) == (1, 0, True)
        value = np.arange(4, dtype=np.float32)
        assert strategy.all_reduce([value])[0].tobytes() == value.tobytes()
