"""Sequential on the digits over two PoCL devices: it learns, repeats bit for bit, and
its model files round-trip; bad input raises."""
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import tandem

from conftest import skip_without


def trained(strategy, x, y, epochs, seed=3):
    model = tandem.Sequential("64", input_shape=(64,), classes=10, seed=seed)
    model.compile(optimizer="adam", lr=5e-3)
    history = model.fit(x, y, epochs=epochs, batch_size=64, strategy=strategy, seed=seed)
    return model, history


def test_fit_learns_the_digits(pocl_pair, digits):
    x, y, x_test, y_test = digits
    model, history = trained(pocl_pair, x, y, epochs=6)
    assert history.epoch == list(range(6))
    losses = history.history["loss"]
    assert losses[-1] < losses[0] / 3, losses
    assert history.history["accuracy"][-1] > 0.95
    loss, accuracy = model.evaluate(x_test, y_test)
    assert accuracy > 0.9 and 0 < loss < 0.5, (loss, accuracy)
    probabilities = model.predict(x_test)
    assert probabilities.shape == (len(y_test), 10) and probabilities.dtype == np.float32
    assert np.allclose(probabilities.sum(axis=1), 1, atol=1e-5)
    assert np.mean(probabilities.argmax(axis=1) == y_test) == pytest.approx(accuracy)


def test_same_seed_same_bytes(pocl_pair, digits, tmp_path):
    x, y, _, _ = digits
    files = []
    for run in range(2):
        model, _ = trained(pocl_pair, x, y, epochs=2, seed=5)
        files.append(tmp_path / f"run{run}.safetensors")
        model.save(files[-1])
    other, _ = trained(pocl_pair, x, y, epochs=2, seed=6)
    other.save(tmp_path / "other.safetensors")
    assert files[0].read_bytes() == files[1].read_bytes()
    assert files[0].read_bytes() != (tmp_path / "other.safetensors").read_bytes()


