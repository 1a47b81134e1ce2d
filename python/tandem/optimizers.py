"""Optimizer objects with Keras' names and arguments, for ``compile(optimizer=)``.

Each is one of the library's optimizers (tdm_optimizer_options) with its settings:
``compile(optimizer=tandem.optimizers.Adam(learning_rate=3e-4, beta_2=0.98))``. The
defaults are Keras'. A Keras argument tandem does not have (``amsgrad``, ``ema``, a
learning-rate schedule object) raises, saying what to write instead; the schedules
are ``compile(lr_decay=)``'s.
"""
from typing import Any, Dict, Optional


def _rate(learning_rate: Any) -> float:
    if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)):
        raise TypeError("learning_rate: a number; tandem's schedules are compile's "
                        "lr_decay=\"cosine\", \"exponential\" or \"step\", not "
                        f"{type(learning_rate).__name__}")
    if not learning_rate > 0:
        raise ValueError(f"learning_rate: positive, not {learning_rate!r}")
    return float(learning_rate)


class Optimizer:
    """An optimizer and its settings; ``name`` is the library's kind."""

    name = ""

    def __init__(self, learning_rate: Any, global_clipnorm: Optional[float] = None,
                 clipvalue: Optional[float] = None, clipnorm: Optional[float] = None,
                 **unknown: Any) -> None:
        if unknown:
            raise TypeError(f"{type(self).__name__}: tandem has no {', '.join(unknown)}")
        if clipnorm is not None:
            raise ValueError("clipnorm: tandem clips the global norm of all gradients "
                             "together: give global_clipnorm")
        self.learning_rate = _rate(learning_rate)
        self.global_clipnorm = global_clipnorm
        self.clipvalue = clipvalue

    def settings(self) -> Dict[str, Any]:
        """trainer_create's keywords for this optimizer's own settings."""
        return {}

    def __repr__(self) -> str:
        shown = {"learning_rate": self.learning_rate, **self.settings()}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


class SGD(Optimizer):
    """Gradient descent; with ``momentum`` (and ``nesterov``) the momentum kinds."""

    def __init__(self, learning_rate: Any = 0.01, momentum: float = 0.0,
                 nesterov: bool = False, **rest: Any) -> None:
        super().__init__(learning_rate, **rest)
        if not 0.0 <= float(momentum) <= 1.0:
            raise ValueError(f"SGD: momentum in [0, 1], not {momentum!r}")
        if nesterov and not momentum:
            raise ValueError("SGD: nesterov=True needs a momentum")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)
        self.name = "nesterov" if nesterov else "momentum" if momentum else "sgd"

    def settings(self) -> Dict[str, Any]:
        return {"momentum": self.momentum} if self.momentum else {}


class RMSprop(Optimizer):
    name = "rmsprop"

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, **rest: Any) -> None:
        super().__init__(learning_rate, **rest)
        self.rho, self.momentum = float(rho), float(momentum)
        self.epsilon, self.centered = float(epsilon), bool(centered)

    def settings(self) -> Dict[str, Any]:
        return {"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                "centered": self.centered}


class Adagrad(Optimizer):
    name = "adagrad"

    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, **rest: Any) -> None:
        super().__init__(learning_rate, **rest)
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = float(epsilon)

    def settings(self) -> Dict[str, Any]:
        return {"initial_accumulator": self.initial_accumulator_value, "epsilon": self.epsilon}


class Adam(Optimizer):
    name = "adam"

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False, **rest: Any) -> None:
        super().__init__(learning_rate, **rest)
        if amsgrad:
            raise ValueError(f"{type(self).__name__}: tandem has no AMSGrad variant: leave "
                             "amsgrad=False")
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)

    def settings(self) -> Dict[str, Any]:
        return {"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}


class AdamW(Adam):
    """Adam with decoupled weight decay (scaled by the rate, as Keras')."""

    name = "adamw"

    def __init__(self, learning_rate: Any = 0.001, weight_decay: float = 0.004,
                 **rest: Any) -> None:
        super().__init__(learning_rate, **rest)
        self.weight_decay = float(weight_decay)

    def settings(self) -> Dict[str, Any]:
        return {**super().settings(), "weight_decay": self.weight_decay}


__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD"]
