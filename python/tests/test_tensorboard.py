"""tandem.callbacks.TensorBoard: fit's logs in event files that TensorBoard's own reader
(EventAccumulator, from .check-tools' tensorboard: TANDEM_CHECK_PYTHON) takes, every
value the history's at the epoch's number, the learning rate the model's."""
import json
import os
import subprocess

import numpy as np
import pytest

import tandem

# Prints {run: {tag: [[step, value], ...]}} of the folder's train/ and validation/.
READER = """
import json, sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
runs = {}
for run in ("train", "validation"):
    acc = EventAccumulator(sys.argv[1] + "/" + run, size_guidance={"scalars": 0})
    acc.Reload()
    runs[run] = {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in acc.Tags()["scalars"]}
print(json.dumps(runs))
"""


@pytest.fixture
def checker():
    """The python of .check-tools, whose TensorBoard reads the files."""
    python = os.environ.get("TANDEM_CHECK_PYTHON")
    if not python:
        pytest.skip("TANDEM_CHECK_PYTHON is not set: no TensorBoard here to read the event "
                    "files with (./scripts/setup.sh makes .check-tools)")
    return python


def read_scalars(checker, log_dir):
    done = subprocess.run([checker, "-c", READER, str(log_dir)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class Rates(tandem.Callback):
    """The model's learning rate at each epoch's end."""

    def __init__(self):
        self.rates = []

    def on_epoch_end(self, epoch, logs=None):
        self.rates.append(self.model.current_learning_rate())


def as_float32(values):
    return [float(np.float32(v)) for v in values]


def test_event_files_hold_the_history(checker, pocl_pair, digits, tmp_path):
    x, y, x_test, y_test = digits
    model = tandem.Sequential("32", input_shape=(64,), classes=10, seed=3)
    model.compile(optimizer="adam", lr=5e-3, lr_decay="cosine")
    rates = Rates()
    board = tandem.callbacks.TensorBoard(log_dir=tmp_path / "logs")
    history = model.fit(x, y, epochs=3, batch_size=64, strategy=pocl_pair, verbose=0,
                        validation_data=(x_test, y_test), callbacks=[board, rates])
    runs = read_scalars(checker, tmp_path / "logs")
    h = history.history
    want = {"train": {"epoch_loss": h["loss"], "epoch_accuracy": h["accuracy"],
                      "epoch_learning_rate": rates.rates},
            "validation": {"epoch_loss": h["val_loss"], "epoch_accuracy": h["val_accuracy"]}}
    assert {run: sorted(tags) for run, tags in runs.items()} == \
        {run: sorted(tags) for run, tags in want.items()}
    for run, tags in want.items():
        for tag, values in tags.items():
            assert runs[run][tag] == [[e, v] for e, v in zip(history.epoch, as_float32(values))], \
                f"{run}/{tag}"
    assert rates.rates[0] > rates.rates[1] > rates.rates[2]  # the cosine's, not a constant

    # A second fit adds files of its own, its epochs numbered on.
    model.fit(x, y, epochs=5, initial_epoch=3, batch_size=64, strategy=pocl_pair, verbose=0,
              callbacks=[board])
    assert len(list((tmp_path / "logs" / "train").glob("events.out.tfevents.*"))) == 2
    runs = read_scalars(checker, tmp_path / "logs")
    assert [step for step, _ in runs["train"]["epoch_loss"]] == [0, 1, 2, 3, 4]
    assert len(list((tmp_path / "logs" / "validation").glob("events.out.tfevents.*"))) == 1


def test_update_freq_other_than_epoch_is_refused():
    with pytest.raises(ValueError, match="tensorboard-every"):
        tandem.callbacks.TensorBoard(update_freq="batch")
