"""What a built model tells and takes besides training: its weights, a summary,
its counts, and the trainer's state (the loss scale, the learning rate, the replica
rate, the optimizer's bytes); ``Sequential`` inherits it."""
import math
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from . import _arrays, _tandem


class ModelInspection:
    """The weights, summary and trainer state of ``Sequential`` (a mixin: it reads the
    model's handles and builds it through ``Sequential._build``)."""

    def optimizer_slot_bytes(self) -> int:
        """Bytes of optimizer state (Adam's moments...) on each replica's device, once
        fit has run: all of it, or with ``shard_optimizer`` the replica's share."""
        if self._trainer is None:
            raise RuntimeError("the optimizer has no state yet: fit the model first")
        return int(_tandem.trainer_state(self._trainer)[0])

    def loss_scale(self) -> float:
        """Mixed precision's dynamic loss scale now (it halves at each step whose
        gradients overflow f16); 1 without mixed precision."""
        if self._trainer is None:
            raise RuntimeError("the model has not trained yet: fit it first")
        return float(_tandem.trainer_state(self._trainer)[1])

    def current_learning_rate(self) -> float:
        """The learning rate of the next step, as ``lr_decay`` has brought it (before
        the first fit, compile's)."""
        if self._trainer is None:
            if self.optimizer is None:
                raise RuntimeError("the model is not compiled: compile it first")
            return self.learning_rate
        return float(_tandem.trainer_state(self._trainer)[3])

    def set_learning_rate(self, rate: float) -> None:
        """The constant learning rate of every later step (what Keras' callbacks set as
        ``model.optimizer.learning_rate``), between epochs; refused where
        ``compile(lr_decay=)`` gives the rate, and in a parameter-server job (its
        servers' optimizer updates)."""
        if self._compiled.get("lr_decay", "none") != "none":
            raise ValueError(f"set_learning_rate: the rate follows lr_decay="
                             f"\"{self._compiled['lr_decay']}\"; compile without it to set it")
        if self.strategy is not None and self.strategy._servers:
            raise ValueError("set_learning_rate: a parameter-server job's rate is its "
                             "servers' optimizer's, fixed by compile")
        if self._trainer is not None:
            _tandem.trainer_set_learning_rate(self._trainer, float(rate))
        elif not float(rate) > 0 or math.isinf(float(rate)):
            raise ValueError(f"set_learning_rate: a positive finite rate, not {rate!r}")
        self.learning_rate = float(rate)

    def replica_rate(self) -> float:
        """With ``compile(balance=True)``: replica 0's examples per second as last
        measured (0 before the first measurement, and without balance)."""
        if self._trainer is None:
            raise RuntimeError("the model has not trained yet: fit it first")
        return float(_tandem.trainer_state(self._trainer)[4])

    def conv_algorithms(self) -> List[str]:
        """How each convolution layer computes on the first replica's device:
        "direct", "lowered" or "implicit" ("measured" until its first step
        decides), as ``conv`` asked."""
        if not self.built:
            raise RuntimeError("the model is not built yet")
        return [_tandem.model_conv(self._model, index)
                for index, (kind, _) in enumerate(self.layers) if kind == "conv2d"]

    def get_weights(self) -> List[np.ndarray]:
        """Every weight as a new float32 array: the trainable variables in the model's
        order (each layer's kernel before its bias, gamma before beta), then the
        moving statistics (batch norms' mean and variance). Keras interleaves a
        layer's moving statistics with its variables; tandem keeps them after all the
        trainable ones, the order ``set_weights`` takes back."""
        if not self.built:
            raise RuntimeError("the model is not built yet: fit, evaluate or predict first")
        weights = []
        for index, (_, shape) in enumerate(_tandem.model_weights(self._model)):
            value = np.empty(shape, dtype=np.float32)
            _tandem.model_weight(self._model, index, _arrays.address(value), False)
            weights.append(value)
        return weights

    def set_weights(self, weights: Sequence[Any]) -> None:
        """Assigns every weight, in ``get_weights``' order and shapes (any real dtype,
        converted to float32), to every replica's copy."""
        if not self.built:
            raise RuntimeError("the model is not built yet: fit, evaluate or predict first")
        described = _tandem.model_weights(self._model)
        if len(weights) != len(described):
            raise ValueError(f"set_weights: the model has {len(described)} weights, "
                             f"given {len(weights)}")
        values = []
        for (name, shape), given in zip(described, weights):
            value = _arrays.as_float32(given, f"set_weights: {name}")
            if value.shape != tuple(shape):
                raise ValueError(f"set_weights: {name} has shape {tuple(shape)}, given "
                                 f"{_arrays.describe(value)}")
            values.append(value)
        for index, value in enumerate(values):
            _tandem.model_weight(self._model, index, _arrays.address(value), True)

    def summary(self, line_length: int = 72, print_fn: Optional[Callable[[str], Any]] = None
                ) -> None:
        """Prints each layer (its name, as its variables are named, and its item) with
        its weights' count, then the totals, as Keras' summary does (Keras' third
        column is the output shape; tandem's is the layer's item). The model must be
        built: by a fit, evaluate or predict, or by giving input_shape and classes."""
        self._ensure_built("summary")
        weights = _tandem.model_weights(self._model)
        layers = list(self.layers)
        if "=" not in self.spec:  # a stack: the library adds the output layer
            layers.append(("conv2d", f"conv{self.classes}k1") if self.per_position
                          else ("dense", str(self.classes)))
        rows = []
        for index, (kind, item) in enumerate(layers):
            name = f"{kind}{index}"
            count = sum(math.prod(shape) for weight, shape in weights
                        if weight.startswith(name + "/"))
            rows.append((name, item, count))
        frozen = sum(math.prod(shape) for weight, shape in weights if "/moving_" in weight)
        total = sum(math.prod(shape) for _, shape in weights)
        width = max(int(line_length), 40)
        out = print_fn or print
        rule, heavy = "-" * width, "=" * width
        out(f'Model: "{type(self).__name__.lower()}"')
        out(rule)
        out(f"{'Layer':<{width // 3}}{'Item':<{width // 3}}{'Param #':>{width - 2 * (width // 3)}}")
        out(heavy)
        for name, item, count in rows:
            out(f"{name:<{width // 3}}{item:<{width // 3}}{count:>{width - 2 * (width // 3)},}")
        out(heavy)
        out(f"Total params: {total:,}")
        out(f"Trainable params: {total - frozen:,}")
        out(f"Non-trainable params: {frozen:,}")
        out(rule)

    def _ensure_built(self, call: str) -> None:
        """Builds the model where its shapes are known (Keras builds a model given its
        input shape); RuntimeError where a fit must tell them."""
        if not self.built:
            if self.input_shape is None or self.classes is None:
                raise RuntimeError(f"{call}: the model is not built yet: give input_shape "
                                   "and classes (or an output layer), or fit it first")
            self._build(None, None)

    def count_params(self) -> int:
        """The number of weights, the moving statistics among them (Keras')."""
        self._ensure_built("count_params")
        return sum(math.prod(shape) for _, shape in _tandem.model_weights(self._model))
