"""Losses with Keras' names, for ``Sequential.compile(loss=...)``.

A loss is named by a string, as Keras names it ("binary_crossentropy", "mse", ...) or
as tandem's model files record it ("sigmoid_cross_entropy", "mean_squared_error",
...), or given as one of these objects, which carry Keras' options: ``from_logits``
for the cross-entropies (a string means ``from_logits=False``) and Huber's ``delta``.
The library lists the losses (``tandem/loss_kinds.def``): ``names()`` gives them.

Every loss works on the output layer's logits: tandem builds that layer linear and
fuses the sigmoid or softmax into the loss, so "probabilities" (``from_logits=False``)
means that ``predict`` applies the sigmoid or softmax, as a Keras model whose output
layer computes it would return.
"""
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from . import _tandem


class LossKind(NamedTuple):
    """One loss of the library: its name (model files'), Keras' alias, and what it
    compares the outputs with."""

    name: str
    alias: str
    takes_classes: bool
    takes_targets: bool


_KINDS: Optional[Dict[str, LossKind]] = None

#: the output each cross-entropy turns its logits into: what predict returns for it
PROBABILITIES = {"softmax_cross_entropy": "softmax", "categorical_cross_entropy": "softmax",
                 "sigmoid_cross_entropy": "sigmoid"}
#: losses of a regression: float targets, metrics mae, rmse, r2
REGRESSION = ("mean_squared_error", "mean_absolute_error", "huber")
#: the loss trained on int32 class indices
SPARSE = "softmax_cross_entropy"


def kinds() -> Dict[str, LossKind]:
    """The library's losses by name, in its order."""
    global _KINDS
    if _KINDS is None:
        _KINDS = {k[0]: LossKind(*k) for k in _tandem.loss_kinds()}
    return _KINDS


def names() -> List[str]:
    """Every name ``compile(loss=)`` takes: each loss's Keras alias and its name."""
    return [n for kind in kinds().values() for n in (kind.alias, kind.name)]


def kind_of(name: str) -> LossKind:
    """The loss a name or alias names; ValueError listing them for another."""
    for kind in kinds().values():
        if name in (kind.name, kind.alias):
            return kind
    listed = ", ".join(f"\"{k.alias}\" (\"{k.name}\")" for k in kinds().values())
    raise ValueError(f"loss: unknown {name!r}: the losses are {listed}, or a "
                     "tandem.losses object")


class Loss:
    """A loss and its options; ``name`` is the library's name for it."""

    name = ""

    def __init__(self, from_logits: bool = False) -> None:
        self.from_logits = bool(from_logits)

    def huber_delta(self) -> float:
        return 0.0

    def __repr__(self) -> str:
        return f"{type(self).__name__}(from_logits={self.from_logits})"


class SparseCategoricalCrossentropy(Loss):
    """Softmax cross-entropy against int32 class indices."""

    name = "softmax_cross_entropy"


class CategoricalCrossentropy(Loss):
    """Softmax cross-entropy against one-hot or soft float32 rows of class
    probabilities."""

    name = "categorical_cross_entropy"


class BinaryCrossentropy(Loss):
    """Sigmoid cross-entropy: each output a yes/no against a float32 target in [0, 1]
    (binary and multi-label)."""

    name = "sigmoid_cross_entropy"


class _Regression(Loss):
    def __init__(self) -> None:
        super().__init__(False)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class MeanSquaredError(_Regression):
    name = "mean_squared_error"


class MeanAbsoluteError(_Regression):
    name = "mean_absolute_error"


class Huber(_Regression):
    """Squared within ``delta`` of the target, absolute beyond it."""

    name = "huber"

    def __init__(self, delta: float = 1.0) -> None:
        super().__init__()
        if not delta > 0:
            raise ValueError(f"Huber: delta must be > 0, not {delta!r}")
        self.delta = float(delta)

    def huber_delta(self) -> float:
        return self.delta

    def __repr__(self) -> str:
        return f"Huber(delta={self.delta})"


def resolve(loss: Any) -> Tuple[LossKind, bool, float]:
    """(the loss's kind, from_logits, Huber's delta or 0) of a name or a Loss object."""
    if isinstance(loss, Loss):
        return kind_of(loss.name), loss.from_logits, loss.huber_delta()
    if isinstance(loss, str):
        return kind_of(loss), False, 0.0
    raise TypeError(f"loss: a name or a tandem.losses object, not {type(loss).__name__}")


__all__ = [
    "BinaryCrossentropy", "CategoricalCrossentropy", "Huber", "Loss", "LossKind",
    "MeanAbsoluteError", "MeanSquaredError", "SparseCategoricalCrossentropy", "kinds", "names",
]
