"""``python3 -m tandem ...``: the ``tandem`` program with the same arguments."""
import os
import subprocess
import sys
from typing import List, Optional

from . import _paths


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    program = _paths.cli()
    if program is None:
        print("python3 -m tandem: the tandem program was not found: not beside libtandem "
              f"({_paths.library_dir()}), nor on PATH; set TANDEM_CLI to its path",
              file=sys.stderr)
        return 127
    try:
        return subprocess.call([program, *args])
    except KeyboardInterrupt:
        return 130
    except OSError as error:
        print(f"python3 -m tandem: cannot run {program}: {os.strerror(error.errno or 0)}",
              file=sys.stderr)
        return 126


if __name__ == "__main__":
    sys.exit(main())
