"""Sequential from tandem train's --layers strings: every layer kind the CLI accepts,
read by the CLI's own reader, on image inputs; bad strings raise naming the forms."""
import numpy as np
import pytest

import tandem

# Every kind of layer_spec.c's table, in one model or another (emb first only).
SPECS = {
    "conv8k3,pool2,32": [("conv2d", "conv8k3"), ("max_pool2d", "pool2"), ("dense", "32")],
    "conv8k3,bn,maxpool2,16": [("conv2d", "conv8k3"), ("batch_norm", "bn"),
                               ("max_pool2d", "pool2"), ("dense", "16")],
    "conv8k3,conv8k3,conv8k3,res2,gap": [("conv2d", "conv8k3")] * 3 + [
        ("residual", "res2"), ("global_avg_pool2d", "gap")],
    "conv8k3s2valid,ln,avgpool2,dense16": [("conv2d", "conv8k3s2valid"), ("layer_norm", "ln"),
                                           ("avg_pool2d", "avgpool2"), ("dense", "16")],
}


@pytest.fixture(scope="module")
def images(digits):
    x, y, x_test, y_test = digits
    return x.reshape(-1, 8, 8, 1), y, x_test.reshape(-1, 8, 8, 1), y_test


@pytest.mark.parametrize("spec", SPECS)
def test_every_layer_kind_trains(pocl_pair, images, spec):
    x, y, _, _ = images
    model = tandem.Sequential(spec, input_shape=(8, 8, 1), classes=10)
    assert model.layers == SPECS[spec]
    model.compile(lr=5e-3)
    history = model.fit(x, y, epochs=2, batch_size=64, strategy=pocl_pair)
    assert history.history["loss"][1] < history.history["loss"][0], history.history
    assert model.predict(x[:3]).shape == (3, 10)


def test_a_cnn_learns_and_counts_as_keras(pocl_pair, images):
    x, y, x_test, y_test = images
    model = tandem.Sequential(["conv8k3", "pool2", 32], input_shape=(8, 8, 1), classes=10)
    model.compile(lr=5e-3)
    history = model.fit(x, y, epochs=4, batch_size=64, strategy=pocl_pair,
                        validation_data=(x_test, y_test))  # images, as x
    # conv 3*3*1*8 + 8, pooled to 4x4x8 = 128 features, dense 128*32 + 32, out 32*10 + 10
    assert model.count_params() == 80 + 4128 + 330
    assert model.evaluate(x_test, y_test)[1] == history.history["val_accuracy"][-1] > 0.85


def test_an_embedding_takes_ids(pocl_pair, digits):
    x, y, _, _ = digits
    ids = np.ascontiguousarray(np.rint(x * 16), dtype=np.float32)  # pixel values 0-16
    model = tandem.Sequential("emb17x4,16", input_shape=(64,), classes=10)
    model.compile(lr=5e-3)
    model.fit(ids, y, epochs=2, batch_size=64, strategy=pocl_pair)
    assert model.count_params() == 17 * 4 + (64 * 4 * 16 + 16) + (16 * 10 + 10)


def test_bad_layer_strings_raise():
    with pytest.raises(ValueError, match=r"'conv8' is not a layer: give <units>.*conv<filters>k"):
        tandem.Sequential("conv8,16")
    with pytest.raises(ValueError, match="'0' is not a layer"):
        tandem.Sequential([128, 0])


def test_images_need_an_image_shape(pocl_pair, digits):
    x, y, _, _ = digits
    model = tandem.Sequential("conv4k3,16", input_shape=(64,), classes=10)
    model.compile()
    with pytest.raises(ValueError, match=r"give \(height, width, channels\)"):
        model.fit(x, y, strategy=pocl_pair)
