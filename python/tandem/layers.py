"""Layer objects with Keras' names, for ``Sequential([...])``.

Each object is one item of ``tandem train --layers`` (``str(layer)``), so a list of
them and the string of their items make the same model, read by the same reader:
``[Conv2D(32, 3), MaxPool2D(2), Dense(128)]`` is ``"conv32k3valid,pool2valid,128"``.
Keras' defaults hold (``padding="valid"``, a pooling stride of its window).

A list of layer objects is Keras' Sequential: each layer computes its own
``activation`` (linear where none is given), ``Dropout`` drops the outputs of the layer
before it, and the last layer is the output layer (unless ``Sequential(classes=)`` adds
one). The same objects called on tensors make a ``Model``.
"""
from typing import Any, Optional, Sequence, Tuple, Union

from .graph import Tensor, called

Size = Union[int, Sequence[int]]


class Layer:
    """One hidden layer; ``str()`` gives its ``--layers`` item."""

    #: the activation that follows it, where it takes one and one was given
    activation: Optional[str] = None

    def item(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.item()

    def __call__(self, inputs: Any) -> Tensor:
        """Keras' functional way: this layer's output on ``inputs`` (tandem.Input or
        another layer's output; a list of them for a merge)."""
        return called(self, inputs)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.item()}>"


def _pair(value: Size, what: str) -> Tuple[int, int]:
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, int) and v > 0 for v in pair):
        raise ValueError(f"{what}: a positive int or a pair of them, not {value!r}")
    return int(pair[0]), int(pair[1])


def _text(pair: Tuple[int, int]) -> str:
    return str(pair[0]) if pair[0] == pair[1] else f"{pair[0]}x{pair[1]}"


def _padding(padding: str) -> str:
    if padding not in ("valid", "same"):
        raise ValueError(f"padding: \"valid\" or \"same\", not {padding!r}")
    return "valid" if padding == "valid" else ""


class Dense(Layer):
    """A dense layer of ``units`` (``"128"``)."""

    def __init__(self, units: int, activation: Optional[str] = None) -> None:
        self.units = int(units)
        self.activation = activation

    def item(self) -> str:
        return str(self.units)


class Flatten(Layer):
    """Keras' flattening of an image into a vector: tandem's Dense layers flatten the
    image they read, so it computes nothing."""

    def item(self) -> str:
        raise ValueError("Flatten: a layer object among tandem.layers objects or in a Model; "
                         "in a string of --layers items a dense layer flattens its image")


class Dropout(Layer):
    """Keras' dropout of ``rate`` in training: tandem drops the outputs of the Dense or
    Conv2D layer it follows (that layer's dropout, ``dropout=RATE`` of its graph
    line), so it follows one, and that layer has no other reader."""

    def __init__(self, rate: float) -> None:
        if not 0.0 <= float(rate) < 1.0:
            raise ValueError(f"Dropout: rate in [0, 1), not {rate!r}")
        self.rate = float(rate)

    def item(self) -> str:
        raise ValueError("Dropout: a layer object among tandem.layers objects or in a Model; "
                         "a string of --layers items takes Sequential(dropout=)")


class Conv2D(Layer):
    """A convolution of ``filters`` windows of ``kernel_size`` (``"conv32k3valid"``)."""

    def __init__(self, filters: int, kernel_size: Size, strides: Size = 1,
                 padding: str = "valid", activation: Optional[str] = None) -> None:
        self.filters = int(filters)
        self.kernel_size = _pair(kernel_size, "Conv2D kernel_size")
        self.strides = _pair(strides, "Conv2D strides")
        self.padding = padding
        self._valid = _padding(padding)
        self.activation = activation

    def item(self) -> str:
        stride = "" if self.strides == (1, 1) else "s" + _text(self.strides)
        return f"conv{self.filters}k{_text(self.kernel_size)}{stride}{self._valid}"


class _Pooling2D(Layer):
    _word = ""

    def __init__(self, pool_size: Size = 2, strides: Optional[Size] = None,
                 padding: str = "valid") -> None:
        self.pool_size = _pair(pool_size, f"{type(self).__name__} pool_size")
        self.strides = self.pool_size if strides is None else _pair(
            strides, f"{type(self).__name__} strides")
        self.padding = padding
        self._valid = _padding(padding)

    def item(self) -> str:
        stride = "" if self.strides == self.pool_size else "s" + _text(self.strides)
        return f"{self._word}{_text(self.pool_size)}{stride}{self._valid}"


class MaxPool2D(_Pooling2D):
    """Max pooling (``"pool2valid"``)."""

    _word = "pool"


class AveragePooling2D(_Pooling2D):
    """Average pooling (``"avgpool2valid"``)."""

    _word = "avgpool"


MaxPooling2D = MaxPool2D
AvgPool2D = AveragePooling2D


