"""Graphs of layers, Keras' functional way: ``tandem.Model``."""
import math
from typing import Any, Optional

from ._keras_args import _OUTPUT_ACTIVATIONS
from .graph import Tensor, graph_text
from .layers import Dense
from .models import Sequential
from .strategy import MirroredStrategy


class Model(Sequential):
    """A graph of layers, Keras' functional way::

        x = tandem.Input(shape=(8, 8, 1))
        a = tandem.layers.Conv2D(16, 3, padding="same", activation="relu")(x)
        b = tandem.layers.Conv2D(8, 1, activation="relu")(x)
        h = tandem.layers.GlobalAveragePooling2D()(tandem.layers.Concatenate()([a, b]))
        out = tandem.layers.Dense(10, activation="softmax")(h)
        model = tandem.Model(x, out)

    Each layer computes its own ``activation`` (linear where none is given, as in
    Keras); the output layer is a ``Dense``, whose activation says what the loss takes
    and ``predict`` returns, as for ``Sequential``. A model of several inputs takes a
    list of them (``tandem.Model([wide, deep], out)``), and ``fit``, ``evaluate`` and
    ``predict`` then take a list of arrays in that order; input 0 may be an image, the
    others are flat. The graph is the library's graph text (``model.spec``); ``compile``,
    ``fit``, ``evaluate``, ``predict``, ``save`` and ``load_model`` work as for
    ``Sequential``. The other arguments are ``Sequential``'s."""

    def __init__(self, inputs: Any, outputs: Any, seed: int = 1,
                 strategy: Optional[MirroredStrategy] = None, mixed_precision: bool = False,
                 f16_activations: bool = False, conv: str = "auto") -> None:
        given = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if not 1 <= len(given) <= 8 or not all(isinstance(t, Tensor) and t.layer is None
                                                for t in given):
            raise ValueError("Model: inputs is a tandem.Input, or a list of 1 to 8 of them, "
                             f"not {inputs!r}")
        if len({id(t) for t in given}) != len(given):
            raise ValueError("Model: an input is given twice")
        output = outputs[0] if isinstance(outputs, (list, tuple)) and len(outputs) == 1 \
            else outputs
        if not isinstance(output, Tensor) or not isinstance(output.layer, Dense):
            raise ValueError("Model: outputs is the output of a Dense layer (the model's "
                             f"output layer), not {outputs!r}")
        head = output.layer.activation or "linear"
        if head not in _OUTPUT_ACTIVATIONS:
            raise ValueError(f"Model: the output layer's activation is one of "
                             f"{', '.join(_OUTPUT_ACTIVATIONS)}, not {head!r}")
        text, _ = graph_text(given, output)
        shapes = [tuple(t.shape or ()) for t in given]
        whole = shapes[0] if len(given) == 1 else (sum(math.prod(s) for s in shapes),)
        super().__init__(layers=text, input_shape=whole, classes=output.layer.units,
                         seed=seed, strategy=strategy, mixed_precision=mixed_precision,
                         f16_activations=f16_activations, conv=conv, output_activation=head)
        self.input_shapes = shapes if len(given) > 1 else None
