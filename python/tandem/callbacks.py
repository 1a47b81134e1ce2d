"""Callbacks of ``Sequential.fit``, as Keras calls them.

A callback is any object with some of the methods of ``Callback``; ``fit`` calls those
it has. Training stops after the epoch in progress when ``on_epoch_end`` returns True,
raises ``StopTraining``, or sets ``model.stop_training`` (Keras' way); the history of
the epochs run is kept. Any other exception ends ``fit`` with it.
"""
import csv
import math
import os
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Dict, List, Optional

from ._tensorboard import TensorBoard  # noqa: F401  tandem.callbacks.TensorBoard

Logs = Dict[str, float]


class StopTraining(Exception):
    """Raised by a callback to end ``fit`` after the epoch in progress."""


class Callback:
    """The methods ``fit`` calls; override those you need. ``self.model`` is the model
    being trained."""

    model: Any = None

    def set_model(self, model: Any) -> None:
        self.model = model

    def on_train_begin(self, logs: Optional[Logs] = None) -> None:
        """Before the first epoch."""

    def on_epoch_begin(self, epoch: int, logs: Optional[Logs] = None) -> None:
        """Before each epoch (counted from 0)."""

    def on_epoch_end(self, epoch: int, logs: Optional[Logs] = None) -> Optional[bool]:
        """After each epoch, with its ``loss`` and metrics (``accuracy``, or a
        regression's ``mae``, ``rmse``, ``r2``) and, given validation data, ``val_loss``
        and the ``val_`` metrics; True stops training."""
        return None

    def on_train_end(self, logs: Optional[Logs] = None) -> None:
        """After the last epoch, with the last epoch's logs."""


class _Monitored(Callback):
    """A callback that watches one of the logs' values: ``mode`` "min", "max", or
    "auto" (the accuracies and R^2 rise, the rest fall), as Keras'."""

    def __init__(self, monitor: str, mode: str, min_delta: float = 0.0) -> None:
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"{type(self).__name__}: mode is \"auto\", \"min\" or "
                             f"\"max\", not {mode!r}")
        self.monitor = monitor
        self.mode = mode
        self.min_delta = abs(float(min_delta))
        self.best = math.inf  # of the score: the value, negated where it rises

    def _rises(self) -> bool:
        if self.mode != "auto":
            return self.mode == "max"
        return "accuracy" in self.monitor or self.monitor.endswith("r2")

    def _value(self, logs: Optional[Logs]) -> float:
        if not logs or self.monitor not in logs:
            raise KeyError(f"{type(self).__name__}: the logs hold no {self.monitor!r} "
                           f"({', '.join(logs or {})}): fit with validation_data?")
        return logs[self.monitor]

    def _improves(self, logs: Optional[Logs]) -> bool:
        """Whether this epoch's value beats the best by more than min_delta (then
        the best it is)."""
        value = self._value(logs)
        score = -value if self._rises() else value
        if score < self.best - self.min_delta:
            self.best = score
            return True
        return False


class EarlyStopping(_Monitored):
    """Stops when ``monitor`` (default ``val_loss``) has not improved by more than
    ``min_delta`` for ``patience`` epochs. ``restore_best_weights``: at the end of
    training the model takes back the weights of its best epoch (from
    ``get_weights``), as Keras 3 does."""

    def __init__(self, monitor: str = "val_loss", patience: int = 0,
                 min_delta: float = 0.0, mode: str = "auto",
                 restore_best_weights: bool = False) -> None:
        super().__init__(monitor, mode, min_delta)
        self.patience = int(patience)
        self.restore_best_weights = bool(restore_best_weights)
        self.wait = 0
        self.stopped_epoch: Optional[int] = None
        self.best_epoch: Optional[int] = None
        self.best_weights: Optional[List[Any]] = None

    def on_train_begin(self, logs: Optional[Logs] = None) -> None:
        self.best, self.wait, self.stopped_epoch = math.inf, 0, None
        self.best_epoch, self.best_weights = None, None

    def on_epoch_end(self, epoch: int, logs: Optional[Logs] = None) -> Optional[bool]:
        if self._improves(logs):
            self.wait, self.best_epoch = 0, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return None
        self.wait += 1
        if self.wait > self.patience:
            self.stopped_epoch = epoch
            return True
        return None

    def on_train_end(self, logs: Optional[Logs] = None) -> None:
        if self.restore_best_weights and self.best_weights is not None:
            self.model.set_weights(self.best_weights)


class ModelCheckpoint(_Monitored):
    """Saves the model (``model.save``: its layers and weights, which
    ``tandem.load_model`` and ``tandem predict --model`` read) at the end of each
    epoch to ``filepath``, formatted with ``epoch`` (from 1) and the logs
    (``"ckpt-{epoch:02d}-{val_loss:.2f}.safetensors"``); ``save_best_only`` saves only
    when ``monitor`` improves. tandem's model file always holds the layers with the
    weights, so ``save_weights_only`` saves the same file; it saves every epoch
    (``save_freq="epoch"``). For resuming a fit, optimizer state and input position
    included, use ``fit(checkpoint_dir=)``."""

    def __init__(self, filepath: Any, monitor: str = "val_loss", verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = False,
                 mode: str = "auto", save_freq: Any = "epoch",
                 initial_value_threshold: Optional[float] = None) -> None:
        super().__init__(monitor, mode)
        if save_freq != "epoch":
            raise ValueError("ModelCheckpoint: tandem saves at the end of each epoch: "
                             f"save_freq=\"epoch\", not {save_freq!r}")
        self.filepath = os.fspath(filepath)
        self.verbose = int(verbose)
        self.save_best_only = bool(save_best_only)
        self.save_weights_only = bool(save_weights_only)
        self.initial = initial_value_threshold

    def on_train_begin(self, logs: Optional[Logs] = None) -> None:
        self.best = math.inf
        if self.initial is not None:
            self.best = -self.initial if self._rises() else self.initial

    def on_epoch_end(self, epoch: int, logs: Optional[Logs] = None) -> Optional[bool]:
        if self.save_best_only and not self._improves(logs):
            return None
        path = self.filepath.format(epoch=epoch + 1, **(logs or {}))
        self.model.save(path)
        if self.verbose:
            print(f"epoch {epoch + 1}: saved the model to {path}", flush=True)
        return None


