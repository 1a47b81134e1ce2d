"""Builds tandem._tandem against libtandem and carries the library in the package
(docs/PYTHON.md, "Install").

Where the library comes from, first match wins:
  1. TANDEM_BUILD_DIR: a CMake build tree of this checkout;
  2. ../build beside this folder, as ./scripts/setup.sh leaves it;
  3. pkg-config tandem: an installed tandem (cmake --install), linked where it lies;
  4. none of these: CMake builds libtandem from this checkout into build/libtandem/.
A build tree's install (libtandem, libtandem_mpi where built, the tandem program and
the bundled data) is copied into the package as tandem/_lib/, and the extension finds
it there through its run path ($ORIGIN), so a wheel installs on a machine without the
checkout.
"""
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Union

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
BUNDLE = "_lib"  # tandem/_lib/{lib,bin,share}: a build tree's install, in the package


def version() -> str:
    """The project's one version, from the macros of include/tandem/tandem.h."""
    header = (CHECKOUT / "include" / "tandem" / "tandem.h").read_text()
    parts = [re.search(rf"#define TDM_VERSION_{p} (\d+)", header) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts)


def run(command: List[str]) -> None:
    print("tandem:", " ".join(shlex.quote(c) for c in command), flush=True)
    subprocess.run(command, check=True)


def cmake() -> str:
    found = shutil.which("cmake")
    if found is None:
        raise SystemExit("tandem: no libtandem to build against and no cmake to build it "
                         "with: install cmake (apt-get install cmake, or pip install cmake), "
                         "or set TANDEM_BUILD_DIR to a tandem build folder")
    return found


def build_with_cmake() -> Path:
    """libtandem built from this checkout with what the machine has (every backend
    AUTO), without the tests, in build/libtandem/ beside this file."""
    tree = HERE / "build" / "libtandem"
    run([cmake(), "-S", str(CHECKOUT), "-B", str(tree), "-DCMAKE_BUILD_TYPE=Release",
         "-DBUILD_TESTING=OFF"])
    run([cmake(), "--build", str(tree), "-j", str(os.cpu_count() or 1)])
    return tree


def installed() -> Optional[Dict[str, List[str]]]:
    try:
        cflags = subprocess.run(["pkg-config", "--cflags-only-I", "tandem"], check=True,
                                capture_output=True, text=True).stdout
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "tandem"], check=True,
                                capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    includes = [flag[2:] for flag in shlex.split(cflags) if flag.startswith("-I")]
    return {"include_dirs": includes, "library_dirs": [libdir], "runtime_library_dirs": [libdir]}


def library() -> Union[Path, Dict[str, List[str]]]:
    """The build tree to link against and carry, or an installed tandem's flags."""
    if os.environ.get("TANDEM_BUILD_DIR"):
        tree = Path(os.environ["TANDEM_BUILD_DIR"]).resolve()
        if not (tree / "libtandem.so").exists():
            raise SystemExit(f"tandem: TANDEM_BUILD_DIR={tree} holds no libtandem.so: "
                             "build tandem there first (cmake --build)")
        return tree
    if (CHECKOUT / "build" / "libtandem.so").exists():
        return CHECKOUT / "build"
    flags = installed()
    return flags if flags is not None else build_with_cmake()


def headers(include_dirs: List[str]) -> List[str]:
    """The headers the extension compiles against: a changed one rebuilds every source
    (setuptools compares the objects with these, not only with their own sources)."""
    found = [str(p) for d in include_dirs for p in sorted(Path(d).glob("tandem/*"))]
    return found + [str(p) for p in sorted((HERE / "src").glob("*.h"))]


class BuildWithLibrary(build_ext):
    """Finds or builds libtandem before compiling, then copies a build tree's install
    into the package."""

    def run(self) -> None:
        found = library()
        extension = self.extensions[0]
        if isinstance(found, Path):
            extension.include_dirs = [str(CHECKOUT / "include")]
            extension.library_dirs = [str(found)]
            extension.runtime_library_dirs = [f"$ORIGIN/{BUNDLE}/lib"]
        else:
            for key, values in found.items():
                setattr(extension, key, values)
        extension.depends = headers(extension.include_dirs)
        super().run()
        if isinstance(found, Path):
            self.carry(found)

    def carry(self, tree: Path) -> None:
        """cmake --install of the tree into a staging folder, then its library, program
        and data into build_lib's tandem/_lib (the install's run path, $ORIGIN/../lib,
        lets the program find the library there)."""
        stage = Path(self.build_temp).resolve() / "install"
        shutil.rmtree(stage, ignore_errors=True)
        run([cmake(), "--install", str(tree), "--prefix", str(stage)])
        bundle = Path(self.build_lib) / "tandem" / BUNDLE
        shutil.rmtree(bundle, ignore_errors=True)
        libdir = next(p for p in (stage / "lib", stage / "lib64") if p.is_dir())
        wanted = {"lib": [p for p in libdir.glob("libtandem*.so.0")],
                  "bin": [stage / "bin" / "tandem"],
                  "share/tandem": [stage / "share" / "tandem" / name
                                   for name in ("digits.csv.gz", "shakespeare.txt.gz")]}
        for folder, files in wanted.items():
            (bundle / folder).mkdir(parents=True, exist_ok=True)
            for file in files:
                if file.exists():
                    shutil.copy2(file.resolve(), bundle / folder / file.name)
        if self.inplace:
            shutil.rmtree(HERE / "tandem" / BUNDLE, ignore_errors=True)
            shutil.copytree(bundle, HERE / "tandem" / BUNDLE)


extension = Extension(
    "tandem._tandem",
    sources=[str(Path("src") / name) for name in
             ("module.c", "devices.c", "collectives.c", "model.c", "fit.c", "weights.c",
              "summary.c")],
    libraries=["tandem"],
    define_macros=[("Py_LIMITED_API", "0x03090000")],
    py_limited_api=True,
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Wshadow", "-Wstrict-prototypes",
                        "-Wmissing-prototypes", "-Wno-missing-field-initializers"],
)

setup(version=version(), ext_modules=[extension], cmdclass={"build_ext": BuildWithLibrary},
      options={"bdist_wheel": {"py_limited_api": "cp39"}})
