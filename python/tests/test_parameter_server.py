"""ParameterServerStrategy: a job of one server and two workers under mpirun trains
digits, the chief's saved model predicting well; in one process it trains as mirrored
training does, bit for bit. OneDeviceStrategy: one replica on the device named."""
import json

import numpy as np
import pytest

import tandem

from conftest import device_ids, mpirun

JOB = """
import json, sys
import numpy as np
import tandem
x, y = tandem.load_digits()
x = np.ascontiguousarray(x / np.float32(16))
strategy = tandem.ParameterServerStrategy(["opencl:0"], ps_processes=1)
model = tandem.Sequential([tandem.layers.Dense(64, activation="relu")], input_shape=(64,), classes=10, seed=4)
model.compile(lr=5e-3)
history = model.fit(x, y, epochs=2, batch_size=32, strategy=strategy, verbose=0)
if strategy.is_chief:
    model.save(sys.argv[1] + "/chief.safetensors")
report = {"server": strategy.is_parameter_server, "chief": strategy.is_chief,
          "servers": strategy.num_parameter_servers, "workers": strategy.num_workers,
          "epochs": len(history.history["loss"])}
with open(f"{sys.argv[1]}/rank{strategy.worker_index}.json", "w") as out:
    json.dump(report, out)
"""


def test_one_server_two_workers_under_mpirun(tmp_path, digits):
    script = tmp_path / "job.py"
    script.write_text(JOB)
    done = mpirun(3, script, str(tmp_path), timeout=90)
    assert done.returncode == 0, done.stdout + done.stderr
    reports = [json.loads((tmp_path / f"rank{rank}.json").read_text()) for rank in (0, 1, 2)]
    assert [(r["server"], r["chief"]) for r in reports] == [(False, True), (False, False),
                                                           (True, False)]
    assert all(r["servers"] == 1 and r["workers"] == 2 for r in reports)
    assert [r["epochs"] for r in reports] == [2, 2, 0]  # a server serves, trains nothing
    model = tandem.load_model(tmp_path / "chief.safetensors",
                              strategy=tandem.OneDeviceStrategy("opencl:0"))
    _, _, x_test, y_test = digits
    accuracy = float(np.mean(model.predict(x_test).argmax(axis=1) == y_test))
    assert accuracy > 0.85


RESUMED = """
import json, sys
import numpy as np
import tandem
x, y = tandem.load_digits()
strategy = tandem.ParameterServerStrategy(["opencl:0"], ps_processes=1)
model = tandem.Sequential("16", input_shape=(64,), classes=10, seed=4)
model.compile(lr=5e-3)
history = model.fit(x / np.float32(16), y, epochs=int(sys.argv[2]), batch_size=64,
                    strategy=strategy, verbose=0, checkpoint_dir=sys.argv[1] + "/ckpt",
                    resume=True)
if strategy.is_chief:
    with open(sys.argv[1] + "/epochs.json", "w") as out:
        json.dump(history.epoch, out)
"""


def test_a_job_resumes_the_epochs_left(tmp_path):
    # The job's global step counts both workers' steps, so it tells no epoch: the
    # checkpoint records the epochs done.
    script = tmp_path / "resumed.py"
    script.write_text(RESUMED)
    for epochs, ran in (("2", [0, 1]), ("3", [2])):
        done = mpirun(3, script, str(tmp_path), epochs, timeout=90)
        assert done.returncode == 0, done.stdout + done.stderr
        assert json.loads((tmp_path / "epochs.json").read_text()) == ran


def test_in_one_process_as_mirrored(tmp_path, digits):
    if not {"opencl:0", "opencl:1"} <= set(device_ids()):
        pytest.skip("needs opencl:0 and opencl:1")
    x, y, _, _ = digits
    paths = []
    for name, strategy in (
            ("ps", tandem.ParameterServerStrategy(["opencl:0", "opencl:1"],
                                                  ps_devices=["opencl:1"])),
            ("mirrored", tandem.MirroredStrategy(["opencl:0", "opencl:1"]))):
        if name == "ps":
            assert strategy.parameter_devices == ["opencl:1"]
            assert strategy.num_parameter_servers == 0  # no server processes
        model = tandem.Sequential("32", input_shape=(64,), classes=10, seed=3)
        model.compile(lr=5e-3)
        model.fit(x, y, epochs=2, batch_size=64, strategy=strategy, verbose=0)
        paths.append(tmp_path / f"{name}.safetensors")
        model.save(paths[-1])
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_parameter_server_arguments():
    with pytest.raises(ValueError, match="exclude each other"):
        tandem.ParameterServerStrategy(["opencl:0"], ps_devices=["opencl:0"], ps_processes=1)


def test_one_device():
    if "opencl:0" not in device_ids():
        pytest.skip("no opencl:0 here")
    with tandem.OneDeviceStrategy("opencl:0") as strategy:
        assert strategy.devices == ["opencl:0"] and strategy.num_replicas_in_sync == 1
        value = np.arange(5, dtype=np.float32)
        assert strategy.all_reduce([value])[0].tobytes() == value.tobytes()
    with pytest.raises(ValueError, match="no device|not found|opencl:99"):
        tandem.OneDeviceStrategy("opencl:99")
