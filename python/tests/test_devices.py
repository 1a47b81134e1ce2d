"""tandem.devices() and the version: what the library says, nothing made up."""
import re
from pathlib import Path

import tandem


def test_version_is_the_librarys_and_the_headers():
    header = (Path(__file__).resolve().parents[2] / "include" / "tandem" / "tandem.h").read_text()
    parts = [re.search(rf"#define TDM_VERSION_{p} (\d+)", header).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    assert tandem.__version__ == ".".join(parts)


def test_unknown_compute_units_are_none_not_zero():
    found = tandem.devices()
    assert found
    for device in found:
        assert device.compute_units is None or device.compute_units > 0, device
