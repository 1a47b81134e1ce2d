"""Arrays between numpy and tandem: checked, and copied only where Keras converts.

The extension is built against CPython's stable ABI from 3.9, whose limited API has
no buffer protocol (it arrived in 3.11), so the package checks each array here and
hands the extension its data address (numpy's ``__array_interface__``). A model's
data (``features``, ``labels``, ``targets``) is converted once, as Keras converts it:
features and targets of any real dtype or layout to C-contiguous float32, class
indices of any integer dtype (or floats that are whole numbers, as ``np.loadtxt``
gives them) to int32. Anything else (the collectives' arrays, which tandem reads and
writes in place) is refused with a message naming its dtype and shape rather than
copied behind the caller's back.
"""
from typing import Any, Sequence, Tuple

import numpy as np

FLOAT32 = np.dtype(np.float32)
FLOAT16 = np.dtype(np.float16)  # IEEE binary16, as tandem stores f16
INT32 = np.dtype(np.int32)
# tdm_dtype values, as <tandem/tensor.h> numbers them.
DTYPE_CODES = {FLOAT32: 0, INT32: 1, FLOAT16: 3}
# What crosses devices: every dtype a device tensor holds from the host.
DEVICE_DTYPES = [FLOAT32, FLOAT16, INT32]


def describe(array: Any) -> str:
    """``float64 array of shape (3, 4)``, or the type of what is no array."""
    if isinstance(array, np.ndarray):
        return f"{array.dtype} array of shape {array.shape}"
    return f"{type(array).__name__}"


def checked(array: Any, name: str, dtypes: Sequence[np.dtype]) -> np.ndarray:
    """``array`` itself when it is a C-contiguous, aligned ndarray of one of ``dtypes``.

    Python lists and scalars (which have no memory to share) are converted to the
    first dtype; an ndarray of another dtype or layout raises TypeError or ValueError.
    """
    if not isinstance(array, np.ndarray):
        try:
            return np.ascontiguousarray(array, dtype=dtypes[0])
        except (TypeError, ValueError) as error:
            raise TypeError(f"{name}: expected a {dtypes[0]} array, got {describe(array)}"
                            ) from error
    wanted = " or ".join(str(d) for d in dtypes)
    if array.dtype not in dtypes:
        raise TypeError(f"{name}: expected a {wanted} array, got {describe(array)} "
                        f"(convert it with .astype(np.{dtypes[0]}))")
    if not array.flags.c_contiguous or not array.flags.aligned:
        raise ValueError(f"{name}: expected a C-contiguous {wanted} array, got a "
                         f"non-contiguous {describe(array)} (np.ascontiguousarray copies it)")
    return array


def address(array: np.ndarray) -> int:
    """The address of the array's first element."""
    return int(array.__array_interface__["data"][0])


def as_float32(x: Any, name: str) -> np.ndarray:
    """x as a C-contiguous float32 array: itself where it is one, else converted once
    (float64, float16, integers, booleans; any layout)."""
    if isinstance(x, np.ndarray) and x.dtype.kind not in "fiub":
        raise TypeError(f"{name}: expected numbers, got {describe(x)}")
    try:
        return np.ascontiguousarray(x, dtype=FLOAT32)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name}: expected numbers, got {describe(x)}") from error


def as_classes(y: Any, name: str) -> np.ndarray:
    """y as C-contiguous int32 class indices: integers of any width in int32's range,
    or floats that are whole numbers, converted once."""
    y = np.asarray(y)
    if y.dtype.kind == "f" and y.size and not np.all(np.isfinite(y) & (y == np.round(y))):
        raise TypeError(f"{name}: class indices are whole numbers, got {describe(y)} with "
                        "fractions or non-finite values (a float target takes a loss of "
                        "targets, such as \"mse\" or \"categorical_crossentropy\")")
    if y.dtype.kind not in "iuf" and y.dtype != np.bool_:
        raise TypeError(f"{name}: expected integer class indices, got {describe(y)}")
    info = np.iinfo(np.int32)
    if y.size and (y.min() < info.min or y.max() > info.max):
        raise ValueError(f"{name}: class indices from {y.min()} to {y.max()} do not fit int32")
    return np.ascontiguousarray(y, dtype=INT32)


def features(x: Any, name: str, input_shape: Tuple[int, ...]) -> np.ndarray:
    """x as [rows, *input_shape] float32, converted once where it is another dtype."""
    x = as_float32(x, name)
    if x.ndim != len(input_shape) + 1 or tuple(x.shape[1:]) != tuple(input_shape):
        raise ValueError(f"{name}: expected shape (rows, {', '.join(map(str, input_shape))}), "
                         f"got {describe(x)}")
    if x.shape[0] < 1:
        raise ValueError(f"{name}: no rows ({describe(x)})")
    return x


def labels(y: Any, name: str, rows: int) -> np.ndarray:
    """y as [rows] int32 class indices, converted once where they are other integers."""
    y = as_classes(y, name)
    if y.shape != (rows,):
        raise ValueError(f"{name}: expected {rows} int32 class indices, shape ({rows},), "
                         f"got {describe(y)}")
    return y


def position_labels(y: Any, name: str, rows: int) -> np.ndarray:
    """y [rows, positions...] as [rows, positions] int32 class indices, one per position
    of a model's output (a negative one masks its position), converted once where they
    are other integers."""
    y = as_classes(y, name)
    if y.ndim < 2 or y.shape[0] != rows or not y.size:
        raise ValueError(f"{name}: expected {rows} rows of int32 class indices, one per "
                         f"position, shape ({rows}, positions), got {describe(y)}")
    return y.reshape(rows, -1)


def targets(y: Any, name: str, rows: int, width: int, loss: str) -> np.ndarray:
    """y as [rows, width] float32 targets of ``loss``, converted once where they are
    another dtype; a 1-D y of ``rows`` where ``width`` is 1 is seen as [rows, 1]."""
    y = as_float32(y, name)
    if y.ndim == 1 and width == 1 and y.shape[0] == rows:
        y = y.reshape(rows, 1)
    if y.shape != (rows, width):
        also = f" or ({rows},)" if width == 1 else ""
        raise ValueError(f"{name}: \"{loss}\" takes float32 targets of shape ({rows}, {width})"
                         f"{also}, one per output of the model, got {describe(y)}")
    return y
