"""numpy arrays in and out: exact round trips, and arrays refused with their dtype and
shape named, never copied nor crashing."""
import numpy as np
import pytest

import tandem


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_round_trip_through_every_device(pocl_pair, dtype):
    source = (np.arange(-50, 70).reshape(4, 5, 6) * 3).astype(dtype)
    copies = pocl_pair.broadcast(source)
    assert len(copies) == 2
    for copy in copies:
        assert copy.dtype == source.dtype and copy.shape == source.shape
        assert copy.tobytes() == source.tobytes()


def test_float64_is_refused_naming_dtype_and_shape(pocl_pair):
    with pytest.raises(TypeError, match=r"float64 array of shape \(2, 3\)"):
        pocl_pair.broadcast(np.zeros((2, 3)))
    with pytest.raises(TypeError, match=r"replica 1's array.*float64 array of shape \(4,\)"):
        pocl_pair.all_reduce([np.zeros(4, np.float32), np.zeros(4)])


def test_non_contiguous_is_refused(pocl_pair):
    strided = np.zeros((4, 6), np.float32)[:, ::2]
    with pytest.raises(ValueError, match=r"non-contiguous float32 array of shape \(4, 3\)"):
        pocl_pair.broadcast(strided)


def test_per_replica_arrays_must_match(pocl_pair):
    with pytest.raises(ValueError, match="one per replica"):
        pocl_pair.all_reduce([np.zeros(3, np.float32)])
    with pytest.raises(ValueError, match="must match"):
        pocl_pair.all_reduce([np.zeros(3, np.float32), np.zeros(4, np.float32)])
    with pytest.raises(ValueError, match="op must be one of"):
        pocl_pair.all_reduce([np.zeros(3, np.float32)] * 2, op="prod")


def test_library_errors_carry_status_and_message(pocl_pair):
    with pytest.raises(tandem.InvalidArgumentError) as error:
        pocl_pair.all_reduce([np.arange(3, dtype=np.int32)] * 2)
    assert error.value.status == "TDM_ERR_INVALID_ARGUMENT"
    assert isinstance(error.value, tandem.TandemError)
    assert "f32" in str(error.value)


def test_one_device_id_alone_is_a_list_of_one(pocl_pair):
    """MirroredStrategy("opencl:0"), as a Keras user writes a single device."""
    one = tandem.MirroredStrategy("opencl:0")
    assert one.devices == ["opencl:0"]
    one.close()


def test_unknown_device_is_named_with_the_ids_there_are():
    with pytest.raises(ValueError, match="no device 'opencl:9'.*opencl:0"):
        tandem.MirroredStrategy(["opencl:9"])
