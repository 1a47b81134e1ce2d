"""Sequential models: ``tandem.Sequential`` and ``tandem.load_model``."""
import math
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _arrays, _tandem, losses, optimizers
from ._keras_args import (LayerList, _activation, _batch_size, _call, _chain_text, _head,
                          _label_width, _layer_objects, _layer_spec, _lr_kinds, _metrics,
                          _output_layer, _reporting, _split_off, _values)
from ._model_inspection import ModelInspection
from .callbacks import History, StopTraining
from .graph import Tensor
from .layers import Layer
from .progress import ProgressBar
from .strategy import MirroredStrategy, current_strategy

PathLike = Union[str, "os.PathLike[str]"]


class Sequential(ModelInspection):
    """A model of tandem train's layers, trained data-parallel by a strategy: a
    classifier (softmax or sigmoid outputs), a multi-label classifier or a regression,
    as ``compile(loss=)`` chooses.

    ``layers`` are the hidden layers as ``tandem train --layers`` takes them:
    "conv32k3,pool2,conv64k3,pool2,128", or a list of the same items or of
    ``tandem.layers`` objects (``[Conv2D(32, 3), MaxPool2D(2), Dense(128)]``), each of
    which is one such item. Each item is
    ``<units>`` (dense), ``conv<filters>k<size>``, ``pool<size>`` or
    ``maxpool<size>``, ``avgpool<size>``, ``bn``, ``ln``, ``res<layers>``,
    ``emb<vocab>x<units>`` (first only) or ``gap``; a window takes ``s<stride>`` and
    ``valid`` (``conv64k3s2valid``). ``activation`` (relu, tanh, sigmoid, gelu, linear;
    default the one the layer objects name, else relu) follows every dense and
    convolution layer, ``dropout`` every dense one, and an output layer of ``classes``
    units (a regression's outputs) ends the model; where neither ``classes`` nor an
    output layer says how many, the first fit's labels do (the highest class index
    plus one, or the targets' width), never a default. A list may end in that
    output layer as Keras writes it: ``Dense(10, activation="softmax")``, or
    ``Dense(1, activation="sigmoid")`` where ``classes`` is not given.
    ``output_activation`` says the same for a string: "softmax", "sigmoid" or "linear";
    by default the loss's (softmax for the categorical cross-entropies, sigmoid for the
    binary one, linear for a regression). tandem computes the output layer linear
    whatever it says, and fuses the sigmoid or softmax into the loss; it says what the
    loss takes (probabilities, or with ``from_logits=True`` the logits of a linear
    layer) and what ``predict`` returns. ``input_shape`` is ``(features,)`` or, for convolution
    and pooling, an image ``(height, width, channels)`` (``(height, width)``: one
    channel). ``mixed_precision`` computes the dense and convolution layers' matrix
    products with f16 operands and f32 sums, trained with dynamic loss scaling
    (``tandem train --mixed-precision``); ``f16_activations`` also keeps the
    activations between layers in f16 (``--f16-activations``, implying mixed
    precision). ``conv`` chooses the convolutions' algorithm as ``--conv`` does:
    "auto", "direct", "lowered", "measured", "implicit" or "winograd".

    ``per_position`` makes the output layer give each position of the sequence (or
    image) the last hidden layer keeps its ``classes`` outputs: a linear 1x1
    convolution, the output layer of ``tandem train --text`` (``conv256k1``), where a
    Dense layer would flatten the sequence into one example's outputs. Its labels are
    a class per position, y int [rows, positions] (a negative one masks its
    position), for the sparse categorical cross-entropy; ``predict`` gives
    [rows, positions, classes]. A language model over bytes is
    ``Sequential("emb256x128,pos,block4,ln", input_shape=(128,), classes=256,
    per_position=True)`` trained on ``tandem.text_windows``, and ``generate`` continues
    a text with it.

    The variables are created on the strategy of the first fit, evaluate or predict
    (the ``strategy`` given there, else this model's, else the one whose ``scope()``
    is entered, else a MirroredStrategy over the default devices) and stay there.
    """

    def __init__(self, layers: LayerList = "128,64",
                 input_shape: Optional[Sequence[int]] = None, classes: Optional[int] = None,
                 activation: Optional[str] = None, dropout: float = 0.0, seed: int = 1,
                 strategy: Optional[MirroredStrategy] = None,
                 mixed_precision: bool = False, f16_activations: bool = False,
                 conv: str = "auto", output_activation: Optional[str] = None,
                 per_position: bool = False) -> None:
        if not isinstance(layers, str) and layers and isinstance(list(layers)[0], Tensor):
            first = list(layers)[0]  # Keras 3's Sequential([keras.Input(shape), ...])
            if first.layer is not None or input_shape is not None:
                raise ValueError("Sequential: a list may start with a tandem.Input, which "
                                 "gives input_shape; not with another tensor, nor beside "
                                 "input_shape=")
            layers, input_shape = list(layers)[1:], first.shape
        objects = _layer_objects(layers)
        layers, classes, output_activation = _output_layer(layers, classes, output_activation)
        if objects and (activation is not None or dropout):
            raise ValueError("Sequential: layer objects each compute their own activation "
                             "(linear where none is given, as in Keras) and take dropout from "
                             "a tandem.layers.Dropout after them; activation= and dropout= are "
                             "for a string of --layers items")
        #: Keras' list of layer objects, hidden ones (None for a string of items)
        self._chain: Optional[List[Layer]] = list(layers) if objects else None
        #: the output layer gives each position its classes (a 1x1 convolution)
        self.per_position = bool(per_position)
        self.spec = (_chain_text(layers, classes, self.per_position) if objects
                     else _layer_spec(layers))
        #: (kind, item) per hidden layer: ("conv2d", "conv32k3"), ("dense", "128")...
        self.layers: List[Tuple[str, str]] = _tandem.parse_layers(self.spec)
        self.input_shape: Optional[Tuple[int, ...]] = (
            None if input_shape is None else tuple(int(d) for d in input_shape))
        #: a model of several inputs: each one's shape (x is then a list of arrays, their
        #: features side by side); None for a model of one
        self.input_shapes: Optional[List[Tuple[int, ...]]] = None
        self.classes = classes
        #: the output layer's activation as given (None: the loss's)
        self.output_activation = output_activation
        self.activation = "linear" if objects else _activation(layers, activation)
        self.dropout = float(dropout)
        self.seed = int(seed)
        self.strategy = strategy
        self.f16_activations = bool(f16_activations)
        self.mixed_precision = bool(mixed_precision) or self.f16_activations
        self.conv = conv
        self.optimizer: Optional[str] = None
        self.learning_rate = 1e-3
        self.shard_optimizer = False
        self._compiled: Dict[str, Any] = {}  # compile's options beyond the optimizer's name
        self.stop_training = False  #: set by a callback to end fit after the epoch
        # The loss (the library's name; a sigmoid output's until compile says), its
        # options, what predict makes of the logits, and the metrics (None: the task's).
        self._loss = ("sigmoid_cross_entropy" if output_activation == "sigmoid"
                      else losses.SPARSE)
        self._from_logits = False
        self._huber_delta = 1.0
        self._head = output_activation or "softmax"
        self._metric_names: Optional[List[str]] = None
        self._model: Any = None  # the model's handle, once built
        self._pristine = False  # built here and never trained: compile may rebuild it
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

    def _build(self, strategy: Optional[MirroredStrategy], x: Optional[np.ndarray],
               y: Any = None) -> None:
        chosen = self._strategy_for(strategy)
        if self.built:
            return
        if self.classes is None:
            self.classes = self._outputs_of(y)
            if self._chain is not None:
                self.spec = _chain_text(self._chain, self.classes, self.per_position)
                self.layers = _tandem.parse_layers(self.spec)
        if self.input_shape is None:
            if x is None or not isinstance(x, np.ndarray) or x.ndim < 2:
                raise ValueError("input_shape: give it to Sequential, or fit on [rows, ...] "
                                 "arrays first")
            self.input_shape = tuple(x.shape[1:])
        shape = self.input_shapes[0] if self.input_shapes else self.input_shape
        # a sequence given per position is an image of one row, as tandem train --text's
        image = (shape if len(shape) == 3 else (*shape, 1) if len(shape) == 2
                 else (1, shape[0], 1) if self.per_position else None)
        self._model = _tandem.model_create(chosen._handle, self.spec, self.activation,
                                           self.dropout, self._features(), image,
                                           self.classes, self.per_position, self.seed,
                                           self.mixed_precision, self.f16_activations,
                                           self.conv, self._loss, self._huber_delta)
        self._pristine = True

    def _outputs_of(self, y: Any) -> int:
        """The outputs the labels call for, where nothing else says: the highest class
        index plus one (a label per position: of those not masked), or the float targets'
        width."""
        if y is None:
            raise ValueError("classes: the model's outputs are not known: give "
                             "Sequential(classes=) or an output layer, or fit it first")
        if self._loss == losses.SPARSE:
            labels = _arrays.as_classes(y, "labels")
            if labels.ndim > 1:
                labels = labels[labels >= 0]
            if not labels.size or labels.min() < 0:
                raise ValueError("classes: labels that are no class indices tell no count; "
                                 "give Sequential(classes=)")
            return int(labels.max()) + 1
        targets = np.asarray(y)
        return 1 if targets.ndim == 1 else int(targets.shape[-1])

    def _features(self) -> int:
        assert self.input_shape is not None
        return int(math.prod(self.input_shape))

    def _rows(self, x: Any, name: str) -> np.ndarray:
        """x checked against input_shape, seen as [rows, features] without a copy; for a
        model of several inputs, a list of arrays, one per input, side by side."""
        assert self.input_shape is not None
        if self.input_shapes is None:
            x = _arrays.features(x, name, self.input_shape)
            return x.reshape(x.shape[0], self._features())
        count = len(self.input_shapes)
        if not isinstance(x, (list, tuple)) or len(x) != count:
            raise TypeError(f"{name}: a model of {count} inputs takes a list of {count} arrays, "
                            f"one per input in the order of Model's inputs, not "
                            f"{_arrays.describe(x) if isinstance(x, np.ndarray) else type(x)}")
        # copied side by side anyway, so a column slice (x[:, :13]) is taken as it is
        parts = [_arrays.features(np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a,
                                  f"{name}[{k}]", shape)
                 for k, (a, shape) in enumerate(zip(x, self.input_shapes))]
        rows = {p.shape[0] for p in parts}
        if len(rows) != 1:
            raise ValueError(f"{name}: the inputs have {', '.join(str(p.shape[0]) for p in parts)} "
                             "rows; each has one row per example")
        return np.concatenate([p.reshape(p.shape[0], -1) for p in parts], axis=1)

    def _labels(self, y: Any, name: str, rows: int) -> Tuple[np.ndarray, int]:
        """y checked against the loss: (int32 class indices [rows], 0) for the sparse
        cross-entropy, [rows, positions] of them per position (the library checks their
        count against the output's positions); else (float32 targets [rows, outputs],
        outputs); a 1-D y of a 1-output model is seen as [rows, 1]."""
        if self._loss == losses.SPARSE:
            if self.per_position:
                return _arrays.position_labels(y, name, rows), 0
            if np.ndim(y) > 1 and np.size(y) > rows:
                raise ValueError(f"{name}: class indices of shape {np.shape(y)}, one per "
                                 "position, but the model's output layer gives each example "
                                 "its classes: give Sequential(per_position=True), whose "
                                 "output layer gives each position its classes")
            return _arrays.labels(y, name, rows), 0
        alias = losses.kinds()[self._loss].alias
        if (self._loss == "categorical_cross_entropy" and isinstance(y, np.ndarray)
                and y.dtype.kind in "iu" and y.ndim == 1):
            raise TypeError(f"{name}: \"{alias}\" takes one-hot (or soft) float32 rows, "
                            f"shape ({rows}, {self.classes}), got {_arrays.describe(y)}: for "
                            "class indices, use \"sparse_categorical_crossentropy\"")
        return _arrays.targets(y, name, rows, self.classes, alias), self.classes

    # ---- the loss ----------------------------------------------------------------

    @property
    def loss(self) -> str:
        """The loss, by Keras' name ("binary_crossentropy", "mse", ...)."""
        return losses.kinds()[self._loss].alias

    @property
    def metrics_names(self) -> List[str]:
        """What evaluate returns, in its order: "loss", then the metrics."""
        return ["loss", *self._metrics()]

    def _metrics(self) -> List[str]:
        return (_metrics(losses.kinds()[self._loss], None) if self._metric_names is None
                else self._metric_names)

    def _set_loss(self, loss: Any, metrics: Optional[Sequence[str]]) -> None:
        """compile's loss and metrics, checked against the output layer and, where the
        model has weights already, against the loss it was built with."""
        if loss is None:  # the model's: a loaded model's, a sigmoid output's, or sparse
            kind, from_logits = losses.kinds()[self._loss], self._from_logits
            delta = self._huber_delta
        else:
            kind, from_logits, delta = losses.resolve(loss)
            delta = delta or 1.0
        head = _head(kind, from_logits, self.output_activation)
        names = _metrics(kind, metrics) if metrics is not None else None
        if self.built and (kind.name != self._loss or (
                kind.name == "huber" and delta != self._huber_delta)):
            if not self._pristine:
                held = losses.kinds()[self._loss].alias
                if self._loss == "huber":
                    held += f" (delta {self._huber_delta:g})"
                raise ValueError(f"loss: the model's weights were trained or loaded with "
                                 f"loss \"{held}\", which is part of the model: compile it "
                                 f"with that loss (or loss=None), or train a new model")
            _tandem.close(self._model)  # untrained: built again, with the same weights
            self._model = None
        self._loss, self._from_logits, self._huber_delta = kind.name, from_logits, delta
        self._head, self._metric_names = head, names

    # ---- training ----------------------------------------------------------------

    def compile(self, optimizer: Any = "adam", loss: Any = None, loss_weights: Any = None,
                metrics: Optional[Sequence[str]] = None, *, lr: Optional[float] = None,
                learning_rate: Optional[float] = None,
                shard_optimizer: bool = False, lr_decay: str = "none",
                decay_steps: Optional[int] = None, decay_rate: float = 0.96,
                warmup_steps: int = 0, final_lr: float = 0.0,
                global_clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                f16_all_reduce: bool = False, balance: bool = False,
                loss_scale: Optional[float] = None) -> None:
        """Chooses the optimizer ("sgd", "momentum", "nesterov", "adagrad", "rmsprop",
        "adam", "adamw", or a ``tandem.optimizers`` object with its settings), its
        learning rate, the loss and the metrics, in Keras' order ``compile(optimizer,
        loss, loss_weights, metrics)``; the rest are keywords. ``learning_rate``
        (Keras' name) or ``lr``: 1e-3 where neither is given; an optimizer object
        carries its own (and its clipping), and takes neither here.
        ``loss_weights`` is Keras' for models of several outputs; tandem's models have
        one, so only None is taken.

        - ``loss``, by Keras' name or a ``tandem.losses`` object:
          "sparse_categorical_crossentropy" (y int32 class indices [rows]),
          "categorical_crossentropy" (y float32 one-hot or soft rows [rows, classes]),
          "binary_crossentropy" (y float32 in [0, 1], [rows, classes]: binary and
          multi-label), "mse" / "mean_squared_error", "mae" / "mean_absolute_error",
          "huber" (y float32 [rows, classes]; a 1-D y for one output). A string means
          probabilities from the output layer (``from_logits=False``), as in Keras;
          ``tandem.losses.BinaryCrossentropy(from_logits=True)`` takes a linear one's
          logits, ``tandem.losses.Huber(delta=)`` sets the delta. None (default): the
          model's (a loaded model's, a sigmoid output's), else the sparse one. A
          trained or loaded model keeps the loss its weights were trained with.
        - ``metrics``: names from "accuracy" (a classifier's: the fraction of examples
          whose highest output is their class; Keras' binary accuracy for sigmoid
          outputs), "mae", "rmse", "mse", "r2" (a regression's, over every output; Keras'
          names "mean_absolute_error", "root_mean_squared_error", "r2_score" and the
          accuracies' too); None (default): accuracy for a classifier, mae, rmse and r2
          for a regression. fit's History and evaluate give them.

        - ``shard_optimizer`` shards the optimizer's state across the replicas (ZeRO
          stage 1, ``tandem train --shard-optimizer``): the same bits, 1/R of the slots'
          memory per replica.
        - ``lr_decay``: "none"; "cosine" (``--lr-decay cosine``, Keras' CosineDecay with
          ``warmup_steps``: from ``lr`` to ``final_lr`` over ``decay_steps``, by default
          the first fit's steps); "exponential" (``lr * decay_rate ** (step /
          decay_steps)``, ExponentialDecay) or "step" (the exponent floored); steps
          are the optimizer's, over every fit.
        - ``global_clipnorm`` scales the gradients to that global L2 norm at most,
          ``clipvalue`` clips each element into [-clipvalue, clipvalue] (Keras'
          optimizer arguments).
        - ``f16_all_reduce`` sums the gradients across replicas in float16
          (``--f16-all-reduce``), with a loss scale of 32768 unless ``loss_scale`` is
          given; ``loss_scale`` starts dynamic loss scaling at that scale.
        - ``balance`` gives faster devices a larger share of each batch, measured as
          training runs (``--balance``)."""
        if loss_weights is not None:
            raise ValueError("loss_weights: tandem's models have one output, so one loss; "
                             "leave it None")
        if lr is not None and learning_rate is not None and float(lr) != float(learning_rate):
            raise ValueError(f"compile: lr {lr} and learning_rate {learning_rate} are one "
                             "setting: give one")
        rate = learning_rate if learning_rate is not None else lr if lr is not None else 1e-3
        settings: Dict[str, Any] = {}
        if isinstance(optimizer, optimizers.Optimizer):
            given = [name for name, value in (("learning_rate", learning_rate), ("lr", lr),
                                              ("global_clipnorm", global_clipnorm),
                                              ("clipvalue", clipvalue)) if value is not None]
            if given:
                raise ValueError(f"compile: {', '.join(given)}: the optimizer object "
                                 f"{optimizer!r} carries its own: give them to it")
            rate, settings = optimizer.learning_rate, optimizer.settings()
            global_clipnorm, clipvalue = optimizer.global_clipnorm, optimizer.clipvalue
            optimizer = optimizer.name
        elif not isinstance(optimizer, str):
            raise TypeError("optimizer: a name (\"adam\") or a tandem.optimizers object, not "
                            f"{type(optimizer).__name__}")
        if lr_decay not in _lr_kinds():
            raise ValueError(f"lr_decay: one of {', '.join(_lr_kinds())}, not {lr_decay!r}")
        if lr_decay in ("exponential", "step") and decay_steps is None:
            raise ValueError(f"lr_decay=\"{lr_decay}\" needs decay_steps")
        self._set_loss(loss, metrics)
        self.optimizer = optimizer
        self.learning_rate = float(rate)
        self.shard_optimizer = bool(shard_optimizer)
        self._compiled = {
            "lr_decay": lr_decay,
            "decay_steps": None if decay_steps is None else int(decay_steps),
            "decay_rate": float(decay_rate), "warmup_steps": int(warmup_steps),
            "final_lr": float(final_lr), "clip_global_norm": float(global_clipnorm or 0.0),
            "clip_value": float(clipvalue or 0.0), "f16_all_reduce": bool(f16_all_reduce),
            "balance": bool(balance),
            "loss_scale": None if loss_scale is None else float(loss_scale), **settings}
        self._trainer = None

    def _trainer_options(self, steps: int) -> Dict[str, Any]:
        """trainer_create's and serve's keywords; ``steps`` the fit's, for a cosine's
        default length."""
        options = dict(self._compiled)
        if options["loss_scale"] is None:  # mixed precision's and f16 sums' default
            options["loss_scale"] = (
                32768.0 if self.mixed_precision or options["f16_all_reduce"] else 0.0)
        if options["decay_steps"] is None:
            options["decay_steps"] = steps if options["lr_decay"] == "cosine" else 0
        decay = options.pop("lr_decay")
        options["lr_kind"] = "constant" if decay == "none" else decay
        options.update(optimizer=self.optimizer, lr=self.learning_rate, seed=self.seed,
                       shard=self.shard_optimizer)
        return options

    def fit(self, x: Any, y: Any, batch_size: Optional[int] = None, epochs: int = 1,
            verbose: Union[int, str] = "auto", callbacks: Sequence[Any] = (),
            validation_split: float = 0.0,
            validation_data: Optional[Tuple[Any, Any]] = None, shuffle: bool = True,
            initial_epoch: int = 0, *, strategy: Optional[MirroredStrategy] = None,
            seed: Optional[int] = None, checkpoint_dir: Optional[PathLike] = None,
            resume: bool = False) -> History:
        """Trains on x ([rows, *input_shape]) and y (as the loss takes it, see
        ``compile``: [rows] class indices, [rows, positions] of them for a
        ``per_position`` model, or float targets [rows, classes]), in Keras' order: ``fit(x, y, batch_size, epochs, verbose, callbacks, validation_split,
        validation_data, shuffle, initial_epoch)``; tandem's own options are keywords.
        Other dtypes are converted once, as Keras does: features and targets to
        float32, class indices of any integer dtype (or whole floats) to int32.
        Shuffles every epoch (``seed``, else the model's) unless ``shuffle`` is False,
        each global batch of ``batch_size`` (default 32) split over the strategy's
        replicas. Another fit goes on from where this one left the weights and
        optimizer; ``initial_epoch`` numbers its epochs from there to ``epochs``.

        ``validation_split`` holds out that fraction of the rows, the last ones before
        shuffling (Keras' choice), unless ``validation_data`` (x, y) is given; either is
        scored after every epoch (``val_loss`` and ``val_`` each metric). ``callbacks`` are objects with methods of
        ``tandem.Callback``. ``verbose``: "auto" (a progress bar where stdout is a
        terminal, else nothing), 1 (the bar on a terminal, else a line per epoch), 2
        (a line per epoch), 0 (silent). ``checkpoint_dir`` gets a checkpoint at the
        end of every epoch (weights, optimizer slots, the input's position), as
        ``tandem train --checkpoint-dir``; ``resume`` first restores its newest one and
        runs the epochs left of ``epochs``. Ctrl-C stops after the step in progress
        (KeyboardInterrupt), the last checkpoint whole."""
        if self.optimizer is None:
            raise RuntimeError("compile() the model before fit()")
        self._build(strategy, x if isinstance(x, np.ndarray) else None, y)
        x = self._rows(x, "fit: x")
        y, targets = self._labels(y, "fit: y", x.shape[0])
        validation = self._validation(validation_data)
        if validation is None and validation_split:
            x, y, validation = _split_off(x, y, targets, float(validation_split))
        epochs, batch_size = int(epochs), 32 if batch_size is None else int(batch_size)
        initial_epoch = int(initial_epoch)
        if epochs < 1 or batch_size < 1:
            raise ValueError("fit: epochs and batch_size must be at least 1")
        if not 0 <= initial_epoch < epochs or (initial_epoch and resume):
            raise ValueError(f"fit: initial_epoch {initial_epoch} is an epoch before epochs "
                             f"({epochs}), and resume finds its own")
        strategy = self.strategy
        assert strategy is not None
        servers = strategy._servers
        if servers and self._compiled["lr_decay"] != "none":
            raise ValueError("lr_decay: a parameter-server job updates as its workers' "
                             "gradients arrive, so the steps the rate decays over are not "
                             "known in advance")
        rows = x.shape[0]
        if servers and strategy._workers > 1:  # a worker's shard: rows i, i + n, ...
            rows = len(range(strategy._worker_index, rows, strategy._workers))
        options = self._trainer_options(epochs * -(-rows // batch_size))
        self._pristine = False
        if strategy._serving:
            _tandem.serve(self._model, strategy._handle, **options)
            return History()
        if self._trainer is None:
            self._trainer = _tandem.trainer_create(self._model, strategy._handle, **options)
        session, steps, done = _tandem.fit_begin(
            self._trainer, strategy._handle, _arrays.address(x), _arrays.address(y),
            x.shape[0], x.shape[1], self.classes, targets, _label_width(y, targets),
            epochs - initial_epoch,
            batch_size, self.seed if seed is None else int(seed), bool(shuffle),
            None if checkpoint_dir is None else os.fspath(checkpoint_dir), bool(resume))
        try:
            # in a job the chief alone reports, as tandem train's does
            reporting = _reporting(verbose) if strategy._chief else "none"
            return self._epochs(session, range(initial_epoch + done, epochs), steps,
                                validation, list(callbacks), reporting)
        finally:
            _tandem.close(session)
            if servers:  # the train op's goodbye lets the servers' fit return
                _tandem.close(self._trainer)
                self._trainer = None

    def _validation(self, data: Optional[Tuple[Any, Any]]
                    ) -> Optional[Tuple[np.ndarray, np.ndarray, int]]:
        """validation_data as _score takes it: rows, labels, targets."""
        if data is None:
            return None
        if len(data) != 2:
            raise ValueError("validation_data: expected (x, y)")
        xv = self._rows(data[0], "fit: validation_data x")
        return (xv, *self._labels(data[1], "fit: validation_data y", xv.shape[0]))

    def _epochs(self, session: Any, epochs: range, steps: int,
                validation: Optional[Tuple[np.ndarray, np.ndarray, int]], callbacks: List[Any],
                reporting: str) -> History:
        metrics = self._metrics()
        history = History(history={"loss": [], **{m: [] for m in metrics}})
        self.stop_training = False
        logs: Dict[str, float] = {}
        _call(callbacks, "set_model", self)
        _call(callbacks, "on_train_begin", {})
        for epoch in epochs:
            _call(callbacks, "on_epoch_begin", epoch, {})
            bar = ProgressBar(epoch, epochs.stop, steps) if reporting == "bar" else None
            result = _tandem.fit_epoch(session, bar)
            if result is None:
                break
            measured = _values(result[1])
            logs = {"loss": result[0], **{m: measured[m] for m in metrics}}
            if validation is not None:
                scores = self._score(*validation)
                logs.update({f"val_{name}": value
                             for name, value in zip(["loss", *metrics], scores)})
            history.append(epoch, logs, result[2])
            if bar is not None:
                bar.finish(logs)
            elif reporting == "lines":
                print(f"epoch {epoch + 1}/{epochs.stop}: "
                      + ", ".join(f"{k.replace('_', ' ')} {v:.4f}" for k, v in logs.items()),
                      flush=True)
            try:
                if any(_call(callbacks, "on_epoch_end", epoch, dict(logs))):
                    self.stop_training = True
            except StopTraining:
                self.stop_training = True
            if self.stop_training:
                break
        _call(callbacks, "on_train_end", dict(logs))
        return history

    # ---- using the model ---------------------------------------------------------

    def evaluate(self, x: Any, y: Any, batch_size: Optional[int] = None,
                 verbose: Union[int, str] = "auto", return_dict: bool = False, *,
                 strategy: Optional[MirroredStrategy] = None
                 ) -> Union[List[float], Dict[str, float]]:
        """[mean loss, each metric] over x and y (``metrics_names`` says which), as
        Keras' evaluate: [loss, accuracy] for a classifier, [loss, mae, rmse, r2] for a
        regression unless compile named others; with ``return_dict`` a dict of them by
        name. With a label per position (``per_position``), as the library scores them:
        an example's loss is the mean over its positions, a masked one counting 0 (so
        the loss per token where none is masked), and the accuracy is over the positions
        not masked. Features go in as training saw them: a model file's standardisation
        (saved by ``tandem train``) applies to predict alone. ``batch_size`` and
        ``verbose`` are Keras' and change nothing: tandem scores every row in chunks of
        its own, silently, and the scores do not depend on the chunks."""
        _batch_size(batch_size, "evaluate")
        self._build(strategy, x if isinstance(x, np.ndarray) else None, y)
        x = self._rows(x, "evaluate: x")
        scores = self._score(x, *self._labels(y, "evaluate: y", x.shape[0]))
        return dict(zip(self.metrics_names, scores)) if return_dict else scores

    def _score(self, x: np.ndarray, y: np.ndarray, targets: int) -> List[float]:
        """evaluate's scores of rows and labels already checked."""
        values = _values(_tandem.evaluate(self._model, _arrays.address(x), _arrays.address(y),
                                          x.shape[0], targets, _label_width(y, targets)))
        return [values["loss"], *(values[m] for m in self._metrics())]

    def predict(self, x: Any, batch_size: Optional[int] = None,
                verbose: Union[int, str] = "auto", *,
                strategy: Optional[MirroredStrategy] = None) -> np.ndarray:
        """The outputs [rows, classes] as float32 ([rows, positions, classes] per
        position), as the output layer computes them:
        class probabilities (the softmax of the logits) for the categorical
        cross-entropies, each output's probability (the sigmoid of its logit) for the
        binary one, the logits of a linear output layer (``from_logits=True``), a
        regression's values. A NaN or infinite feature raises tandem.NumericError, as
        in fit. ``batch_size`` and ``verbose`` are Keras' and change nothing (tandem
        predicts in chunks of its own, silently)."""
        _batch_size(batch_size, "predict")
        self._build(strategy, x if isinstance(x, np.ndarray) else None)
        x = self._rows(x, "predict: x")
        out = np.empty((x.shape[0], _tandem.model_info(self._model)[1]), dtype=np.float32)
        _tandem.predict(self._model, _arrays.address(x), x.shape[0], _arrays.address(out))
        if self.per_position:
            out = out.reshape(x.shape[0], -1, self.classes)
        if self._head == "sigmoid":  # 1 / (1 + e^-x) without overflowing e^-x
            small = np.exp(-np.abs(out))
            return np.where(out >= 0, 1 / (1 + small), small / (1 + small)).astype(np.float32)
        if self._head != "softmax":
            return out
        exp = np.exp(out - out.max(axis=-1, keepdims=True))
        return (exp / exp.sum(axis=-1, keepdims=True)).astype(np.float32)

    def __call__(self, x: Any) -> np.ndarray:
        """``model(x)``: the outputs for x, as ``predict`` gives them (Keras' call of a
        model on arrays; tandem computes it on the devices, without gradients)."""
        return self.predict(x)

    def generate(self, prompt: Union[str, bytes], tokens: int = 200, temperature: float = 1.0,
                 top_k: int = 0, seed: int = 1) -> Union[str, bytes]:
        """The prompt continued by ``tokens`` bytes of a language model over bytes (one
        that reads a context of byte ids and gives 256 logits for each position:
        ``tandem train --text``'s, or ``per_position=True`` with ``classes=256``),
        drawn as ``tandem generate`` draws them, by the library's
        ``tdm_model_generate``: the model reads the last context bytes so far, and
        each byte is drawn from its logits at the last position read, divided by
        ``temperature`` (0: the likeliest byte), kept to the ``top_k`` likeliest (0:
        all), with splitmix64 seeded by ``seed``, so the same model, prompt and seed
        give the CLI's bytes on every machine. It predicts on the strategy's first
        device. Returns the prompt then the bytes drawn (what the CLI writes, less its
        newline): bytes for a bytes prompt, a str for a str one (encoded as UTF-8,
        decoded back with errors replaced). A prompt of no byte or longer than the
        context, and a model that is no such language model, raise
        tandem.InvalidArgumentError (a ValueError) saying why; Ctrl-C stops it after
        the byte in progress (KeyboardInterrupt)."""
        if not self.built:
            raise RuntimeError("the model has no weights yet: fit it (or load one) first")
        text = prompt.encode("utf-8") if isinstance(prompt, str) else bytes(prompt)
        whole = text + _tandem.generate(self._model, text, int(tokens), float(temperature),
                                        int(top_k), int(seed))
        return whole.decode("utf-8", errors="replace") if isinstance(prompt, str) else whole

    def save(self, path: PathLike) -> None:
        """Writes the model file ``tandem train --save`` writes (docs/MODEL_FILES.md):
        architecture, loss and weights; ``tandem predict`` and ``load_model`` read it."""
        if not self.built:
            raise RuntimeError("the model has no weights yet: fit it (or load one) first")
        _tandem.model_save(self._model, os.fspath(path))

    def export_onnx(self, path: PathLike) -> None:
        """Writes the model as an ONNX model (opset 17, ``tandem export``) computing what
        predict computes: inputs ``input``, ``input1``... of [N, features], standardised
        inside where the model standardises; ``output``, the model's outputs (a
        classifier's logits), and for a classifier ``probabilities``, the softmax or
        sigmoid of them."""
        if not self.built:
            raise RuntimeError("the model has no weights yet: fit it (or load one) first")
        _tandem.model_export_onnx(self._model, os.fspath(path))

    def export(self, filepath: PathLike, format: str = "onnx") -> None:  # noqa: A002
        """Keras 3's export: ``format="onnx"`` is ``export_onnx``; tandem writes no
        TensorFlow SavedModel or OpenVINO format, and says so."""
        if format != "onnx":
            raise ValueError(f"export: tandem writes format=\"onnx\" (export_onnx), not "
                             f"{format!r}; model.save writes tandem's own model file")
        self.export_onnx(filepath)


def load_model(path: PathLike, strategy: Optional[MirroredStrategy] = None) -> Sequential:
    """A model from a file of ``Sequential.save`` or ``tandem train --save``, on
    ``strategy`` (else the one whose ``scope()`` is entered, else the default devices'
    MirroredStrategy). Its hidden layers are not described back: predict, evaluate and
    save it; compile() it to train it on (its loss is the file's). predict returns what
    the loss makes of the outputs: softmax probabilities for the categorical
    cross-entropies, sigmoid probabilities for the binary one (also for a model trained
    ``from_logits=True``: the file records the loss, not the output layer's
    activation), a regression's values. A model whose output has several positions
    (``tandem train --text``'s) is seen as ``per_position``: ``classes`` for each
    position, predict's [rows, positions, classes], a label per position."""
    chosen = strategy or current_strategy() or MirroredStrategy()
    handle = _tandem.model_load(chosen._handle, os.fspath(path))
    inputs, outputs, loss, _, delta, widths, positions = _tandem.model_info(handle)
    model = Sequential(layers="", input_shape=(inputs,), classes=outputs // positions,
                       strategy=chosen, per_position=positions > 1)
    if len(widths) > 1:  # x a list of arrays, one per input
        model.input_shapes = [(w,) for w in widths]
    model._model = handle
    model._loss = loss
    model._head = losses.PROBABILITIES.get(loss, "linear")
    model._huber_delta = delta
    return model
