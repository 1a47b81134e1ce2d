"""Builds tandem._tandem against libtandem (docs/PYTHON.md, "Design").

Where the library comes from, first match wins:
  1. TANDEM_BUILD_DIR: a CMake build tree of this checkout (libtandem.so in it, the
     headers in the checkout's include/);
  2. ../build beside this folder, as ./scripts/setup.sh leaves it;
  3. pkg-config tandem: an installed tandem (cmake --install).
The extension records the library's folder as its run path, so it loads the
libtandem it was built against without LD_LIBRARY_PATH.
"""
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Dict, List

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent


def version() -> str:
    """The project's one version, from the macros of include/tandem/tandem.h."""
    header = (CHECKOUT / "include" / "tandem" / "tandem.h").read_text()
    parts = [re.search(rf"#define TDM_VERSION_{p} (\d+)", header) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts)


def build_tree(path: Path) -> Dict[str, List[str]]:
    if not (path / "libtandem.so").exists():
        raise SystemExit(f"tandem: no libtandem.so in {path}: build tandem first "
                         "(./scripts/setup.sh, or make -C build)")
    return {"include_dirs": [str(CHECKOUT / "include")],
            "library_dirs": [str(path)],
            "runtime_library_dirs": [str(path)]}


def installed() -> Dict[str, List[str]]:
    try:
        cflags = subprocess.run(["pkg-config", "--cflags-only-I", "tandem"], check=True,
                                capture_output=True, text=True).stdout
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "tandem"], check=True,
                                capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        raise SystemExit("tandem: libtandem not found: build it with ./scripts/setup.sh, set "
                         "TANDEM_BUILD_DIR to a build folder, or install it where pkg-config "
                         "finds tandem.pc")
    includes = [flag[2:] for flag in shlex.split(cflags) if flag.startswith("-I")]
    return {"include_dirs": includes, "library_dirs": [libdir], "runtime_library_dirs": [libdir]}


def locate() -> Dict[str, List[str]]:
    if os.environ.get("TANDEM_BUILD_DIR"):
        return build_tree(Path(os.environ["TANDEM_BUILD_DIR"]).resolve())
    if (CHECKOUT / "build" / "libtandem.so").exists():
        return build_tree(CHECKOUT / "build")
    return installed()


def headers(include_dirs: List[str]) -> List[str]:
    """The headers the extension compiles against: a changed one rebuilds every source
    (setuptools compares the objects with these, not only with their own sources)."""
    found = [str(p) for d in include_dirs for p in sorted(Path(d).glob("tandem/*"))]
    return found + [str(p) for p in sorted((HERE / "src").glob("*.h"))]


LIBRARY = locate()
extension = Extension(
    "tandem._tandem",
    sources=[str(Path("src") / name) for name in
             ("module.c", "devices.c", "collectives.c", "model.c", "fit.c", "weights.c")],
    depends=headers(LIBRARY["include_dirs"]),
    libraries=["tandem"],
    define_macros=[("Py_LIMITED_API", "0x03090000")],
    py_limited_api=True,
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Wshadow", "-Wstrict-prototypes",
                        "-Wmissing-prototypes", "-Wno-missing-field-initializers"],
    **LIBRARY,
)

setup(version=version(), ext_modules=[extension],
      options={"bdist_wheel": {"py_limited_api": "cp39"}})
