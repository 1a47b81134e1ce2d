"""tandem: data-parallel training over OpenCL and Vulkan devices, from Python.

A binding of libtandem (the C library) with the names a Keras and tf.distribute
user expects::

    import tandem
    x, y = tandem.load_digits()
    strategy = tandem.MirroredStrategy()          # the default devices
    model = tandem.Sequential("128,64", input_shape=(64,), classes=10)
    model.compile(optimizer="adam", lr=1e-3)
    history = model.fit(x / 16, y, epochs=10, batch_size=64, strategy=strategy)

Arrays go in and out as numpy arrays, read in place (float32 features, int32 class
labels or float32 targets, as the loss takes them); one of another dtype or layout
raises TypeError or ValueError naming it.
A failing library call raises tandem.TandemError (a subclass per status, such as
tandem.InvalidArgumentError) with tandem's message. docs/PYTHON.md has the rest.
"""
from . import _tandem, callbacks, layers, losses, optimizers
from ._tandem import (  # noqa: F401  the error classes, one per status
    BackendError, CancelledError, CorruptDataError, DeviceLostError, InvalidArgumentError,
    InvalidStateError, NotFoundError, NumericError, OutOfMemoryError, RemoteError, TandemError,
    TimeoutError, UnsupportedError)
from .callbacks import Callback, EarlyStopping, StopTraining
from .conformance import conformance
from .datasets import bundled_text, load_csv, load_digits, text_windows
from .devices import Device, devices
from .graph import Input
from .callbacks import History
from .functional import Model
from .models import Sequential, load_model
from .strategy import (MirroredStrategy, MultiWorkerMirroredStrategy, OneDeviceStrategy,
                       ParameterServerStrategy)

__version__ = _tandem.version()  # the loaded library's, which the package was built for

__all__ = [
    "BackendError", "Callback", "CancelledError", "CorruptDataError", "Device",
    "DeviceLostError", "EarlyStopping", "History", "Input", "InvalidArgumentError",
    "InvalidStateError", "MirroredStrategy", "Model", "MultiWorkerMirroredStrategy",
    "NotFoundError",
    "NumericError", "OneDeviceStrategy", "OutOfMemoryError", "ParameterServerStrategy",
    "RemoteError", "Sequential", "StopTraining",
    "TandemError", "TimeoutError", "UnsupportedError", "conformance", "devices", "load_csv",
    "callbacks", "layers", "losses", "optimizers",
    "bundled_text", "load_digits", "load_model", "text_windows",
]
