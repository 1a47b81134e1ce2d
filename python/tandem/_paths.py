"""Where the files beside libtandem are: the ``tandem`` program and the bundled data,
found from the library this package loaded, in a build tree (all in build/) or an
install (lib/, bin/, share/tandem/)."""
import os
import shutil
from pathlib import Path
from typing import List, Optional

from . import _tandem


def library_dir() -> Optional[Path]:
    """The folder of the libtandem that the extension loaded."""
    path = _tandem.library_path()
    return Path(os.path.realpath(path)).parent if path else None


def _prefixes() -> List[Path]:
    lib = library_dir()
    # build/libtandem.so; PREFIX/lib/libtandem.so; PREFIX/lib/x86_64-linux-gnu/libtandem.so
    return [lib, lib.parent, lib.parent.parent] if lib else []


def cli() -> Optional[str]:
    """The ``tandem`` program: $TANDEM_CLI, else beside the library (its bin/ in an
    install), else the first on PATH; None when there is none."""
    if os.environ.get("TANDEM_CLI"):
        return os.environ["TANDEM_CLI"]
    for prefix in _prefixes():
        for candidate in (prefix / "tandem", prefix / "bin" / "tandem"):
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return shutil.which("tandem")


def bundled(name: str) -> Optional[Path]:
    """A bundled data file (digits.csv.gz, shakespeare.txt.gz) where the library's build
    or install has it."""
    for prefix in _prefixes():
        candidate = prefix / "share" / "tandem" / name
        if candidate.is_file():
            return candidate
    return None
