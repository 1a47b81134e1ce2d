"""``tandem.callbacks.TensorBoard``: fit's epochs in TensorBoard event files, written by
the library's writer (tandem/summary.h) as ``tandem train --tensorboard`` writes them."""
import os
from typing import Any, Dict, Optional

from . import _tandem

Logs = Dict[str, float]


class TensorBoard:
    """Writes each epoch's logs as Keras' TensorBoard callback lays them out:
    ``log_dir/train/`` gets ``epoch_loss``, ``epoch_<metric>`` and
    ``epoch_learning_rate`` (the rate of the next step, as ``lr_decay`` has brought
    it, unless the logs carry ``learning_rate`` or ``lr``), ``log_dir/validation/``
    the ``val_`` logs as ``epoch_loss`` and ``epoch_<metric>``, each at the epoch's
    number from 0. Each fit adds files of its own. In a multi-worker job the chief
    alone writes.

    ``update_freq``: "epoch" alone. fit runs an epoch's steps in the library and
    calls its callbacks between epochs, so there is no per-batch log to write
    (``tandem train --tensorboard-every N`` writes ``batch_loss``)."""

    def __init__(self, log_dir: Any = "logs", update_freq: str = "epoch") -> None:
        if update_freq != "epoch":
            raise ValueError(f"TensorBoard: update_freq {update_freq!r}: \"epoch\" alone, as fit "
                             "calls its callbacks between epochs (tandem train "
                             "--tensorboard-every N writes batch_loss)")
        self.log_dir = os.fspath(log_dir)
        self.update_freq = update_freq
        self.model: Any = None
        self._writers: Dict[str, Any] = {}

    def set_model(self, model: Any) -> None:
        self.model = model

    def _writer(self, run: str) -> Any:
        """The run's writer ("train" or "validation"), its file made at first use."""
        if run not in self._writers:
            self._writers[run] = _tandem.summary_open(os.path.join(self.log_dir, run))
        return self._writers[run]

    def _writes(self) -> bool:
        strategy = getattr(self.model, "strategy", None)
        return strategy is None or strategy._chief  # a job's chief alone, as fit reports

    def on_train_begin(self, logs: Optional[Logs] = None) -> None:
        self.on_train_end()  # a fit before that ended by an exception
        if self._writes():
            self._writer("train")

    def _learning_rate(self, logs: Logs) -> Optional[float]:
        for key in ("learning_rate", "lr"):
            if key in logs:
                return logs[key]
        rate = getattr(self.model, "current_learning_rate", None)
        return float(rate()) if rate is not None else None

    def on_epoch_end(self, epoch: int, logs: Optional[Logs] = None) -> None:
        if not self._writes():
            return
        logs = dict(logs or {})
        rate = self._learning_rate(logs)
        for key, value in logs.items():
            if key in ("learning_rate", "lr"):
                continue
            run, name = ("validation", key[4:]) if key.startswith("val_") else ("train", key)
            _tandem.summary_scalar(self._writer(run), f"epoch_{name}", epoch, float(value))
        if rate is not None:
            _tandem.summary_scalar(self._writer("train"), "epoch_learning_rate", epoch, rate)
        for writer in self._writers.values():
            _tandem.summary_flush(writer)

    def on_train_end(self, logs: Optional[Logs] = None) -> None:
        writers, self._writers = self._writers, {}
        for writer in writers.values():
            try:
                _tandem.summary_flush(writer)
            finally:
                _tandem.close(writer)
