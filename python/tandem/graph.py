"""Keras' functional way: symbolic tensors that layers are called on.

``x = tandem.Input(shape=(8, 8, 1))`` stands for the model's input; calling a layer
on tensors (``Dense(64, activation="relu")(x)``, ``Concatenate()([a, b])``) gives the
tensor of its output. ``tandem.Model(x, out)`` (or ``tandem.Model([x1, x2], out)``)
writes the graph they form as the library's graph text (docs/MODELS.md), one layer a
line in an order where each reads earlier ones, after the inputs' declarations where
there are several.
"""
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple


class Tensor:
    """A layer's output (or the model's input) in a graph being written down."""

    def __init__(self, layer: Any, inputs: Sequence["Tensor"],
                 shape: Optional[Tuple[int, ...]] = None) -> None:
        self.layer = layer  #: the layer that computes it; None for the model's input
        self.inputs = list(inputs)
        self.shape = shape  #: the model's input's shape (the input's only)

    def __repr__(self) -> str:
        what = "Input" if self.layer is None else type(self.layer).__name__
        return f"<tandem.Tensor of {what}>"


def Input(shape: Sequence[int]) -> Tensor:  # noqa: N802  Keras' name
    """The model's input: ``(features,)``, or an image ``(height, width, channels)``."""
    dims = tuple(int(d) for d in shape)
    if not dims or any(d < 1 for d in dims):
        raise ValueError(f"Input: shape is positive dimensions, not {shape!r}")
    return Tensor(None, [], dims)


def called(layer: Any, inputs: Any) -> Tensor:
    """layer(inputs): a tensor, or a list of them for a merge."""
    given = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if not given or not all(isinstance(t, Tensor) for t in given):
        raise TypeError(f"{type(layer).__name__}: called on tandem tensors (tandem.Input "
                        f"and layers' outputs), not {inputs!r}")
    return Tensor(layer, given)


def graph_text(inputs: Sequence[Tensor], output: Tensor) -> Tuple[str, List[Tensor]]:
    """The graph text from inputs to output, and the layers' tensors in its order (each
    after the ones it reads, the output last); ValueError for a tensor that does not
    come from inputs, or an input the output does not depend on."""
    order: List[Tensor] = []
    several = len(inputs) > 1
    names: Dict[int, str] = {id(t): f"input{k}" if several else "input"
                             for k, t in enumerate(inputs)}
    state: Dict[int, int] = {}  # 1: on the path being walked, 2: written
    used = set()

    def visit(t: Tensor) -> None:
        if t.layer is None and id(t) in names:
            used.add(id(t))
            return
        if state.get(id(t)) == 2:
            return
        if t.layer is None:
            raise ValueError("Model: the output depends on a tandem.Input that is not among "
                             "the model's inputs")
        state[id(t)] = 1
        for i in t.inputs:
            visit(i)
        state[id(t)] = 2
        names[id(t)] = f"l{len(order)}"
        order.append(t)

    visit(output)
    for k, t in enumerate(inputs):
        if id(t) not in used:
            raise ValueError(f"Model: the output does not depend on input {k}; each input "
                             "leads to the output")
    header = [f"input{k} = input({math.prod(t.shape or ())})"
              for k, t in enumerate(inputs)] if several else []
    readers: Dict[int, int] = {}
    for t in order:
        for i in t.inputs:
            readers[id(i)] = readers.get(id(i), 0) + 1
    lines: Dict[int, str] = {}  # each tensor's line, a dropout's rate added to its layer's
    home: Dict[int, int] = {}  # a Flatten's or Dropout's tensor: the tensor whose line it is
    for t in order:
        layer = t.layer
        if type(layer).__name__ in ("Flatten", "Dropout"):
            source = t.inputs[0]
            home[id(t)] = home.get(id(source), id(source))
            names[id(t)] = names[id(source)]
        if type(layer).__name__ == "Flatten":  # a Dense flattens what it reads
            continue
        if type(layer).__name__ == "Dropout":  # the layer it follows drops its outputs
            line = lines.get(home[id(t)], "")
            shared = readers[id(t.inputs[0])] > 1 or readers.get(home[id(t)], 0) > 1
            if (not line.split(" = ")[-1].startswith(("dense", "conv")) or shared
                    or " dropout=" in line):
                raise ValueError("Dropout: tandem drops the outputs of the Dense or Conv2D "
                                 "layer it follows; give it one such layer that nothing else "
                                 "reads")
            lines[home[id(t)]] += f" dropout={layer.rate:g}"
            continue
        act = getattr(layer, "activation", None)
        options = f" {act}" if act and t is not output else ""
        if type(layer).__name__ == "MultiHeadAttention" and layer.dropout:
            options += f" dropout={layer.dropout:g}"  # of its weights
        item = layer.item()  # a dense item is its units alone in a stack; a line names it
        item = f"dense{item}" if item.isdigit() else item
        lines[id(t)] = (f"{names[id(t)]} = {item}"
                        f"({', '.join(names[id(i)] for i in t.inputs)}){options}")
    return "\n".join(header + list(lines.values())), order
