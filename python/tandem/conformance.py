"""``tandem.conformance()``: the conformance report of ``tandem conformance`` as a dict.

The library has no conformance entry point (the checker is part of the command-line
tool), so this runs the ``tandem`` program that ``python3 -m tandem`` runs, with
``--json``, and reads the report it writes.
"""
import json
import os
import subprocess
import tempfile
from typing import Any, Dict, Optional, Sequence

from . import _paths, _tandem


def _refusal(message: str) -> Exception:
    error = _tandem.InvalidArgumentError(message)
    error.status, error.code = "TDM_ERR_INVALID_ARGUMENT", 1
    return error


def conformance(devices: Optional[Sequence[str]] = None,
                kernels: Optional[Sequence[str]] = None, gradients: bool = False,
                collectives: bool = False, kernels_only: bool = False, large: bool = True,
                small: bool = False, timeout: Optional[float] = None,
                case_timeout: Optional[int] = None) -> Dict[str, Any]:
    """Checks kernels on devices against the reference backend, backward kernels
    against finite differences and the collectives, as ``tandem conformance`` does
    with the same options (``devices``: --device, ``kernels``: --kernel,
    ``gradients``: --grad, ``collectives``: --collectives, ``kernels_only``:
    --kernels-only, ``large=False``: --no-large, ``small``: --small, ``case_timeout``:
    --timeout, a case's time limit in seconds). The checks run in a worker process
    of the tool, so a driver that crashes or hangs costs its cell, not the report.
    Returns its JSON report: ``results`` (one per kernel and device: ``status``
    "PASS", "FAIL", "NOT SUPPORTED", "CRASH" or "TIMEOUT", with ``ended`` saying how
    the worker ended for the last two; worst ULPs...), ``gradients``,
    ``collectives``, and the ``passed``, ``failed``, ``skipped``, ``crashed`` and
    ``timed_out`` counts. Failures, crashes and hangs are in the report, not raised;
    options the tool refuses raise tandem.InvalidArgumentError with its message.
    ``timeout`` bounds the whole run (subprocess.TimeoutExpired past it)."""
    program = _paths.cli()
    if program is None:
        raise FileNotFoundError("tandem.conformance runs the tandem program, which was not "
                                f"found beside libtandem ({_paths.library_dir()}) nor on PATH: "
                                "set TANDEM_CLI to its path")
    args = [program, "conformance"]
    for device in devices or ():
        args += ["--device", device]
    for kernel in kernels or ():
        args += ["--kernel", kernel]
    flags = {"--grad": gradients, "--collectives": collectives,
             "--kernels-only": kernels_only, "--no-large": not large, "--small": small}
    args += [flag for flag, wanted in flags.items() if wanted]
    if case_timeout is not None:
        args += ["--timeout", str(case_timeout)]
    with tempfile.TemporaryDirectory(prefix="tandem-conformance-") as folder:
        report = os.path.join(folder, "report.json")
        done = subprocess.run([*args, "--json", report], capture_output=True, text=True,
                              timeout=timeout)
        if not os.path.exists(report):
            message = done.stderr.strip() or done.stdout.strip()
            raise _refusal(f"tandem conformance: {message} (exit status {done.returncode})")
        with open(report, encoding="utf-8") as file:
            result: Dict[str, Any] = json.load(file)
    return result
