"""Layer objects with Keras' names: each renders to its --layers item; a list of them
is Keras' Sequential (each layer its own activation, linear by default, the last the
output layer), and trains the same bytes as the string of items that says the same."""
import pytest

import tandem
from tandem import layers


def test_each_object_renders_its_item():
    rendered = [str(layer) for layer in (
        layers.Dense(128), layers.Conv2D(32, 3), layers.Conv2D(8, (5, 3), strides=2,
                                                               padding="same"),
        layers.MaxPool2D(2), layers.MaxPooling2D(3, strides=1, padding="same"),
        layers.AveragePooling2D((2, 3)), layers.BatchNormalization(),
        layers.LayerNormalization(), layers.Residual(2), layers.Embedding(256, 8),
        layers.GlobalAveragePooling2D())]
    assert rendered == ["128", "conv32k3valid", "conv8k5x3s2", "pool2valid", "pool3s1",
                        "avgpool2x3valid", "bn", "ln", "res2", "emb256x8", "gap"]


def test_the_reader_takes_every_object():
    model = tandem.Sequential([layers.Conv2D(8, 3, padding="same"), layers.BatchNormalization(),
                               layers.Conv2D(8, 3, padding="same"), layers.Residual(2),
                               layers.AveragePooling2D(2), layers.LayerNormalization(),
                               layers.GlobalAveragePooling2D(), layers.Dense(16)],
                              input_shape=(8, 8, 1))
    assert [kind for kind, _ in model.layers] == [
        "conv2d", "batch_norm", "conv2d", "residual", "avg_pool2d", "layer_norm",
        "global_avg_pool2d", "dense"]
    embedded = tandem.Sequential([layers.Embedding(17, 4), layers.Dense(8)], input_shape=(3,))
    assert embedded.layers == [("embedding", "emb17x4"), ("dense", "8")]


def test_a_list_and_its_string_save_the_same_bytes(pocl_pair, digits, tmp_path):
    x, y, _, _ = digits
    x = x.reshape(-1, 8, 8, 1)
    saved = []
    for name, spec, activation in (
            ("objects", [layers.Conv2D(8, 3, activation="tanh"), layers.MaxPool2D(2),
                         layers.BatchNormalization(), layers.Dense(16, activation="tanh")], None),
            ("string", "conv8k3valid,pool2valid,bn,16", "tanh")):
        model = tandem.Sequential(spec, input_shape=(8, 8, 1), classes=10, seed=5,
                                  activation=activation)
        assert model.activation == ("linear" if name == "objects" else "tanh")
        model.compile(lr=5e-3)
        model.fit(x, y, epochs=1, batch_size=64, strategy=pocl_pair, verbose=0)
        saved.append(tmp_path / f"{name}.safetensors")
        model.save(saved[-1])
    assert saved[0].read_bytes() == saved[1].read_bytes()


def test_each_object_keeps_its_own_activation_and_dropout():
    model = tandem.Sequential([layers.Dense(32, activation="relu"), layers.Dropout(0.25),
                               layers.Dense(16), layers.Dense(8, activation="gelu"),
                               layers.Dense(3)], input_shape=(5,))
    assert model.classes == 3 and model.output_activation == "linear"
    assert model.spec.splitlines() == ["l0 = dense32(input) relu dropout=0.25",
                                       "l2 = dense16(l0)", "l3 = dense8(l2) gelu",
                                       "l4 = dense3(l3)"]
    # without an output layer, Sequential(classes=) adds one
    added = tandem.Sequential([layers.Dense(16, activation="tanh")], input_shape=(5,), classes=4)
    assert added.spec.splitlines()[-1] == "l1 = dense4(l0)"


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="share one activation"):
        tandem.Sequential([128, layers.Dense(8, activation="relu"),
                           layers.Dense(8, activation="tanh")])
    with pytest.raises(ValueError, match="each compute their own activation"):
        tandem.Sequential([layers.Dense(8, activation="relu")], activation="gelu")
    with pytest.raises(ValueError, match="each compute their own activation"):
        tandem.Sequential([layers.Dense(8, activation="relu")], dropout=0.5)
    with pytest.raises(ValueError, match="Dropout: tandem drops"):
        tandem.Sequential([layers.BatchNormalization(), layers.Dropout(0.5), layers.Dense(2)])
    with pytest.raises(ValueError, match="rate"):
        layers.Dropout(1.0)
    with pytest.raises(ValueError, match="padding"):
        layers.Conv2D(8, 3, padding="causal")
    with pytest.raises(ValueError, match="kernel_size"):
        layers.Conv2D(8, (3, 0))
