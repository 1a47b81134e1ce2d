"""Callbacks of ``Sequential.fit``, as Keras calls them.

A callback is any object with some of the methods of ``Callback``; ``fit`` calls those
it has. Training stops after the epoch in progress when ``on_epoch_end`` returns True,
raises ``StopTraining``, or sets ``model.stop_training`` (Keras' way); the history of
the epochs run is kept. Any other exception ends ``fit`` with it.
"""
import math
from typing import Any, Dict, List, Optional

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


class EarlyStopping(Callback):
    """Stops when ``monitor`` (default ``val_loss``) has not improved by more than
    ``min_delta`` for ``patience`` epochs. ``mode``: "min", "max", or "auto" (the
    accuracies and R^2 rise, the rest fall), as Keras'. ``restore_best_weights``:
    at the end of training the model takes back the weights of its best epoch (from
    ``get_weights``), as Keras 3 does."""

    def __init__(self, monitor: str = "val_loss", patience: int = 0,
                 min_delta: float = 0.0, mode: str = "auto",
                 restore_best_weights: bool = False) -> None:
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode is \"auto\", \"min\" or \"max\", "
                             f"not {mode!r}")
        self.monitor = monitor
        self.patience = int(patience)
        self.min_delta = abs(float(min_delta))
        self.mode = mode
        self.restore_best_weights = bool(restore_best_weights)
        self.best = math.inf
        self.wait = 0
        self.stopped_epoch: Optional[int] = None
        self.best_epoch: Optional[int] = None
        self.best_weights: Optional[List[Any]] = None

    def on_train_begin(self, logs: Optional[Logs] = None) -> None:
        self.best, self.wait, self.stopped_epoch = math.inf, 0, None
        self.best_epoch, self.best_weights = None, None

    def _rises(self) -> bool:
        if self.mode != "auto":
            return self.mode == "max"
        return "accuracy" in self.monitor or self.monitor.endswith("r2")

    def on_epoch_end(self, epoch: int, logs: Optional[Logs] = None) -> Optional[bool]:
        if not logs or self.monitor not in logs:
            raise KeyError(f"EarlyStopping: the logs hold no {self.monitor!r} "
                           f"({', '.join(logs or {})}): fit with validation_data?")
        value = logs[self.monitor]
        score = -value if self._rises() else value
        if score < self.best - self.min_delta:
            self.best, self.wait, self.best_epoch = score, 0, epoch
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
