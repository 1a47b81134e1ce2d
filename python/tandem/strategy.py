"""Distribution strategies: ``tandem.MirroredStrategy``."""
import contextlib
import contextvars
from typing import Any, Iterator, List, Optional, Sequence, Union

import numpy as np

from . import _arrays, _tandem
from .devices import Device

# tdm_reduce_op values, as <tandem/strategy.h> numbers them.
_REDUCE_OPS = {"sum": 0, "mean": 1, "max": 2, "min": 3}

_current: "contextvars.ContextVar[Optional[MirroredStrategy]]" = contextvars.ContextVar(
    "tandem_strategy", default=None)


class MirroredStrategy:
    """One replica per device, synchronous, variables mirrored (``tf.distribute.MirroredStrategy``).

    ``devices`` are ids as ``tandem.devices()`` gives them ("opencl:0", "vulkan:0") or
    Device objects; None takes the default devices (each piece of hardware once: the
    GPUs, else one CPU driver's devices, else the reference device).
    """

    def __init__(self, devices: Optional[Sequence[Union[str, Device]]] = None) -> None:
        ids = None if devices is None else [d.id if isinstance(d, Device) else str(d)
                                            for d in devices]
        self._handle = _tandem.mirrored(ids)
        self._devices: List[str] = _tandem.strategy_devices(self._handle)
        self._closed = False

    @property
    def devices(self) -> List[str]:
        """The replicas' device ids, in replica order."""
        return list(self._devices)

    @property
    def num_replicas_in_sync(self) -> int:
        return len(self._devices)

    @property
    def closed(self) -> bool:
        return self._closed

    def all_reduce(self, arrays: Sequence[Any], op: str = "sum") -> List[np.ndarray]:
        """Reduces one array per replica across the devices; every replica's result.

        ``arrays[i]`` goes to replica i's device. They share one shape and dtype
        (float32: the library reduces no int32 across devices and says so). ``op`` is "sum", "mean"
        (the sum divided by the number of replicas), "max" or "min"; every replica's
        result holds the same values, folded in replica order.
        """
        if op not in _REDUCE_OPS:
            raise ValueError(f"all_reduce: op must be one of {', '.join(_REDUCE_OPS)}, not {op!r}")
        parts = self._per_replica(arrays, "all_reduce")
        outputs = [np.empty_like(parts[0]) for _ in parts]
        _tandem.all_reduce(self._handle, _REDUCE_OPS[op], _arrays.DTYPE_CODES[parts[0].dtype],
                           parts[0].size, [_arrays.address(p) for p in parts],
                           [_arrays.address(o) for o in outputs])
        return outputs

    def broadcast(self, array: Any) -> List[np.ndarray]:
        """Copies one array from replica 0's device to every replica's; each copy read back."""
        source = _arrays.checked(array, "broadcast", [_arrays.FLOAT32, _arrays.INT32])
        outputs = [np.empty_like(source) for _ in self._devices]
        _tandem.broadcast(self._handle, _arrays.DTYPE_CODES[source.dtype], source.size,
                          _arrays.address(source), [_arrays.address(o) for o in outputs])
        return outputs

    @contextlib.contextmanager
    def scope(self) -> Iterator["MirroredStrategy"]:
        """Models built inside the block (by their first fit, evaluate or predict) live on
        this strategy, as Keras models built in ``strategy.scope()`` do."""
        token = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(token)

    def close(self) -> None:
        """Releases the strategy. Calls on it raise tandem.InvalidStateError afterwards;
        models built on it keep working and release it with the last of them."""
        if not self._closed:
            _tandem.close(self._handle)
            self._closed = True

    def __enter__(self) -> "MirroredStrategy":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = ", closed" if self._closed else ""
        return f"MirroredStrategy(devices={self._devices!r}{state})"

    def _per_replica(self, arrays: Sequence[Any], what: str) -> List[np.ndarray]:
        if isinstance(arrays, np.ndarray) or len(arrays) != len(self._devices):
            raise ValueError(f"{what}: expected a list of {len(self._devices)} arrays, one per "
                             f"replica ({', '.join(self._devices)})")
        parts = [_arrays.checked(a, f"{what}: replica {i}'s array",
                                 [_arrays.FLOAT32, _arrays.INT32]) for i, a in enumerate(arrays)]
        for i, part in enumerate(parts[1:], 1):
            if part.shape != parts[0].shape or part.dtype != parts[0].dtype:
                raise ValueError(f"{what}: replica {i}'s array is a {_arrays.describe(part)}, "
                                 f"replica 0's a {_arrays.describe(parts[0])}: they must match")
        return parts


def current_strategy() -> Optional[MirroredStrategy]:
    """The strategy whose ``scope()`` the caller is in, else None."""
    return _current.get()
