"""What Keras-style arguments become in tandem: the layers as model text, the output
layer and loss head, the metrics, label widths, batch sizes, the validation split,
verbose and callbacks (``Sequential`` and ``Model`` read them)."""
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _tandem, losses
from .graph import Tensor, graph_text
from .layers import Conv2D, Dense, Layer

LayerList = Union[str, Sequence[Union[int, str, Layer]]]


def _lr_kinds() -> List[str]:
    """lr_decay's choices: "none" (the library's constant rate), then the library's
    schedules (tandem/lr_kinds.def)."""
    return ["none", *(k for k in _tandem.kind_names("lr") if k != "constant")]


def _layer_spec(layers: LayerList) -> str:
    """The layers as ``tandem train --layers`` takes them: a string as it is, a list
    joined with commas ([128, "bn", Dense(64)] is "128,bn,64")."""
    return layers if isinstance(layers, str) else ",".join(str(item) for item in layers)


#: what an output layer may compute: the logits themselves, or probabilities
_OUTPUT_ACTIVATIONS = ("linear", "sigmoid", "softmax")

# compile(metrics=)'s names, Keras' among them, and the metric each gives; the history
# and the logs use the metric's name.
_METRICS = {"accuracy": "accuracy", "acc": "accuracy", "binary_accuracy": "accuracy",
            "categorical_accuracy": "accuracy", "sparse_categorical_accuracy": "accuracy",
            "mae": "mae", "mean_absolute_error": "mae", "rmse": "rmse",
            "root_mean_squared_error": "rmse", "mse": "mse", "mean_squared_error": "mse",
            "r2": "r2", "r2_score": "r2"}
_REGRESSION_METRICS = ["mae", "rmse", "r2"]


def _output_layer(layers: LayerList, classes: Optional[int], output_activation: Optional[str]
                  ) -> Tuple[LayerList, Optional[int], Optional[str]]:
    """(the hidden layers, the output layer's units or None, its activation or None) as
    Sequential's arguments give them: a list may end in Keras' output layer, a Dense
    whose activation is "softmax" (never a hidden one's) or, where ``classes`` is not
    given, "sigmoid" or "linear" (a regression's ``Dense(1, activation="linear")``)."""
    last = None if isinstance(layers, str) or not layers else list(layers)[-1]
    # Keras' Sequential of layer objects ends in its output layer, linear by default
    keras = _layer_objects(layers) and classes is None and last.activation in (None, "linear")
    if isinstance(last, Dense) and (last.activation == "softmax" or keras or (
            last.activation in ("sigmoid", "linear") and classes is None)):
        if output_activation not in (None, last.activation):
            raise ValueError(f"output_activation: {output_activation!r}, but the output layer "
                             f"{last!r} computes {last.activation}")
        if classes is not None and int(classes) != last.units:
            raise ValueError(f"classes: {classes}, but the output layer {last!r} has "
                             f"{last.units} units")
        return list(layers)[:-1], last.units, last.activation or "linear"
    if output_activation not in (None, *_OUTPUT_ACTIVATIONS):
        raise ValueError(f"output_activation: one of {', '.join(_OUTPUT_ACTIVATIONS)}, not "
                         f"{output_activation!r}")
    return layers, None if classes is None else int(classes), output_activation


# tandem.losses' class of each cross-entropy, for messages
_LOSS_CLASSES = {"softmax_cross_entropy": "SparseCategoricalCrossentropy",
                 "categorical_cross_entropy": "CategoricalCrossentropy",
                 "sigmoid_cross_entropy": "BinaryCrossentropy"}


def _head(kind: losses.LossKind, from_logits: bool, output_activation: Optional[str]) -> str:
    """What predict makes of the logits for this loss and output layer: "softmax",
    "sigmoid" or "linear" (the logits or a regression's values as they are); ValueError
    for an output layer the loss does not take."""
    wanted = losses.PROBABILITIES.get(kind.name)
    if wanted is None:
        if output_activation not in (None, "linear"):
            raise ValueError(f"loss \"{kind.alias}\" is a regression's: its output layer "
                             f"is linear, its values the predictions, but this one computes "
                             f"{output_activation}: leave the output layer linear, or train "
                             "probabilities with a cross-entropy")
        return "linear"
    if from_logits:
        if output_activation not in (None, "linear"):
            raise ValueError(f"loss \"{kind.alias}\" with from_logits=True takes the output "
                             f"layer's logits, but it computes {output_activation}: make it "
                             "linear, or leave from_logits False")
        return "linear"
    if output_activation in (None, wanted):
        return wanted
    if output_activation == "linear":
        raise ValueError(f"loss \"{kind.alias}\" takes probabilities, and a linear output "
                         f"layer gives logits: give the output layer activation=\"{wanted}\", "
                         f"or the loss from_logits=True (tandem.losses."
                         f"{_LOSS_CLASSES[kind.name]}(from_logits=True))")
    if wanted == "sigmoid":
        raise ValueError(f"loss \"{kind.alias}\" scores each output on its own, through a "
                         f"sigmoid; a {output_activation} output layer makes the outputs one "
                         "distribution: use activation=\"sigmoid\", or "
                         "\"categorical_crossentropy\" for a softmax")
    raise ValueError(f"loss \"{kind.alias}\" scores a softmax distribution over the outputs; "
                     f"a {output_activation} output layer scores each on its own: use "
                     "activation=\"softmax\", or \"binary_crossentropy\" for sigmoid outputs")


