"""Reading data into numpy arrays: CSV files, the bundled digits, and a text's windows
for a language model."""
import os
from pathlib import Path
from typing import Optional, Tuple, Union

import numpy as np

from . import _paths, _tandem


def load_csv(path: Union[str, "os.PathLike[str]"]) -> Tuple[np.ndarray, np.ndarray]:
    """(x, y) of a CSV file (gzip too) as ``tandem train --data`` reads it by default:
    x [rows, features] float32, y [rows] int32 labels from the last column."""
    x, y = _arrays_of(_tandem.load_csv(os.fspath(path)))
    return x, y.reshape(-1)


def _arrays_of(read: Tuple[bytes, bytes, int, int, int]) -> Tuple[np.ndarray, np.ndarray]:
    """x [rows, features] float32 and y [rows, labels per row] int32 of the extension's
    tuple (features, labels, rows, features per row, labels per row), writable copies."""
    x_bytes, y_bytes, rows, features, width = read
    x = np.frombuffer(x_bytes, dtype=np.float32).reshape(rows, features).copy()
    return x, np.frombuffer(y_bytes, dtype=np.int32).reshape(rows, width).copy()


def bundled_text() -> Path:
    """The bundled text ``tandem train --text -`` trains on: the first 700 KB of tiny
    shakespeare (shakespeare.txt.gz, beside the library), for ``text_windows``."""
    found = _paths.bundled("shakespeare.txt.gz")
    if found is None:
        raise FileNotFoundError("the bundled text (shakespeare.txt.gz) is not beside libtandem "
                                f"({_paths.library_dir()})")
    return found


def text_windows(path_or_bytes: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
                 context: int = 128, stride: Optional[int] = None,
                 validation_fraction: float = 0.1
                 ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, x_val, y_val): the windows ``tandem train --text FILE --context N --stride
    S`` trains and validates a language model over bytes on, cut by the library
    (``tdm_dataset_from_text``). A window is ``context + 1`` bytes, one every ``stride``
    (default: the context): x float32 [windows, context] holds its first ``context``
    byte ids, y int32 [windows, context] each position's label, the byte after it.
    The last ``validation_fraction`` of the bytes is held out: the training part ends
    at the largest multiple of the stride not past the other bytes, so no window
    crosses the cut, and x_val, y_val are the windows cut from there. A path (str or path-like) is read as the CLI reads it, a
    gzip file as its contents; bytes are the text itself. An empty text, one with a NUL
    byte (binary, or UTF-16) and one whose training or held-out part is shorter than a
    window raise ``tandem.InvalidArgumentError`` (a ValueError) with the library's
    message; a missing file ``tandem.NotFoundError``."""
    path: Optional[str] = None
    text: Optional[bytes] = None
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        text = bytes(path_or_bytes)
    else:
        path = os.fspath(path_or_bytes)
    context = int(context)
    train, held = _tandem.text_windows(path, text, context,
                                       context if stride is None else int(stride),
                                       float(validation_fraction))
    return (*_arrays_of(train), *_arrays_of(held))


def load_digits(path: Optional[Union[str, "os.PathLike[str]"]] = None
                ) -> Tuple[np.ndarray, np.ndarray]:
    """The digits ``tandem train`` trains on by default: 1797 8x8 images as x [1797, 64]
    float32 (pixel values 0 to 16) and y [1797] int32 digits; from ``path``, else
    $TANDEM_DIGITS, else the copy beside the library."""
    found = path or os.environ.get("TANDEM_DIGITS") or _paths.bundled("digits.csv.gz")
    if found is None:
        raise FileNotFoundError("the bundled digits (digits.csv.gz) are not beside libtandem "
                                f"({_paths.library_dir()}): pass their path")
    return load_csv(found)
