"""Sequential models: ``tandem.Sequential`` and ``tandem.load_model``."""
import math
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _arrays, _tandem
from .strategy import MirroredStrategy, current_strategy

PathLike = Union[str, "os.PathLike[str]"]


@dataclass
class History:
    """What ``fit`` returns, as Keras' History: ``history["loss"]`` and
    ``history["accuracy"]``, one entry per epoch run."""

    epoch: List[int] = field(default_factory=list)
    history: Dict[str, List[float]] = field(
        default_factory=lambda: {"loss": [], "accuracy": []})


def _parse_layers(layers: Union[str, Sequence[int]]) -> List[int]:
    if isinstance(layers, str):
        try:
            widths = [int(w) for w in layers.split(",") if w.strip()]
        except ValueError:
            raise ValueError(f"layers: expected widths such as \"128,64\", got {layers!r}"
                             ) from None
    else:
        widths = [int(w) for w in layers]
    if any(w < 1 for w in widths):
        raise ValueError(f"layers: every width must be at least 1, got {widths}")
    return widths


class Sequential:
    """A classifier of dense layers, trained data-parallel by a strategy.

    ``layers`` are the hidden layers' widths ("128,64" or [128, 64]), each followed
    by ``activation`` (relu, tanh, sigmoid, gelu, linear) and ``dropout``; a linear
    output layer of ``classes`` units follows, trained by softmax cross-entropy
    against int32 class indices (Keras' sparse categorical cross-entropy from
    logits). The variables are created on the strategy of the first fit, evaluate
    or predict (the ``strategy`` given there, else this model's, else the one whose
    ``scope()`` is entered, else a MirroredStrategy over the default devices) and
    stay there.
    """

    def __init__(self, layers: Union[str, Sequence[int]] = "128,64",
                 input_shape: Optional[Sequence[int]] = None, classes: int = 10,
                 activation: str = "relu", dropout: float = 0.0, seed: int = 1,
                 strategy: Optional[MirroredStrategy] = None) -> None:
        self.layers = _parse_layers(layers)
        self.input_shape: Optional[Tuple[int, ...]] = (
            None if input_shape is None else tuple(int(d) for d in input_shape))
        self.classes = int(classes)
        self.activation = activation
        self.dropout = float(dropout)
        self.seed = int(seed)
        self.strategy = strategy
        self.optimizer: Optional[str] = None
        self.learning_rate = 1e-3
        self._loss = "softmax_cross_entropy"
        self._model: Any = None  # the model's handle, once built
        self._trainer: Any = None  # its optimizer and train op, once compiled and fitted

    # ---- building ----------------------------------------------------------------

    @property
    def built(self) -> bool:
        return self._model is not None

    def _strategy_for(self, strategy: Optional[MirroredStrategy]) -> MirroredStrategy:
        if self.built:
            assert self.strategy is not None
            if strategy is not None and strategy is not self.strategy:
                raise ValueError("the model's variables live on the strategy it was built on "
                                 f"({self.strategy!r}), not {strategy!r}")
            return self.strategy
        chosen = strategy or self.strategy or current_strategy() or MirroredStrategy()
        self.strategy = chosen
        return chosen

    def _build(self, strategy: Optional[MirroredStrategy], x: Optional[np.ndarray]) -> None:
        chosen = self._strategy_for(strategy)
        if self.built:
            return
        if self.input_shape is None:
            if x is None or not isinstance(x, np.ndarray) or x.ndim < 2:
                raise ValueError("input_shape: give it to Sequential, or fit on [rows, ...] "
                                 "arrays first")
            self.input_shape = tuple(x.shape[1:])
        self._model = _tandem.model_create(chosen._handle, self.layers, self.activation,
                                           self.dropout, self._features(), self.classes,
                                           self.seed)

    def _features(self) -> int:
        assert self.input_shape is not None
        return int(math.prod(self.input_shape))

    def _rows(self, x: Any, name: str) -> np.ndarray:
        """x checked against input_shape, seen as [rows, features] without a copy."""
        assert self.input_shape is not None
        x = _arrays.features(x, name, self.input_shape)
        return x.reshape(x.shape[0], self._features())

    # ---- training ----------------------------------------------------------------

    def compile(self, optimizer: str = "adam", lr: float = 1e-3,
                loss: str = "sparse_categorical_crossentropy") -> None:
        """Chooses the optimizer ("sgd", "momentum", "nesterov", "adagrad", "rmsprop",
        "adam", "adamw") and its learning rate. The loss is softmax cross-entropy of
        the logits against class indices, the only one ``Sequential`` trains."""
        if loss != "sparse_categorical_crossentropy":
            raise ValueError("loss: only \"sparse_categorical_crossentropy\" (from logits) "
                             "is supported")
        self.optimizer = optimizer
        self.learning_rate = float(lr)
        self._trainer = None

    def fit(self, x: Any, y: Any, epochs: int = 1, batch_size: int = 32,
            strategy: Optional[MirroredStrategy] = None, seed: Optional[int] = None,
            verbose: int = 0) -> History:
        """Trains on x ([rows, *input_shape] float32) and y ([rows] int32 class indices),
        shuffling every epoch (``seed``, else the model's), each global batch of
        ``batch_size`` split over the strategy's replicas. Another fit goes on from
        where this one left the weights and optimizer. Ctrl-C stops it after the step
        in progress (KeyboardInterrupt)."""
        if self.optimizer is None:
            raise RuntimeError("compile() the model before fit()")
        self._build(strategy, x if isinstance(x, np.ndarray) else None)
        x = self._rows(x, "fit: x")
        y = _arrays.labels(y, "fit: y", x.shape[0])
        if int(epochs) < 1 or int(batch_size) < 1:
            raise ValueError("fit: epochs and batch_size must be at least 1")
        assert self.strategy is not None
        if self._trainer is None:
            self._trainer = _tandem.trainer_create(self._model, self.strategy._handle,
                                                   self.optimizer, self.learning_rate,
                                                   self.seed)
        session = _tandem.fit_begin(self._trainer, self.strategy._handle, _arrays.address(x),
                                    _arrays.address(y), x.shape[0], x.shape[1],
                                    self.classes, int(epochs), int(batch_size),
                                    self.seed if seed is None else int(seed))
        history = History()
        for epoch in range(int(epochs)):
            result = _tandem.fit_epoch(session)
            if result is None:
                break
            loss, accuracy = result
            history.epoch.append(epoch)
            history.history["loss"].append(loss)
            history.history["accuracy"].append(accuracy)
            if verbose:
                print(f"epoch {epoch + 1}/{epochs}: loss {loss:.4f}, accuracy {accuracy:.4f}",
                      file=sys.stderr if verbose < 0 else sys.stdout, flush=True)
        _tandem.close(session)
        return history

    # ---- using the model ---------------------------------------------------------

    def evaluate(self, x: Any, y: Any, strategy: Optional[MirroredStrategy] = None
                 ) -> List[float]:
        """[mean loss, accuracy] over x and y, as Keras' evaluate with the accuracy
        metric. Features go in as training saw them: a model file's standardisation
        (saved by ``tandem train``) applies to predict alone."""
        self._build(strategy, x if isinstance(x, np.ndarray) else None)
        x = self._rows(x, "evaluate: x")
        y = _arrays.labels(y, "evaluate: y", x.shape[0])
        loss, accuracy = _tandem.evaluate(self._model, _arrays.address(x), _arrays.address(y),
                                          x.shape[0])
        return [loss, accuracy]

    def predict(self, x: Any, strategy: Optional[MirroredStrategy] = None) -> np.ndarray:
        """The class probabilities [rows, classes] (softmax of the logits) as float32; a
        model trained by squared error gives its outputs as they are."""
        self._build(strategy, x if isinstance(x, np.ndarray) else None)
        x = self._rows(x, "predict: x")
        out = np.empty((x.shape[0], self.classes), dtype=np.float32)
        _tandem.predict(self._model, _arrays.address(x), x.shape[0], _arrays.address(out))
        if self._loss != "softmax_cross_entropy":
            return out
        exp = np.exp(out - out.max(axis=1, keepdims=True))
        return (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)

    def save(self, path: PathLike) -> None:
        """Writes the model file ``tandem train --save`` writes (docs/MODEL_FILES.md):
        architecture and weights; ``tandem predict`` and ``load_model`` read it."""
        if not self.built:
            raise RuntimeError("the model has no weights yet: fit it (or load one) first")
        _tandem.model_save(self._model, os.fspath(path))

    def count_params(self) -> int:
        if not self.built:
            raise RuntimeError("the model is not built yet")
        return int(_tandem.model_info(self._model)[3])


def load_model(path: PathLike, strategy: Optional[MirroredStrategy] = None) -> Sequential:
    """A model from a file of ``Sequential.save`` or ``tandem train --save``, on
    ``strategy`` (else the one whose ``scope()`` is entered, else the default devices'
    MirroredStrategy). Its hidden layers are not described back: predict, evaluate and
    save it; compile() it to train it on."""
    chosen = strategy or current_strategy() or MirroredStrategy()
    handle = _tandem.model_load(chosen._handle, os.fspath(path))
    inputs, outputs, loss, _ = _tandem.model_info(handle)
    model = Sequential(layers=[], input_shape=(inputs,), classes=outputs, strategy=chosen)
    model._model = handle
    model._loss = loss
    return model
