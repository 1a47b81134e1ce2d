"""MirroredStrategy.all_reduce against numpy, bit for bit, on two PoCL devices and on a
PoCL + lavapipe pair; a closed strategy refuses calls."""
import numpy as np
import pytest

import tandem

from conftest import per_replica, strategy_over


@pytest.mark.parametrize("shape", [(1,), (1000,), (33, 17)])
def test_all_reduce_is_exact(pair, shape):
    a, b = per_replica(shape, sum(shape))
    expected = {
        "sum": a + b,
        "mean": (a + b) / np.float32(2),
        "max": np.maximum(a, b),
        "min": np.minimum(a, b),
    }
    for op, want in expected.items():
        results = pair.all_reduce([a, b], op=op)
        assert len(results) == 2, op
        for got in results:
            assert got.shape == shape and got.dtype == np.float32, op
            assert got.tobytes() == want.tobytes(), op


def test_float16_all_reduce_rounds_as_numpy(pair):
    """f16 values fold in f32, rounded to f16 once per fold: numpy's own half sums.
    The library sums halves only, an even count of them, and says so otherwise."""
    a, b = (v.astype(np.float16) for v in per_replica((258,), 5))
    for got in pair.all_reduce([a, b]):
        assert got.dtype == np.float16
        assert got.tobytes() == (a + b).tobytes()
    with pytest.raises(tandem.UnsupportedError, match="count must be even"):
        pair.all_reduce([a[:-1], b[:-1]])
    with pytest.raises(tandem.UnsupportedError, match="float16 reduction sums"):
        pair.all_reduce([a, b], op="max")


def test_devices_describe_the_strategy(pair):
    devices = {d.id: d for d in tandem.devices()}
    assert pair.num_replicas_in_sync == 2
    for device_id in pair.devices:
        device = devices[device_id]
        assert device.backend == device_id.split(":")[0]
        assert device.memory > 0 and device.max_allocation > 0 and device.name


def test_closed_strategy_raises():
    strategy = strategy_over(("opencl:0", "opencl:1"))
    strategy.close()
    assert strategy.closed
    with pytest.raises(tandem.InvalidStateError, match="closed"):
        strategy.all_reduce([np.zeros(2, np.float32)] * 2)
    with pytest.raises(tandem.InvalidStateError, match="closed"):
        strategy.broadcast(np.zeros(2, np.float32))
    model = tandem.Sequential("8", input_shape=(4,), classes=2)
    with pytest.raises(tandem.InvalidStateError, match="closed"):
        model.predict(np.zeros((1, 4), np.float32), strategy=strategy)
    strategy.close()  # closing twice is harmless


def test_split_makes_logical_devices_one_replica_each():
    strategy = strategy_over(("vulkan:0",), split=2)
    with strategy:
        assert strategy.devices == ["vulkan:0/0", "vulkan:0/1"]
        assert strategy.num_replicas_in_sync == 2
    with pytest.raises(tandem.InvalidArgumentError, match="split must be between 1 and 64"):
        tandem.MirroredStrategy(["vulkan:0"], split=0)