class BatchNormalization(Layer):
    """Batch normalisation over the global batch of every replica (``"bn"``)."""

    def item(self) -> str:
        return "bn"


class LayerNormalization(Layer):
    """Layer normalisation over each position's channels (``"ln"``)."""

    def item(self) -> str:
        return "ln"


class GlobalAveragePooling2D(Layer):
    """The mean of each channel over the image (``"gap"``)."""

    def item(self) -> str:
        return "gap"


class Embedding(Layer):
    """An embedding, first only: each feature an id below ``input_dim``, looked up as
    ``output_dim`` values (``"emb256x8"``)."""

    def __init__(self, input_dim: int, output_dim: int) -> None:
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)

    def item(self) -> str:
        return f"emb{self.input_dim}x{self.output_dim}"


class Residual(Layer):
    """A shortcut: the input of the ``layers`` layers before it added to their output
    (ResNet's residual connection; Keras writes it with ``Add``) (``"res2"``)."""

    def __init__(self, layers: int = 2) -> None:
        self.layers = int(layers)

    def item(self) -> str:
        return f"res{self.layers}"


class _Merge(Layer):
    _word = ""

    def item(self) -> str:
        return self._word


class Add(_Merge):
    """The sum of two to eight tensors of one shape (a graph's, ``"add"``)."""

    _word = "add"


class Concatenate(_Merge):
    """Two to eight tensors side by side on the channel axis (a graph's,
    ``"concatenate"``): images of one height and width, or flat vectors."""

    _word = "concatenate"

    def __init__(self, axis: int = -1) -> None:
        if axis != -1:
            raise ValueError(f"Concatenate: tandem joins on the channel axis (-1), not {axis}")


class Multiply(_Merge):
    """The elementwise product of two to eight tensors of one shape (a graph's,
    ``"multiply"``)."""

    _word = "multiply"


__all__ = [
    "Add", "AveragePooling2D", "AvgPool2D", "BatchNormalization", "Concatenate", "Conv2D",
    "Dense", "Dropout", "Flatten", "Embedding", "GlobalAveragePooling2D", "Layer", "LayerNormalization",
    "MaxPool2D", "MaxPooling2D", "Multiply", "Residual",
]


class PositionEmbedding(Layer):
    """Learned positions of a sequence: a vector per position added to it (``"pos"``).
    A sequence is an ``Embedding``'s output, a row of positions of its channels."""

    def item(self) -> str:
        return "pos"


class MultiHeadAttention(Layer):
    """Self-attention of ``num_heads`` heads over a sequence (``"mha4"``): Q, K and V
    from one product, each head's key width the channels / ``num_heads``, the heads'
    outputs projected back. ``causal`` (the default, a language model's mask): each
    position attends to itself and those before it (``"mha4full"`` where not).
    ``dropout`` drops attention weights in training. Keras' layer is called on a
    query and a value; this one on one sequence, which is both."""

    def __init__(self, num_heads: int, causal: bool = True, dropout: float = 0.0) -> None:
        self.num_heads = int(num_heads)
        self.causal = bool(causal)
        self.dropout = float(dropout)
        if self.num_heads < 1 or not 0.0 <= self.dropout < 1.0:
            raise ValueError("MultiHeadAttention: num_heads >= 1 and a dropout rate in [0, 1)")

    def item(self) -> str:
        return f"mha{self.num_heads}{'' if self.causal else 'full'}"


class FeedForward(Layer):
    """A transformer block's MLP over each position's channels: ``units`` hidden units
    with GELU, then back to the channels (``"ffn512"``; ``"ffn"``: four times the
    channels, as GPT's)."""

    def __init__(self, units: Optional[int] = None) -> None:
        self.units = None if units is None else int(units)

    def item(self) -> str:
        return "ffn" if self.units is None else f"ffn{self.units}"


class TransformerBlock(Layer):
    """A pre-norm transformer block (``"block4"``): x + attention(LayerNormalization(x)),
    then y + FeedForward(LayerNormalization(y)), each sum a residual; the attention as
    ``MultiHeadAttention(num_heads, causal, dropout)``, the MLP ``FeedForward(units)``."""

    def __init__(self, num_heads: int, causal: bool = True, dropout: float = 0.0,
                 units: Optional[int] = None) -> None:
        self.attention = MultiHeadAttention(num_heads, causal, dropout)
        self.feed_forward = FeedForward(units)

    def item(self) -> str:
        if self.attention.dropout or self.feed_forward.units is not None:
            raise ValueError("TransformerBlock: a block with dropout or units is a list of "
                             "layer objects' (Sequential([...])), not an item of a string")
        return f"block{self.attention.item()[3:]}"

    def __call__(self, inputs: Any) -> Tensor:
        x = called(self, inputs).inputs[0]  # checks what it is called on
        y = Add()([x, self.attention(LayerNormalization()(x))])
        return Add()([y, self.feed_forward(LayerNormalization()(y))])
