"""fit's options: validation data, callbacks, the progress bar on a terminal alone,
mixed precision, a sharded optimizer, checkpoints and resuming."""
import os
import pty
import subprocess
import sys

import pytest

import tandem

from conftest import skip_without


def compiled(seed=3, **options):
    model = tandem.Sequential("32", input_shape=(64,), classes=10, seed=seed,
                              mixed_precision=options.pop("mixed_precision", False))
    model.compile(optimizer="adam", lr=5e-3, **options)
    return model


def test_validation_metrics_each_epoch(pocl_pair, digits):
    x, y, x_test, y_test = digits
    model = compiled()
    history = model.fit(x, y, epochs=3, batch_size=64, strategy=pocl_pair,
                        validation_data=(x_test, y_test))
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert all(len(v) == 3 for v in history.history.values())
    assert [history.history["val_loss"][-1], history.history["val_accuracy"][-1]] == \
        model.evaluate(x_test, y_test)
    with pytest.raises(ValueError, match="validation_data y"):
        model.fit(x, y, strategy=pocl_pair, validation_data=(x_test, y_test[:-1]))


class Recorder(tandem.Callback):
    def __init__(self, stop_after=None, how="return"):
        self.calls, self.stop_after, self.how = [], stop_after, how

    def on_train_begin(self, logs=None):
        self.calls.append("begin")

    def on_epoch_end(self, epoch, logs=None):
        self.calls.append((epoch, sorted(logs)))
        if epoch == self.stop_after:
            if self.how == "raise":
                raise tandem.StopTraining()
            if self.how == "attribute":
                self.model.stop_training = True
            else:
                return True
        return None

    def on_train_end(self, logs=None):
        self.calls.append("end")


@pytest.mark.parametrize("how", ["return", "raise", "attribute"])
def test_callbacks_see_each_epoch_and_stop_it(pocl_pair, digits, how):
    x, y, _, _ = digits
    recorder = Recorder(stop_after=1, how=how)
    history = compiled().fit(x, y, epochs=5, batch_size=128, strategy=pocl_pair,
                             callbacks=[recorder])
    assert history.epoch == [0, 1]
    assert recorder.calls == ["begin", (0, ["accuracy", "loss"]), (1, ["accuracy", "loss"]),
                              "end"]


def test_early_stopping_and_errors_from_callbacks(pocl_pair, digits):
    x, y, x_test, y_test = digits
    stopper = tandem.EarlyStopping(monitor="val_accuracy", patience=0, min_delta=1.0)
    history = compiled().fit(x, y, epochs=5, strategy=pocl_pair, callbacks=[stopper],
                             validation_data=(x_test, y_test))
    assert history.epoch == [0, 1] and stopper.stopped_epoch == 1

    class Broken(tandem.Callback):
        def on_epoch_end(self, epoch, logs=None):
            raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        compiled().fit(x, y, strategy=pocl_pair, callbacks=[Broken()])


BAR_SCRIPT = """
import numpy as np, tandem
x, y = tandem.load_digits()
model = tandem.Sequential("16", input_shape=(64,), classes=10)
model.compile()
model.fit(x / np.float32(16), y, epochs=2, batch_size=256,  # 8 steps, the last short
          strategy=tandem.MirroredStrategy(["opencl:0", "opencl:1"]))
print("done")
"""


def test_progress_bar_only_on_a_terminal():
    skip_without(["opencl:0", "opencl:1"])
    piped = subprocess.run([sys.executable, "-c", BAR_SCRIPT], capture_output=True, text=True,
                           timeout=120)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == "done\n"
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-c", BAR_SCRIPT], stdout=follower,
                               stderr=subprocess.PIPE)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert process.wait(timeout=120) == 0, process.stderr.read() if process.stderr else ""
    text = seen.decode()
    assert "epoch 2/2" in text and "8/8 [" + "=" * 30 + "]" in text and "accuracy" in text, text


def test_mixed_precision_learns(pocl_pair, digits):
    x, y, x_test, y_test = digits
    model = compiled(mixed_precision=True)
    model.fit(x, y, epochs=4, batch_size=64, strategy=pocl_pair)
    assert model.evaluate(x_test, y_test)[1] > 0.85
    assert model.loss_scale() > 1000  # trained with loss scaling, from 32768
    plain = compiled()
    plain.fit(x[:64], y[:64], strategy=pocl_pair)
    assert plain.loss_scale() == 1


def test_a_sharded_optimizer_gives_the_same_bytes(pocl_pair, digits, tmp_path):
    x, y, _, _ = digits
    slots = {}
    for shard in (False, True):
        model = compiled(shard_optimizer=shard)
        model.fit(x, y, epochs=2, batch_size=64, strategy=pocl_pair)
        model.save(tmp_path / f"shard{shard}.safetensors")
        slots[shard] = model.optimizer_slot_bytes()
    assert slots[True] < slots[False] * 0.6, slots  # half each, the buckets padded
    assert (tmp_path / "shardTrue.safetensors").read_bytes() == \
        (tmp_path / "shardFalse.safetensors").read_bytes()


def test_resume_from_a_checkpoint_gives_the_uninterrupted_bytes(pocl_pair, digits, tmp_path):
    x, y, _, _ = digits
    whole = compiled()
    whole.fit(x, y, epochs=4, batch_size=64, strategy=pocl_pair)
    whole.save(tmp_path / "whole.safetensors")

    checkpoints = tmp_path / "checkpoints"
    first = compiled()
    assert first.fit(x, y, epochs=2, batch_size=64, strategy=pocl_pair,
                     checkpoint_dir=checkpoints).epoch == [0, 1]
    assert os.listdir(checkpoints)
    second = compiled()  # as a new process would: fresh weights, then the checkpoint's
    history = second.fit(x, y, epochs=4, batch_size=64, strategy=pocl_pair,
                         checkpoint_dir=checkpoints, resume=True)
    assert history.epoch == [2, 3]
    second.save(tmp_path / "resumed.safetensors")
    assert (tmp_path / "resumed.safetensors").read_bytes() == \
        (tmp_path / "whole.safetensors").read_bytes()
    with pytest.raises(tandem.InvalidArgumentError, match="resume needs a checkpoint_dir"):
        compiled().fit(x, y, strategy=pocl_pair, resume=True)
