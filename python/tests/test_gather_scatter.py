"""all_gather and reduce_scatter against numpy, bit for bit, on two PoCL devices and on
a PoCL + lavapipe pair; shapes they cannot split are refused."""
import numpy as np
import pytest

from conftest import per_replica


@pytest.mark.parametrize("shape", [(1,), (999,), (33, 17)])
def test_all_gather_concatenates_in_replica_order(pair, shape):
    a, b = per_replica(shape, 7)
    want = np.concatenate([a, b])
    results = pair.all_gather([a, b])
    assert len(results) == 2
    for got in results:
        assert got.shape == (2 * shape[0], *shape[1:]) and got.dtype == np.float32
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("shape", [(2,), (1000,), (34, 17)])
def test_reduce_scatter_gives_each_replica_its_slice(pair, shape):
    a, b = per_replica(shape, 11)
    half = shape[0] // 2
    expected = {"sum": a + b, "mean": (a + b) / np.float32(2), "max": np.maximum(a, b),
                "min": np.minimum(a, b)}
    for op, want in expected.items():
        results = pair.reduce_scatter([a, b], op=op)
        assert [r.shape for r in results] == [(half, *shape[1:])] * 2, op
        assert results[0].tobytes() == want[:half].tobytes(), op
        assert results[1].tobytes() == want[half:].tobytes(), op


def test_shapes_that_do_not_split_are_refused(pair):
    with pytest.raises(ValueError, match=r"first axis \(3\) must be a multiple of the 2"):
        pair.reduce_scatter([np.zeros(3, np.float32)] * 2)
    with pytest.raises(ValueError, match="at least one axis"):
        pair.all_gather([np.array(1, np.float32), np.array(2, np.float32)])
    with pytest.raises(ValueError, match="op must be one of"):
        pair.reduce_scatter([np.zeros(2, np.float32)] * 2, op="prod")