def _metrics(kind: losses.LossKind, requested: Optional[Sequence[str]]) -> List[str]:
    """The metrics' names for this loss: the task's (accuracy for a classifier, mae,
    rmse and r2 for a regression) where none are requested; ValueError for a name
    tandem does not compute or one that does not fit the task."""
    classifier = kind.name in losses.PROBABILITIES
    fitting = (["accuracy"] if classifier
               else ["mae", "rmse", "mse", "r2"] if kind.name in losses.REGRESSION else [])
    if requested is None:
        return ["accuracy"] if classifier else [m for m in _REGRESSION_METRICS if m in fitting]
    if isinstance(requested, str):
        requested = [requested]
    chosen: List[str] = []
    for name in requested:
        metric = _METRICS.get(name) if isinstance(name, str) else None
        if metric is None:
            raise ValueError(f"metrics: unknown {name!r}: tandem computes "
                             + ", ".join(f"\"{n}\"" for n in _METRICS))
        specific = {"binary_accuracy": ("sigmoid_cross_entropy",),
                    "categorical_accuracy": ("categorical_cross_entropy", "softmax_cross_entropy"),
                    "sparse_categorical_accuracy": ("softmax_cross_entropy",
                                                    "categorical_cross_entropy")}
        if metric not in fitting or kind.name not in specific.get(name, (kind.name,)):
            raise ValueError(f"metrics: {name!r} does not fit loss \"{kind.alias}\", whose "
                             f"metrics are {', '.join(fitting) or 'none'}")
        if metric not in chosen:
            chosen.append(metric)
    return chosen


def _label_width(y: np.ndarray, targets: int) -> int:
    """Class labels per example, as the C side takes them: 1, or one per position of
    the output ([rows, positions])."""
    return 1 if targets or y.ndim == 1 else int(y.shape[1])


def _values(result: Sequence[float]) -> Dict[str, float]:
    """Every metric of an evaluation tuple (loss, accuracy, mae, rmse, r2)."""
    return {"loss": result[0], "accuracy": result[1], "mae": result[2], "rmse": result[3],
            "mse": result[3] * result[3], "r2": result[4]}


def _layer_objects(layers: LayerList) -> bool:
    """Whether the layers are Keras' list of layer objects (each its own activation),
    not items of a --layers string (which share the model's)."""
    return (not isinstance(layers, str) and len(layers) > 0
            and all(isinstance(item, Layer) for item in layers))


def _activation(layers: LayerList, activation: Optional[str]) -> str:
    """The hidden layers' shared activation, for a string or list of items: the one
    given, else the one the layer objects among them name (they must agree), else
    relu."""
    named = set() if isinstance(layers, str) else {
        item.activation for item in layers if isinstance(item, Layer) and item.activation}
    if activation is not None:
        named.add(activation)
    if len(named) > 1:
        raise ValueError("activation: the items of a --layers list share one activation, but "
                         f"these name {', '.join(sorted(named))}: give every layer as a "
                         "tandem.layers object, each with its own activation")
    return named.pop() if named else "relu"


def _chain_text(hidden: Sequence[Layer], classes: Optional[int], per_position: bool) -> str:
    """The graph text of Keras' Sequential of layer objects: each layer reads the one
    before and computes its own activation (linear where it names none), and an output
    layer of ``classes`` units ends it (none where they are not known yet): dense, or
    per position a 1x1 convolution, as the C side appends to a string of items."""
    tensor = Tensor(None, [], None)
    start = tensor
    for layer in hidden:
        tensor = layer(tensor)
    if classes is not None:
        tensor = (Conv2D(classes, 1, padding="same") if per_position else Dense(classes))(tensor)
    if tensor is start:
        raise ValueError("Sequential: a model of no layer: give classes or an output layer")
    return graph_text([start], tensor)[0]


def _batch_size(batch_size: Optional[int], call: str) -> None:
    """Keras' batch_size of evaluate and predict: None or a positive count."""
    if batch_size is not None and int(batch_size) < 1:
        raise ValueError(f"{call}: batch_size must be at least 1, not {batch_size!r}")


def _split_off(x: np.ndarray, y: np.ndarray, targets: int, fraction: float
               ) -> Tuple[np.ndarray, np.ndarray, Tuple[np.ndarray, np.ndarray, int]]:
    """Keras' validation_split: the last fraction of the rows, before any shuffling,
    held out as validation data; the rest trains."""
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"fit: validation_split is a fraction in (0, 1), not {fraction!r}")
    held = int(x.shape[0] * fraction)
    if held < 1 or held >= x.shape[0]:
        raise ValueError(f"fit: validation_split {fraction} of {x.shape[0]} rows leaves "
                         "no rows to train or to validate on")
    keep = x.shape[0] - held
    return x[:keep], y[:keep], (x[keep:], y[keep:], targets)


def _reporting(verbose: Union[int, str]) -> str:
    """How fit reports: "bar" (a progress bar, on a terminal), "lines" or "none"."""
    terminal = sys.stdout.isatty()
    if verbose == "auto":
        return "bar" if terminal else "none"
    if verbose not in (0, 1, 2):
        raise ValueError(f"verbose: \"auto\", 0, 1 or 2, not {verbose!r}")
    return "none" if verbose == 0 else "bar" if verbose == 1 and terminal else "lines"


def _call(callbacks: List[Any], method: str, *args: Any) -> List[Any]:
    """Calls the method on each callback that has it; their results."""
    return [getattr(c, method)(*args) for c in callbacks if hasattr(c, method)]
