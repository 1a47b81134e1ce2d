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
