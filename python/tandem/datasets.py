"""Reading data into numpy arrays: CSV files and the bundled digits."""
import os
from typing import Optional, Tuple, Union

import numpy as np

from . import _paths, _tandem


def load_csv(path: Union[str, "os.PathLike[str]"]) -> Tuple[np.ndarray, np.ndarray]:
    """(x, y) of a CSV file (gzip too) as ``tandem train --data`` reads it by default:
    x [rows, features] float32, y [rows] int32 labels from the last column."""
    x_bytes, y_bytes, rows, features = _tandem.load_csv(os.fspath(path))
    x = np.frombuffer(x_bytes, dtype=np.float32).reshape(rows, features).copy()
    y = np.frombuffer(y_bytes, dtype=np.int32).copy()
    return x, y


def load_digits(path: Optional[Union[str, "os.PathLike[str]"]] = None
                ) -> Tuple[np.ndarray, np.ndarray]:
    """The digits ``tandem train`` trains on by default: 1797 8x8 images as x [1797, 64]
    float32 (pixel values 0 to 16) and y [1797] int32 digits; from ``path``, else
    $TANDEM_DIGITS, else the copy beside the library."""
    found = path or os.environ.get("TANDEM_DIGITS") or _paths.digits()
    if found is None:
        raise FileNotFoundError("the bundled digits (digits.csv.gz) are not beside libtandem "
                                f"({_paths.library_dir()}): pass their path")
    return load_csv(found)
