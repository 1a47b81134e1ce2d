"""tandem.conformance(): the CLI's report as a dict, failures in it, refusals raised."""
import pytest

import tandem


def test_a_kernel_on_two_backends():
    ids = [d.id for d in tandem.devices()]
    if "opencl:0" not in ids or "vulkan:0" not in ids:
        pytest.skip("no opencl:0 and vulkan:0 here")
    report = tandem.conformance(devices=["opencl:0", "vulkan:0"], kernels=["axpy"],
                                kernels_only=True, timeout=300)
    assert report["failed"] == 0 and report["passed"] == 2, report
    assert {(r["kernel"], r["device"], r["status"]) for r in report["results"]} == {
        ("axpy", "opencl:0", "PASS"), ("axpy", "vulkan:0", "PASS")}
    assert report["collectives"] == [] and report["gradients"] == []


def test_an_unknown_kernel_is_refused_with_the_tools_message():
    with pytest.raises(tandem.InvalidArgumentError, match="no_such_kernel") as error:
        tandem.conformance(kernels=["no_such_kernel"], timeout=60)
    assert error.value.status == "TDM_ERR_INVALID_ARGUMENT"


def test_a_crashing_and_a_hanging_driver_cost_their_cells(monkeypatch):
    """The tool's workers: a crash at one cell and a hang at another are in the report
    as CRASH and TIMEOUT, and every other cell still has its verdict."""
    if "opencl:0" not in [d.id for d in tandem.devices()]:
        pytest.skip("no opencl:0 here")
    monkeypatch.setenv("TDM_CONFORMANCE_FAULT", "relu@opencl:0:segv")
    report = tandem.conformance(devices=["opencl:0"], kernels=["copy", "relu", "sum"],
                                kernels_only=True, timeout=300)
    status = {r["kernel"]: r["status"] for r in report["results"]}
    assert status == {"copy": "PASS", "relu": "CRASH", "sum": "PASS"}, report
    assert report["crashed"] == 1 and report["failed"] == 1 and report["passed"] == 2
    crashed = [r for r in report["results"] if r["status"] == "CRASH"][0]
    assert crashed["ended"] and crashed["ended_in_case"] == 1

    monkeypatch.setenv("TDM_CONFORMANCE_FAULT", "copy@opencl:0:hang")
    report = tandem.conformance(devices=["opencl:0"], kernels=["copy", "relu"],
                                kernels_only=True, case_timeout=3, timeout=300)
    status = {r["kernel"]: (r["status"], r.get("ended")) for r in report["results"]}
    assert status == {"copy": ("TIMEOUT", "after 3 s"), "relu": ("PASS", None)}, report
    assert report["timed_out"] == 1
