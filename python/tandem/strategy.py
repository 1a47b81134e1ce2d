"""Distribution strategies: ``tandem.MirroredStrategy``, ``tandem.OneDeviceStrategy``,
``tandem.MultiWorkerMirroredStrategy`` and ``tandem.ParameterServerStrategy``."""
import contextlib
import contextvars
from typing import Any, Iterator, List, Optional, Sequence, Union

import numpy as np

from . import _arrays, _tandem
from .devices import Device
from .devices import devices as all_devices

# tdm_reduce_op values, as <tandem/strategy.h> numbers them.
_REDUCE_OPS = {"sum": 0, "mean": 1, "max": 2, "min": 3}

_current: "contextvars.ContextVar[Optional[MirroredStrategy]]" = contextvars.ContextVar(
    "tandem_strategy", default=None)


#: Devices by id ("opencl:0") or Device: a list of them, or one alone; None for the
#: defaults.
Devices = Optional[Union[str, Device, Sequence[Union[str, Device]]]]


class MirroredStrategy:
    """One replica per device, synchronous, variables mirrored (``tf.distribute.MirroredStrategy``).

    ``devices`` are ids as ``tandem.devices()`` gives them ("opencl:0", "vulkan:0") or
    Device objects, a list or one alone; None takes the default devices (each piece of
    hardware once: the GPUs, else one CPU driver's devices, else the reference
    device). ``split=N`` makes each of them N logical devices, each with its own queue
    and an equal share of the memory, and a replica on each (TF's logical device
    configuration): several replicas on one card, or two on one CPU driver for
    testing. Their ids are the device's with "/i" ("vulkan:0/1").
    """

    _kind = "mirrored"
    _closed = True  # until _open succeeds

    def __init__(self, devices: Devices = None,
                 split: int = 1) -> None:
        ids = _ids(devices)
        if ids is None and split != 1:
            ids = [d.id for d in all_devices() if d.default]
        self._open(ids, None, 0, split)

    def _open(self, ids: Optional[List[str]], ps_ids: Optional[List[str]],
              ps_processes: int, split: int = 1) -> None:
        self._handle = _tandem.strategy(self._kind, ids, ps_ids, ps_processes, int(split))
        self._devices: List[str] = _tandem.strategy_devices(self._handle, False)
        (self._replicas, self._workers, self._worker_index, self._chief, self._servers,
         self._serving) = _tandem.strategy_info(self._handle)
        self._closed = False

    @property
    def devices(self) -> List[str]:
        """This process's replicas' device ids, in replica order."""
        return list(self._devices)

    @property
    def num_replicas_in_sync(self) -> int:
        """Replicas over every process of the job (this process's alone, mirrored)."""
        return self._replicas

    @property
    def closed(self) -> bool:
        return self._closed

    def all_reduce(self, arrays: Sequence[Any], op: str = "sum") -> List[np.ndarray]:
        """Reduces one array per replica across the devices; every replica's result.

        ``arrays[i]`` goes to this process's replica i. They share one shape and dtype
        (float32; or float16 of an even size, summed only, folding in float32 and
        rounding once per fold; the library reduces no int32 across devices and says
        so). ``op`` is
        "sum", "mean" (the sum divided by the number of replicas), "max" or "min"; every
        replica's result holds the same values, folded in replica order.
        """
        parts = self._per_replica(arrays, "all_reduce")
        outputs = [np.empty_like(parts[0]) for _ in parts]
        self._collective(0, _reduce_op(op, "all_reduce"), parts, outputs)
        return outputs

    def all_gather(self, arrays: Sequence[Any]) -> List[np.ndarray]:
        """Every replica's array concatenated along the first axis in replica order
        (``strategy.gather(value, axis=0)``), a copy on each replica: shape
        ``(num_replicas_in_sync * n, ...)`` from arrays of shape ``(n, ...)``. float32."""
        parts = self._per_replica(arrays, "all_gather", ndim=1)
        shape = (parts[0].shape[0] * self._replicas, *parts[0].shape[1:])
        outputs = [np.empty(shape, parts[0].dtype) for _ in parts]
        self._collective(1, 0, parts, outputs)
        return outputs

    def reduce_scatter(self, arrays: Sequence[Any], op: str = "sum") -> List[np.ndarray]:
        """Reduces the arrays as ``all_reduce`` does and gives replica i the i-th of
        ``num_replicas_in_sync`` equal slices along the first axis, whose length must be
        a multiple of the replica count (pad it). float32."""
        reduce = _reduce_op(op, "reduce_scatter")
        parts = self._per_replica(arrays, "reduce_scatter", ndim=1)
        if parts[0].shape[0] % self._replicas:
            raise ValueError(f"reduce_scatter: the first axis ({parts[0].shape[0]}) must be a "
                             f"multiple of the {self._replicas} replicas: pad it")
        shape = (parts[0].shape[0] // self._replicas, *parts[0].shape[1:])
        outputs = [np.empty(shape, parts[0].dtype) for _ in parts]
        self._collective(2, reduce, parts, outputs)
        return outputs

    def broadcast(self, array: Any) -> List[np.ndarray]:
        """Copies one array from replica 0's device to every replica's; each copy read
        back. In a multi-worker job every process receives the chief's array."""
        source = _arrays.checked(array, "broadcast", _arrays.DEVICE_DTYPES)
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
        return f"{type(self).__name__}(devices={self._devices!r}{state})"

    def _collective(self, kind: int, op: int, parts: List[np.ndarray],
                    outputs: List[np.ndarray]) -> None:
        _tandem.collective(self._handle, kind, op, _arrays.DTYPE_CODES[parts[0].dtype],
                           parts[0].size, outputs[0].size, [_arrays.address(p) for p in parts],
                           [_arrays.address(o) for o in outputs])

    def _per_replica(self, arrays: Sequence[Any], what: str, ndim: int = 0
                     ) -> List[np.ndarray]:
        if isinstance(arrays, np.ndarray) or len(arrays) != len(self._devices):
            raise ValueError(f"{what}: expected a list of {len(self._devices)} arrays, one per "
                             f"replica ({', '.join(self._devices)})")
        parts = [_arrays.checked(a, f"{what}: replica {i}'s array",
                                 _arrays.DEVICE_DTYPES) for i, a in enumerate(arrays)]
        for i, part in enumerate(parts[1:], 1):
            if part.shape != parts[0].shape or part.dtype != parts[0].dtype:
                raise ValueError(f"{what}: replica {i}'s array is a {_arrays.describe(part)}, "
                                 f"replica 0's a {_arrays.describe(parts[0])}: they must match")
        if parts[0].ndim < ndim:
            raise ValueError(f"{what}: expected arrays of at least one axis, got a "
                             f"{_arrays.describe(parts[0])}")
        return parts


class MultiWorkerMirroredStrategy(MirroredStrategy):
    """Mirrored across the processes of an MPI job (``tf.distribute.MultiWorkerMirroredStrategy``).

    Every process started by ``mpirun`` creates it with its own devices (None: its
    default devices); the replicas are the job's, rank 0's first, and every
    collective and training step spans every process, which must make the same calls
    in the same order. Needs libtandem_mpi (built where Open MPI is installed): a
    tandem.UnsupportedError says so where it is missing. A process outside mpirun is
    a job of one.
    """

    _kind = "multi-worker"

    @property
    def num_workers(self) -> int:
        """Processes of the job."""
        return self._workers

    @property
    def worker_index(self) -> int:
        """This process's index among them (its MPI rank); 0 is the chief."""
        return self._worker_index

    @property
    def is_chief(self) -> bool:
        """Whether this process is the chief, which alone writes checkpoints."""
        return self._chief


class OneDeviceStrategy(MirroredStrategy):
    """One replica on one device (``tf.distribute.OneDeviceStrategy("/gpu:0")``):
    ``tandem.OneDeviceStrategy("opencl:0")``."""

    _kind = "one-device"

    def __init__(self, device: Union[str, Device]) -> None:
        self._open(_ids([device]), None, 0)


class ParameterServerStrategy(MultiWorkerMirroredStrategy):
    """Variables kept and updated by parameter servers (``tf.distribute.experimental.
    ParameterServerStrategy``), in two forms.

    In one process, ``ParameterServerStrategy(devices, ps_devices=[...])``: a replica
    per device of ``devices``, each variable kept and updated on one of ``ps_devices``
    (default: the first of ``devices``), round-robin; training is synchronous and
    gives mirrored training's results.

    Under ``mpirun``, ``ParameterServerStrategy(devices, ps_processes=N)``: the last N
    processes of the job are servers (``is_parameter_server``), each keeping some of
    the variables on its first device; the others are workers, each training on its
    devices and its shard of the arrays given to ``fit`` (worker i of n takes the rows
    i, i + n, ...), sending each step's gradients to the servers and taking the new
    values back without waiting for the other workers. Every process runs the same
    script: on a server, ``fit`` serves the workers until each has finished its own
    ``fit`` and returns an empty History; the chief (worker 0) alone reports and
    writes checkpoints. ``devices`` None takes the default devices.
    """

    _kind = "parameter-server"

    def __init__(self, devices: Devices = None,
                 ps_devices: Devices = None,
                 ps_processes: int = 0) -> None:
        if ps_devices is not None and ps_processes:
            raise ValueError("ParameterServerStrategy: ps_devices (in one process) and "
                             "ps_processes (an MPI job) exclude each other")
        ids = _ids(devices)
        if ids is None:
            ids = [d.id for d in all_devices() if d.default]
        self._open(ids, _ids(ps_devices), int(ps_processes))

    @property
    def parameter_devices(self) -> List[str]:
        """In one process, the devices that keep the variables (``ps_devices``); none
        in a job, whose servers are processes."""
        return _tandem.strategy_devices(self._handle, True)

    @property
    def num_parameter_servers(self) -> int:
        """Server processes of the job (0 in one process)."""
        return self._servers

    @property
    def is_parameter_server(self) -> bool:
        """Whether this process is one of the job's servers."""
        return self._serving

    @property
    def parameter_server_job(self) -> bool:
        """Whether the servers are processes of an MPI job (``ps_processes``)."""
        return self._servers > 0


def _ids(devices: Devices) -> Optional[List[str]]:
    """The device ids: of a list, or of one id or Device given alone ("opencl:0")."""
    if devices is None:
        return None
    if isinstance(devices, (str, Device)):
        devices = [devices]
    return [d.id if isinstance(d, Device) else str(d) for d in devices]


def _reduce_op(op: str, what: str) -> int:
    if op not in _REDUCE_OPS:
        raise ValueError(f"{what}: op must be one of {', '.join(_REDUCE_OPS)}, not {op!r}")
    return _REDUCE_OPS[op]


def current_strategy() -> Optional[MirroredStrategy]:
    """The strategy whose ``scope()`` the caller is in, else None."""
    return _current.get()
