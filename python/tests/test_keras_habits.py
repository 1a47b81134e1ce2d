"""Scripts written as Keras' guides write them (python/tests/keras_habits/), run with
only their import lines changed; and where tandem differs on purpose, Keras' line
fails at once with a message saying what to write instead."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tandem
from tandem import layers

SCRIPTS = Path(__file__).resolve().parent / "keras_habits"


def run(script: str, tmp_path: Path) -> dict:
    done = subprocess.run([sys.executable, str(SCRIPTS / script)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=240, env=dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "import tandem as keras  # Keras: import keras" in (SCRIPTS / script).read_text()
    return {line.split()[0]: float(line.split()[1]) for line in done.stdout.splitlines()
            if len(line.split()) == 2 and line.split()[0].islower()}


def test_tabular_classifier(tmp_path):
    printed = run("tabular_classifier.py", tmp_path)
    assert printed["test_accuracy"] > 0.85, printed
    assert printed["params"] == 4 * 32 + 32 + 32 * 16 + 16 + 16 * 3 + 3


def test_regression(tmp_path):
    printed = run("regression.py", tmp_path)
    assert printed["test_mae"] < 0.35 and printed["best_mae"] < 0.35, printed
    rows = (tmp_path / "training.csv").read_text().splitlines()
    assert rows[0] == "epoch,loss,mae,val_loss,val_mae", rows[0]  # compile's metrics only
    assert len(rows) == 26 and rows[1].startswith("0,")


def test_convnet(tmp_path):
    if not os.environ.get("TANDEM_DIGITS"):
        pytest.skip("TANDEM_DIGITS names no digits file")
    printed = run("convnet.py", tmp_path)
    assert printed["test_accuracy"] > 0.85, printed


def test_where_tandem_differs_it_says_what_to_write():
    with pytest.raises(ValueError, match="Dropout: tandem drops the outputs of the Dense or "
                                         "Conv2D layer it follows"):
        tandem.Sequential([tandem.Input(shape=(8, 8, 1)), layers.Conv2D(8, 3),
                           layers.MaxPooling2D(2), layers.Dropout(0.5), layers.Flatten(),
                           layers.Dense(10, activation="softmax")])
    with pytest.raises(ValueError, match="tandem has no AMSGrad"):
        tandem.optimizers.Adam(amsgrad=True)
    with pytest.raises(TypeError, match="tandem's schedules are compile's"):
        tandem.optimizers.SGD(learning_rate=lambda step: 0.1)
    with pytest.raises(ValueError, match="save_freq"):
        tandem.callbacks.ModelCheckpoint("m.safetensors", save_freq=100)
    model = tandem.Sequential([tandem.Input(shape=(4,)), layers.Dense(3)])
    with pytest.raises(ValueError, match="from_logits=True"):
        model.compile(loss="sparse_categorical_crossentropy")


def test_optimizer_objects_train_as_their_names(pocl_pair, digits):
    """An optimizer object with the defaults trains the bits of its name; its settings
    reach the library (another beta_2 trains other bits)."""
    x, y, _, _ = digits
    losses = []
    for optimizer in ("adam", tandem.optimizers.Adam(), tandem.optimizers.Adam(beta_2=0.9)):
        model = tandem.Sequential("32", input_shape=(64,), classes=10, seed=3)
        model.compile(optimizer, learning_rate=None if not isinstance(optimizer, str) else 1e-3)
        losses.append(model.fit(x, y, 64, 2, strategy=pocl_pair, verbose=0).history["loss"])
    assert losses[0] == losses[1] and losses[2] != losses[0]


def test_learning_rate_callbacks(pocl_pair, digits):
    x, y, xv, yv = digits
    model = tandem.Sequential("32", input_shape=(64,), classes=10)
    model.compile(tandem.optimizers.SGD(learning_rate=0.1))
    rates = []

    class Seen(tandem.Callback):
        def on_epoch_end(self, epoch, logs=None):
            rates.append(self.model.current_learning_rate())

    plateau = tandem.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1,
                                                 min_delta=10.0)  # never improves enough
    model.fit(x, y, 64, 4, validation_data=(xv, yv), strategy=pocl_pair, verbose=0,
              callbacks=[tandem.callbacks.LearningRateScheduler(lambda e: 0.1 / (e + 1)),
                         plateau, Seen()])
    # the scheduler sets each epoch's start; the plateau halves at the end of each epoch
    # but the first (whose value is the first best)
    assert rates == [np.float32(0.1), np.float32(0.025), np.float32(1 / 60),
                     np.float32(0.0125)], rates
    scheduled = tandem.Sequential("32", input_shape=(64,), classes=10)
    scheduled.compile("sgd", lr_decay="cosine")
    with pytest.raises(ValueError, match="lr_decay"):
        scheduled.set_learning_rate(0.5)


def test_checkpoint_and_csv_logger(pocl_pair, digits, tmp_path):
    x, y, xv, yv = digits
    model = tandem.Sequential([layers.Dense(16, activation="relu"),
                               layers.Dense(10, activation="softmax")], input_shape=(64,))
    model.compile("adam", metrics=["accuracy"])
    path = str(tmp_path / "m-{epoch:02d}-{val_accuracy:.3f}.safetensors")
    history = model.fit(x, y, 64, 3, validation_data=(xv, yv), strategy=pocl_pair, verbose=0,
                        callbacks=[tandem.callbacks.ModelCheckpoint(path),
                                   tandem.callbacks.CSVLogger(tmp_path / "log.csv")])
    saved = sorted(p.name for p in tmp_path.glob("m-*.safetensors"))
    assert saved == [f"m-{e + 1:02d}-{a:.3f}.safetensors"
                     for e, a in enumerate(history.history["val_accuracy"])]
    rows = [line.split(",") for line in (tmp_path / "log.csv").read_text().splitlines()]
    assert rows[0] == ["epoch", "accuracy", "loss", "val_accuracy", "val_loss"]
    assert [float(r[2]) for r in rows[1:]] == history.history["loss"]
    reloaded = tandem.load_model(tmp_path / saved[-1], strategy=pocl_pair)
    assert np.array_equal(reloaded.predict(xv[:8]), model.predict(xv[:8]))


def test_summary_counts_every_weight(capsys):
    model = tandem.Sequential([tandem.Input(shape=(8, 8, 1)), layers.Conv2D(4, 3),
                               layers.BatchNormalization(), layers.Flatten(),
                               layers.Dense(5, activation="softmax")])
    lines = []
    model.summary(print_fn=lines.append)
    assert "conv2d0" in lines[4] and lines[4].endswith("40")  # 3*3*1*4 + 4
    assert "batch_norm1" in lines[5] and lines[5].endswith("16")  # gamma, beta, 2 moving
    assert lines[-4] == f"Total params: {model.count_params():,}"
    assert model.count_params() == 40 + 16 + 6 * 6 * 4 * 5 + 5
    assert lines[-2] == "Non-trainable params: 8"