def test_fit_is_tandem_train_byte_for_byte(pocl_pair, digits, tmp_path):
    """The same data, seed and options through `tandem train` and through fit: the
    same model file, byte for byte, and the CLI's test accuracy from evaluate."""
    x, y, x_test, y_test = digits

    def write(path, features, labels):  # repr keeps every float32 exact
        path.write_text("".join(",".join(repr(float(v)) for v in row) + f",{label}\n"
                                for row, label in zip(features, labels)))

    write(tmp_path / "train.csv", x, y)
    write(tmp_path / "test.csv", x_test, y_test)
    cli = subprocess.run(
        [sys.executable, "-m", "tandem", "train", "--data", str(tmp_path / "train.csv"),
         "--test-data", str(tmp_path / "test.csv"), "--no-standardize", "--layers", "64",
         "--seed", "5", "--epochs", "2", "--batch", "64", "--optimizer", "adam", "--lr", "0.005",
         "--devices", ",".join(pocl_pair.devices), "--save", str(tmp_path / "cli.safetensors")],
        capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    model, _ = trained(pocl_pair, x, y, epochs=2, seed=5)
    model.save(tmp_path / "fit.safetensors")
    assert (tmp_path / "fit.safetensors").read_bytes() == (tmp_path / "cli.safetensors").read_bytes()
    cli_accuracy = float(cli.stdout.rsplit("test accuracy ", 1)[1].split("%")[0])
    assert model.evaluate(x_test, y_test)[1] * 100 == pytest.approx(cli_accuracy, abs=0.005)


def test_save_load_predict(pocl_pair, digits, tmp_path):
    x, y, x_test, _ = digits
    model, _ = trained(pocl_pair, x, y, epochs=1)
    path = tmp_path / "digits.safetensors"
    model.save(path)
    loaded = tandem.load_model(path, strategy=pocl_pair)
    assert loaded.predict(x_test).tobytes() == model.predict(x_test).tobytes()
    assert loaded.count_params() == model.count_params() == 64 * 64 + 64 + 64 * 10 + 10
    # A loaded model trains on once compiled.
    loaded.compile(optimizer="sgd", lr=0.01)
    assert len(loaded.fit(x, y, epochs=1).history["loss"]) == 1


def test_bad_input_raises(pocl_pair, digits, tmp_path):
    x, y, _, _ = digits
    model = tandem.Sequential("16", input_shape=(64,), classes=10)
    with pytest.raises(RuntimeError, match="compile"):
        model.fit(x, y)
    model.compile()
    with pytest.raises(ValueError, match=r"expected shape \(rows, 64\).*\(10, 63\)"):
        model.fit(np.zeros((10, 63), np.float32), y[:10], strategy=pocl_pair)
    with pytest.raises(ValueError, match=r"expected 10 int32 class indices"):
        model.fit(x[:10], y[:9], strategy=pocl_pair)
    with pytest.raises(TypeError, match=r"expected integer class indices, got <U\d+ array"):
        model.fit(x[:10], y[:10].astype(str), strategy=pocl_pair)
    with pytest.raises(tandem.InvalidArgumentError):
        model.fit(x[:10], np.full(10, 12, np.int32), strategy=pocl_pair)  # class 12 of 10
    with pytest.raises(ValueError, match="batch_size"):
        model.fit(x[:10], y[:10], batch_size=0, strategy=pocl_pair)
    with pytest.raises(ValueError, match="the strategy it was built on"):
        model.predict(x[:2], strategy=tandem.MirroredStrategy(["opencl:0"]))
    with pytest.raises(tandem.NotFoundError, match="missing.safetensors"):
        tandem.load_model(tmp_path / "missing.safetensors", strategy=pocl_pair)
    (tmp_path / "junk.safetensors").write_bytes(b"not a model")
    with pytest.raises(tandem.CorruptDataError):
        tandem.load_model(tmp_path / "junk.safetensors", strategy=pocl_pair)
    with pytest.raises(tandem.NotFoundError):
        model.compile(optimizer="nope")
        model.fit(x[:10], y[:10], strategy=pocl_pair)


def test_module_runs_the_cli():
    done = subprocess.run([sys.executable, "-m", "tandem", "devices"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "opencl:0" in done.stdout
    missing = subprocess.run([sys.executable, "-m", "tandem", "devices"], capture_output=True,
                             text=True, timeout=60,
                             env={**os.environ, "TANDEM_CLI": "/nonexistent/tandem"})
    assert missing.returncode == 126 and "cannot run /nonexistent/tandem" in missing.stderr


def test_ctrl_c_stops_fit_after_the_step(tmp_path):
    skip_without(["opencl:0", "opencl:1"])
    script = tmp_path / "long_fit.py"
    script.write_text(
        "import numpy as np, tandem\n"
        "x, y = tandem.load_digits()\n"
        "model = tandem.Sequential('64', input_shape=(64,), classes=10)\n"
        "model.compile()\n"
        "strategy = tandem.MirroredStrategy(['opencl:0', 'opencl:1'])\n"
        "try:\n"
        "    model.fit(x / np.float32(16), y, epochs=1000, batch_size=8, strategy=strategy,\n"
        "              verbose=1)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    model.save('" + str(tmp_path / "after.safetensors") + "')\n")
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    first = process.stdout.readline()
    assert first.startswith("epoch 1/1000"), first
    process.send_signal(signal.SIGINT)
    rest, _ = process.communicate(timeout=60)
    assert process.returncode == 0 and rest.splitlines()[-1] == "interrupted", rest
    assert (tmp_path / "after.safetensors").stat().st_size > 0


def test_example_trains_the_digits(tmp_path):
    example = Path(__file__).resolve().parents[2] / "examples" / "python" / "train_digits.py"
    done = subprocess.run([sys.executable, str(example), str(tmp_path / "m.safetensors")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "epoch 10/10" in done.stdout and (tmp_path / "m.safetensors").is_file()


def test_another_thread_is_refused_while_fit_runs(pocl_pair, digits):
    """Two threads on one model: whichever comes second is refused, never both run
    (the fit's thread when a predict of this one holds the model at its next
    epoch)."""
    x, y, _, _ = digits
    model = tandem.Sequential("32", input_shape=(64,), classes=10)
    model.compile()
    model.fit(x[:64], y[:64], strategy=pocl_pair)  # built, so the thread's fit only trains
    lost = []

    def train() -> None:
        try:
            model.fit(x, y, epochs=20, batch_size=8, verbose=0)
        except tandem.InvalidStateError as error:
            lost.append(str(error))

    trainer = threading.Thread(target=train)
    trainer.start()
    refused = []
    while trainer.is_alive() and not refused:
        for call in (lambda: model.predict(x[:4]),
                     lambda: pocl_pair.all_reduce([x[:4], x[:4]])):
            try:
                call()
            except tandem.InvalidStateError as error:
                refused.append(str(error))
    trainer.join()
    seen = refused + lost
    assert seen and all("in use by another thread" in e for e in seen), seen
    assert model.predict(x[:4]).shape == (4, 10)  # free again afterwards
