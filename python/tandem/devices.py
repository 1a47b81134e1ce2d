"""The devices tandem sees: ``tandem.devices()``."""
from dataclasses import dataclass
from typing import List, Optional

from . import _tandem


@dataclass(frozen=True)
class Device:
    """One device of the context, as ``tandem devices`` lists it."""

    index: int  #: its place in the context's list
    id: str  #: "opencl:0", "vulkan:0", "reference:0": what strategies take
    name: str
    vendor: str
    driver: str
    type: str  #: "cpu", "gpu", "integrated gpu" or "other"
    backend: str  #: "reference", "opencl" or "vulkan"
    memory: int  #: bytes usable by the device
    max_allocation: int  #: the largest single buffer, bytes
    compute_units: Optional[int]  #: None where the driver does not say
    same_hardware_as: int  #: index of an earlier device that is the same hardware, else -1
    simulator: bool  #: a software model of a device (Oclgrind)
    gemm: str  #: what runs its matrix products
    gemm_tuning: Optional[str]  #: the row of the GEMM tuning table it took, None on the reference
    default: bool  #: whether the default choice of devices takes it
    choice: str  #: why the default choice takes it or leaves it out


def devices() -> List[Device]:
    """Every device of every backend built in, in the context's order."""
    return [Device(**d) for d in _tandem.devices()]