class CSVLogger(Callback):
    """Writes each epoch's logs to a CSV file as Keras': a header ``epoch`` and the
    logs' names in sorted order, then a row per epoch (counted from 0).
    ``append`` adds to an existing file (the header only where it is empty)."""

    def __init__(self, filename: Any, separator: str = ",", append: bool = False) -> None:
        self.filename = os.fspath(filename)
        self.separator = separator
        self.append = bool(append)
        self._file: Optional[IO[str]] = None
        self._writer: Any = None
        self._keys: Optional[List[str]] = None

    def on_train_begin(self, logs: Optional[Logs] = None) -> None:
        fresh = not (self.append and os.path.exists(self.filename)
                     and os.path.getsize(self.filename) > 0)
        self._file = open(self.filename, "a" if self.append else "w", newline="")
        self._writer = csv.writer(self._file, delimiter=self.separator)
        self._keys = None if fresh else []

    def on_epoch_end(self, epoch: int, logs: Optional[Logs] = None) -> Optional[bool]:
        logs = logs or {}
        if self._keys is None or not self._keys:
            if self._keys is None:
                self._writer.writerow(["epoch", *sorted(logs)])
            self._keys = sorted(logs)
        self._writer.writerow([epoch, *(logs.get(k, "NA") for k in self._keys)])
        assert self._file is not None
        self._file.flush()
        return None

    def on_train_end(self, logs: Optional[Logs] = None) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class LearningRateScheduler(Callback):
    """Sets the learning rate at the start of each epoch to ``schedule(epoch, lr)``
    (or ``schedule(epoch)``), epochs counted from 0, lr the current one, as Keras'.
    The model's rate must be constant (no ``compile(lr_decay=)``)."""

    def __init__(self, schedule: Callable[..., float], verbose: int = 0) -> None:
        self.schedule = schedule
        self.verbose = int(verbose)

    def on_epoch_begin(self, epoch: int, logs: Optional[Logs] = None) -> None:
        current = self.model.current_learning_rate()
        try:
            rate = self.schedule(epoch, current)
        except TypeError:
            rate = self.schedule(epoch)
        if not isinstance(rate, (int, float)) or isinstance(rate, bool):
            raise ValueError(f"LearningRateScheduler: the schedule gave {rate!r}, not a "
                             "number")
        self.model.set_learning_rate(float(rate))
        if self.verbose:
            print(f"epoch {epoch + 1}: learning rate {float(rate):g}", flush=True)


class ReduceLROnPlateau(_Monitored):
    """Multiplies the learning rate by ``factor`` when ``monitor`` has not improved by
    more than ``min_delta`` for ``patience`` epochs, then waits ``cooldown`` epochs
    before watching again; never below ``min_lr``. As Keras'."""

    def __init__(self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 0, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0.0) -> None:
        super().__init__(monitor, mode, min_delta)
        if not 0.0 < float(factor) < 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor in (0, 1), not {factor!r}")
        self.factor, self.patience = float(factor), int(patience)
        self.verbose, self.cooldown, self.min_lr = int(verbose), int(cooldown), float(min_lr)
        self.wait = self.cooling = 0

    def on_train_begin(self, logs: Optional[Logs] = None) -> None:
        self.best, self.wait, self.cooling = math.inf, 0, 0

    def on_epoch_end(self, epoch: int, logs: Optional[Logs] = None) -> Optional[bool]:
        improved = self._improves(logs)
        if self.cooling > 0:
            self.cooling -= 1
            self.wait = 0
        if improved:
            self.wait = 0
            return None
        if self.cooling > 0:
            return None
        self.wait += 1
        if self.wait >= self.patience:
            current = self.model.current_learning_rate()
            reduced = max(current * self.factor, self.min_lr)
            if reduced < current:
                self.model.set_learning_rate(reduced)
                if self.verbose:
                    print(f"epoch {epoch + 1}: learning rate reduced to {reduced:g}",
                          flush=True)
            self.cooling, self.wait = self.cooldown, 0
        return None


@dataclass
class History:
    """What ``fit`` returns, as Keras' History: ``history["loss"]`` and the compiled
    metrics (``history["accuracy"]``, or a regression's ``["mae"]``, ``["rmse"]``,
    ``["r2"]``; with validation data ``val_loss`` and ``val_<metric>``), one entry per
    epoch run; ``epoch`` their indices."""

    epoch: List[int] = field(default_factory=list)
    history: Dict[str, List[float]] = field(default_factory=lambda: {"loss": []})
    #: seconds of each epoch's training steps (no evaluation), as tandem train reports
    step_seconds: List[float] = field(default_factory=list)

    def append(self, epoch: int, logs: Dict[str, float], seconds: float) -> None:
        self.epoch.append(epoch)
        self.step_seconds.append(seconds)
        for key, value in logs.items():
            self.history.setdefault(key, []).append(value)
